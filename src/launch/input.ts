/**
 * A run's input as the flow's type wants it, read the same way wherever a run is launched from (the
 * `pi-flows` command line, `/run`, the `subagent` tool); only the usage line a refusal shows differs.
 */
import { matches, type Type, typeToString, type Value } from "../language/index.ts";

/** How a refusal names the flow and shows how to give the input, in the words of the surface launching. */
export interface InputWords {
	/** The flow as the sentence names it: its name, or "this flow". */
	flow: string;
	/** How to give the input here: `pi-flows run <flow> <input>`, `/run review <input>`. */
	usage: string;
}

/** The input as the flow's type wants it: text for `string`, JSON checked against the type otherwise. */
export function readInput(
	text: string,
	type: Type,
	words: InputWords,
): { ok: true; value: Value } | { ok: false; error: string } {
	if (type.kind === "string") {
		if (!text.trim()) return { ok: false, error: `say what ${words.flow} should work on: ${words.usage}` };
		return { ok: true, value: text };
	}
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return { ok: false, error: `${words.flow} takes ${typeToString(type)}; give the input as JSON` };
	}
	const m = matches(value, type);
	if (!m.ok)
		return {
			ok: false,
			error: `the input does not fit ${typeToString(type)}: at ${m.path || "the top"} expected ${m.expected}`,
		};
	return { ok: true, value: value as Value };
}
