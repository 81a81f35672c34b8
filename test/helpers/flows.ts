/** Inline flows for checker tests, judged against a small roster. */
import { rosterOf } from "../../src/agents/index.ts";
import { checkFlowText } from "../../src/load/index.ts";

export const testRoster = rosterOf(
	["scout", "planner", "synthesiser", "reviewer"].map((name) => ({
		kind: "agent" as const,
		name,
		description: `${name} for tests`,
		tools: ["read"],
		prompt: `You are ${name}.`,
		file: `/agents/${name}.md`,
		source: "shipped" as const,
	})),
);

/** Judges `text` as the file `name.md`. */
export function judge(text: string, name = "t") {
	return checkFlowText(text, `${name}.md`, testRoster);
}

/** The faults as `code line:col` strings, for compact assertions. */
export function faultsAt(text: string, name = "t"): string[] {
	return judge(text, name).faults.map((f) => `${f.code} ${f.line}:${f.column}`);
}
