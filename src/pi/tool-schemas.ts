/**
 * pi's built-in tools as the model is told of them (description, parameters, the prompt's lines about
 * them), for a visit's identity: a pi whose `edit` takes other arguments changes every identity that can
 * call `edit`, and nothing else. Built once per process (the words do not depend on the folder).
 *
 *   builtInToolSchemas(["read", "mine"]) → { read: { description: "Read the contents…", parameters: {…} } }
 */
import {
	createBashToolDefinition,
	createEditToolDefinition,
	createFindToolDefinition,
	createGrepToolDefinition,
	createLsToolDefinition,
	createReadToolDefinition,
	createWriteToolDefinition,
} from "@earendil-works/pi-coding-agent";

const MAKERS: Record<string, (cwd: string) => Record<string, unknown>> = {
	read: createReadToolDefinition,
	bash: createBashToolDefinition,
	edit: createEditToolDefinition,
	write: createWriteToolDefinition,
	grep: createGrepToolDefinition,
	find: createFindToolDefinition,
	ls: createLsToolDefinition,
} as unknown as Record<string, (cwd: string) => Record<string, unknown>>;

const KNOWN = new Map<string, unknown>();

/** The schemas of the built-in tools among `names`; a name pi does not build in is left out (hashed by name). */
export function builtInToolSchemas(names: readonly string[]): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	for (const name of names) {
		const make = MAKERS[name];
		if (!make) continue;
		let known = KNOWN.get(name);
		if (known === undefined) {
			const d = make(".");
			known = {
				description: d.description,
				parameters: d.parameters,
				promptSnippet: d.promptSnippet ?? null,
				promptGuidelines: d.promptGuidelines ?? null,
			};
			KNOWN.set(name, known);
		}
		out[name] = known;
	}
	return out;
}
