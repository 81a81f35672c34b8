/**
 * Go to definition in a flow file: an agent's name to its file, a `flow:` callee to its file, a node's id
 * to its `## <id>` section and the section's heading back to the id, and an address to the node the checker
 * bound it to (an enclosing loop for `loop.previous.x`, the map for `item`).
 * Targets in this file are found in the text as it is now, so they land right while it is being edited.
 */
import type { Location } from "vscode-languageserver/node";
import type { Roster } from "../agents/index.ts";
import type { FlowEntry } from "../load/index.ts";
import type { ScopePoints } from "../language/index.ts";
import { cursorIn, valueNames } from "./cursor.ts";
import { uriOf } from "./diagnostics.ts";
import { headingAt, headingSpans, idSpans, type Span, tokenAt } from "./locate.ts";
import { boundId, hereAt } from "./scope.ts";
import { frontmatterOf } from "./yaml-lines.ts";

/** What definition reads besides the text. */
export interface DefinitionWorld {
	uri: string;
	roster: Roster;
	flows: () => FlowEntry[];
	/** The scopes the checker walked, from the last version that built: what an address binds. */
	scopes?: ScopePoints;
}

function at(uri: string, span: Span): Location {
	return {
		uri,
		range: { start: { line: span.line, character: span.start }, end: { line: span.line, character: span.end } },
	};
}

/** A file's first line: agent and flow files are found by name, so the file is the definition. */
function fileStart(file: string): Location {
	return { uri: uriOf(file), range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } };
}

/** Where the name under the cursor is defined, if it names something. */
export function definitionAt(
	text: string,
	line: number,
	character: number,
	world: DefinitionWorld,
): Location | undefined {
	const fm = frontmatterOf(text);
	if (!fm || line < fm.start || line === fm.end || line >= fm.lines.length) return undefined;
	if (line > fm.end) {
		const heading = headingAt(text, line);
		const id =
			heading && character >= heading.start && character <= heading.end ? idSpans(text).get(heading.text) : undefined;
		return id ? at(world.uri, id) : undefined;
	}
	const token = tokenAt(fm.lines[line].text, line, character);
	if (!token.text) return undefined;
	const cursor = cursorIn(fm, line, token.end);
	switch (valueNames(cursor)) {
		case "agent": {
			const agent = world.roster.get(token.text);
			return agent ? fileStart(agent.file) : undefined;
		}
		case "flow": {
			const callee = world.flows().find((f) => f.name === token.text);
			return callee ? fileStart(callee.file) : undefined;
		}
		case "id": {
			const heading = headingSpans(text).get(token.text);
			return heading ? at(world.uri, heading) : undefined;
		}
		case "address":
		case "condition": {
			// The node the checker bound the address to (a map for `item`), found in the text as it is now.
			const bound = world.scopes && boundId(hereAt(world.scopes, cursor), token.text);
			const id = bound === undefined ? undefined : idSpans(text).get(bound);
			return id ? at(world.uri, id) : undefined;
		}
		default:
			return undefined;
	}
}
