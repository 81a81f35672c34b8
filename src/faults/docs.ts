/**
 * docs/faults.md, generated from the catalogue and the examples: the page a fault's code leads to. The page
 * is checked in and a test fails when it differs from what this prints, so the docs cannot drift from the
 * codes the checker raises. Regenerate with `node scripts/faults-doc.ts` (`npm run docs:faults`).
 */
import { FAULT_CATALOGUE, FAULT_CODES, type FaultEntry } from "./catalogue.ts";
import { FAULT_EXAMPLES, type FaultExample } from "./examples.ts";

/** Headings of the stages, in the order a flow meets them; a stage the catalogue gains later still gets one. */
const STAGE_HEADINGS: Record<string, string> = {
	read: "Reading a flow file",
	check: "Checking a flow",
	roster: "Agent files",
	run: "Before a run starts",
	cli: "The command line",
	script: "Scripted-model scripts",
	chain: "Chains",
	database: "The database of the distributed backend",
};

function stagesInOrder(): string[] {
	const known = Object.keys(STAGE_HEADINGS);
	const all = [...new Set(FAULT_CODES.map((c) => FAULT_CATALOGUE[c].stage as string))];
	return [...known.filter((s) => all.includes(s)), ...all.filter((s) => !known.includes(s))];
}

const FENCE: Record<FaultExample["kind"], string> = {
	nodes: "yaml",
	flow: "yaml",
	file: "markdown",
	chain: "text",
	script: "yaml",
};

function example(e: FaultExample): string {
	const text = e.kind === "nodes" ? `nodes:\n${e.text.replace(/^(?=.)/gm, "  ")}` : e.text;
	const note = e.note ? `, ${e.note}` : ":";
	return `Example${note}\n\n\`\`\`${FENCE[e.kind]}\n${text.trimEnd()}\n\`\`\``;
}

/** The whole page, ending with one newline. */
export function faultsMarkdown(): string {
	const out: string[] = [
		"# Faults",
		"",
		"<!-- Generated from src/faults/catalogue.ts and src/faults/examples.ts by src/faults/docs.ts: do not edit by hand. Run `npm run docs:faults`. -->",
		"",
		"Every refusal has a stable code. `pi-flows check` (and `run`, `plan` and `graph`, which check first) prints each as",
		"`file:line:col: code: message (node.path)`, all of them at once, in file order, one per mistake. Tools should tell faults",
		"apart by code, never by message. The sub-languages of conditions, types and durations are described in",
		"[conditions.md](conditions.md), and the flow format in [flows.md](flows.md).",
		"",
	];
	for (const stage of stagesInOrder()) {
		const codes = FAULT_CODES.filter((c) => FAULT_CATALOGUE[c].stage === stage);
		out.push(
			`## ${STAGE_HEADINGS[stage] ?? `Stage \`${stage}\``}`,
			"",
			codes.map((c) => `[\`${c}\`](#${c})`).join(" · "),
			"",
		);
		for (const code of codes) {
			const entry: FaultEntry = FAULT_CATALOGUE[code];
			const ex = FAULT_EXAMPLES[code];
			out.push(`### \`${code}\``, "", `Stage: ${entry.stage}.`, "", entry.trigger, "");
			if (ex) out.push(example(ex), "");
			out.push(`Fix: ${entry.fix}`, "");
		}
	}
	return `${out.join("\n").trimEnd()}\n`;
}
