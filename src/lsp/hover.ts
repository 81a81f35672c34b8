/**
 * Hover in a flow file: an agent's card (description, tools, model, file), the type an address reads (up to
 * the segment under the pointer, so `plan` and `plan.output.tasks` each answer for themselves), and a node's
 * kind with its worst case as the plan prints it (`≤ 3 turns · ≤ 1h30m`).
 */
import { type Hover, MarkupKind } from "vscode-languageserver/node";
import type { AgentDef } from "../agents/index.ts";
import { allNodes, type CheckedFlow, typeToString } from "../language/index.ts";
import { boundText } from "../language/render/index.ts";
import type { CompletionWorld } from "./completion.ts";
import { cursorIn, valueNames } from "./cursor.ts";
import { headingAt, type Span, tokenAt } from "./locate.ts";
import { hereAt } from "./scope.ts";
import type { ModelNames } from "./models.ts";
import { frontmatterOf } from "./yaml-lines.ts";

/** What hover reads: completion's world plus the last checked flow, whose bounds it prints. */
export interface HoverWorld extends CompletionWorld {
	checked?: CheckedFlow;
	/** pi's resolver, so an agent's `model: sonnet` shows the model a run would take. Default: names as written. */
	models?: ModelNames;
}

/** The agent's card, in the order a person decides by: what it is for, what it may touch, where it lives. */
function agentCard(agent: AgentDef, models: ModelNames | undefined): string {
	const facts = [
		agent.tools.length ? `tools: ${agent.tools.join(", ")}` : "no tools",
		...(agent.toolsFrom ? [`(${agent.toolsFrom}'s default: no \`tools:\`)`] : []),
		...(agent.model ? [`model: ${modelText(agent.model, models)}`] : []),
	];
	return [
		`**${agent.name}** · agent (${agent.source})`,
		agent.description,
		facts.join(" · "),
		`\`${agent.file}\``,
	].join("\n\n");
}

/** `sonnet → anthropic/claude-sonnet-5-5`, or the name and why pi cannot resolve it. */
function modelText(model: string, models: ModelNames | undefined): string {
	const r = models?.(model);
	if (!r) return model;
	if (!r.ok) return `${model} (${r.error})`;
	return r.ref === model ? model : `${model} → ${r.ref}`;
}

function markdown(value: string, span: Span): Hover {
	return {
		contents: { kind: MarkupKind.Markdown, value },
		range: { start: { line: span.line, character: span.start }, end: { line: span.line, character: span.end } },
	};
}

/** The hover at a position of a flow document, if the pointer is on something it can say anything about. */
export function hoverAt(text: string, line: number, character: number, world: HoverWorld): Hover | undefined {
	const fm = frontmatterOf(text);
	if (!fm || line < fm.start || line === fm.end || line >= fm.lines.length) return undefined;
	const node = (id: string, span: Span): Hover | undefined => {
		const found = world.flow && allNodes(world.flow.nodes).find((n) => n.id.value === id);
		if (!found) return undefined;
		const bound = world.checked?.bounds.get(found.path);
		return markdown([`**${id}**`, `${found.kind} node`, ...(bound ? [boundText(bound)] : [])].join(" · "), span);
	};
	if (line > fm.end) {
		const heading = headingAt(text, line);
		return heading && character >= heading.start && character <= heading.end ? node(heading.text, heading) : undefined;
	}
	const lineText = fm.lines[line].text;
	const token = tokenAt(lineText, line, character);
	if (!token.text) return undefined;
	const cursor = cursorIn(fm, line, token.end);
	switch (valueNames(cursor)) {
		case "agent": {
			const agent = world.roster.get(token.text);
			if (!agent) return undefined;
			return markdown(
				agent.kind === "agent"
					? agentCard(agent, world.models)
					: `**${agent.name}** · broken agent: ${agent.cause}\n\n\`${agent.file}\``,
				token,
			);
		}
		case "id":
			return node(token.text, token);
		case "flow": {
			const callee = world.flows().find((f) => f.name === token.text);
			return callee ? markdown(`**${callee.name}** · flow (${callee.source})\n\n\`${callee.file}\``, token) : undefined;
		}
		case "address":
		case "condition": {
			if (!world.scopes) return undefined;
			const dot = lineText.indexOf(".", character);
			const end = dot >= 0 && dot < token.end ? dot : token.end;
			const address = lineText.slice(token.start, end);
			const read = hereAt(world.scopes, cursor).resolveNames(address.split("."));
			if (!read) return undefined;
			return markdown(`\`${address}\`: \`${typeToString(read.type)}\``, { ...token, end, text: address });
		}
		default:
			return undefined;
	}
}
