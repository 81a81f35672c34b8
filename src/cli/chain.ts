/**
 * `pi-flows chain "<chain>" [goal]`: a chain such as `@scout -> @worker --model p/m -> @reviewer` run as a
 * flow, with every flag applied, handoff summaries between steps and `chain.*` events in the run folder.
 * A bad token is refused with its column in the chain and a did-you-mean; nothing runs.
 */
import { parseChain } from "../chain/index.ts";
import { type Fault, faultText } from "../faults/index.ts";
import type { Args } from "./args.ts";
import type { Io } from "./io.ts";
import { runChecked } from "./run.ts";
import { flag } from "./args.ts";
import { catalogueOptions, checkFlowText } from "../flow/index.ts";
import { loadRoster } from "../agents/index.ts";

const PREFIX = "chain: '";

/** Runs `chain`. */
export async function chainCommand(args: Args, io: Io): Promise<number> {
	const [text, ...rest] = args.positionals;
	if (!text) {
		io.stderr('usage: pi-flows chain "@a -> @b --model p/m -> \\"a goal\\"" [goal] [--goal G] [--script FILE] [--model M] [--json] [--project]');
		return 2;
	}
	const parsed = parseChain(text, { file: "chain" });
	if (!parsed.value) {
		underline(text, parsed.faults, io);
		io.stderr("pi-flows: the chain does not read; nothing was run");
		return 2;
	}
	const goal = flag(args, "goal") ?? rest.join(" ");
	const flowText = `---\nname: chain\ndescription: a chain run from the command line\ninput: string\n${PREFIX}${text.replace(/'/g, "''")}'\n---\n`;
	const sources = { project: args.flags.has("project") };
	const checked = checkFlowText(flowText, "chain.md", loadRoster(io.cwd, sources, io.env), catalogueOptions(io.cwd, sources, io.env));
	if (!checked.value) {
		// Faults inside the chain point into the synthetic file: shift them back onto the chain as typed, and
		// show them as the reader's faults are shown, under the chain with a caret.
		const shift = (c: number) => c - PREFIX.length;
		const inChain = checked.faults.filter((f) => f.line === 5);
		underline(text, inChain.map((f) => ({ ...f, column: shift(f.column), endColumn: f.endLine === 5 ? shift(f.endColumn) : text.length + 1 })), io);
		for (const f of checked.faults) if (f.line !== 5) io.stderr(`chain:1:${f.column}: ${f.code}: ${faultText(f)}`);
		io.stderr("pi-flows: the chain does not check; nothing was run");
		return 2;
	}
	return runChecked(checked.value, goal || "(no goal given)", args, io);
}

/** The chain as typed, then a caret line under each fault's range with its code and message. */
function underline(text: string, faults: readonly Fault[], io: Io): void {
	if (faults.length === 0) return;
	io.stderr(`  ${text}`);
	for (const f of faults) {
		const end = f.endLine === f.line ? f.endColumn : text.length + 1;
		io.stderr(`  ${" ".repeat(Math.max(0, f.column - 1))}${"^".repeat(Math.max(1, end - f.column))} ${f.code}: ${faultText(f)}`);
	}
}
