/**
 * `pi-flows chain "<chain>" [goal]`: a chain such as `@scout -> @worker --model p/m -> @reviewer` run as a
 * flow, with every flag applied, handoff summaries between steps and `chain.*` events in the run folder.
 * A bad token is refused with its column in the chain and a did-you-mean; nothing runs.
 */
import { CHAIN_CLI_FLAGS } from "../chain/cli-flags.ts";
import { parseChain, withGlobals } from "../chain/index.ts";
import { type Fault, faultText } from "../faults/index.ts";
import type { Args } from "./args.ts";
import type { Io } from "./io.ts";
import { runChecked } from "./run.ts";
import { flag } from "./args.ts";
import { catalogueOptions, checkFlowText } from "../flow/index.ts";
import { loadRoster } from "../agents/index.ts";

const PREFIX = "chain: '";

/** The chain-wide flags given beside the chain, as the text that would follow its `--`. */
function globalsOf(args: Args): string {
	const parts: string[] = [];
	for (const name of Object.keys(CHAIN_CLI_FLAGS)) {
		const value = args.flags.get(name);
		if (value === undefined) continue;
		parts.push(`--${name}`);
		const plain = typeof value === "string" && /^[^\s"'\\]+$/.test(value);
		if (typeof value === "string") parts.push(plain ? value : `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`);
	}
	return parts.join(" ");
}

/** Runs `chain`. */
export async function chainCommand(args: Args, io: Io): Promise<number> {
	const [text, ...rest] = args.positionals;
	if (!text) {
		io.stderr(
			'usage: pi-flows chain "@a -> @b --model p/m -> \\"a goal\\"" [goal] [--goal G] [--script FILE] [--model M] [--json] [--project]',
		);
		return 2;
	}
	const globals = globalsOf(args);
	const beside = globals ? { globals: { text: globals, file: "command line" } } : {};
	const parsed = parseChain(text, { file: "chain", ...beside });
	if (!parsed.value) {
		underline(
			text,
			parsed.faults.filter((f) => f.file === "chain"),
			io,
		);
		underline(
			globals,
			parsed.faults.filter((f) => f.file === "command line"),
			io,
		);
		io.stderr("pi-flows: the chain does not read; nothing was run");
		return 2;
	}
	const whole = withGlobals(text, globals);
	const goal = flag(args, "goal") ?? rest.join(" ");
	const flowText = `---\nname: chain\ndescription: a chain run from the command line\ninput: string\n${PREFIX}${whole.replace(/'/g, "''")}'\n---\n`;
	const sources = { project: args.flags.has("project") };
	const checked = checkFlowText(
		flowText,
		"chain.md",
		loadRoster(io.cwd, sources, io.env),
		catalogueOptions(io.cwd, sources, io.env),
	);
	// Faults inside the chain point into the synthetic file: shift them back onto the chain as typed (a quote
	// doubled for YAML is one character of the chain), and show them under the chain with a caret.
	const show = (faults: readonly Fault[]) => {
		const inChain = faults.filter((f) => f.file === "chain.md" && f.line === 5);
		underline(
			whole,
			inChain.map((f) => ({
				...f,
				column: chainColumn(whole, f.column),
				endColumn: f.endLine === 5 ? chainColumn(whole, f.endColumn) : whole.length + 1,
			})),
			io,
		);
		for (const f of faults)
			if (!inChain.includes(f))
				io.stderr(`${f.file === "chain.md" ? "chain" : f.file}:${f.line}:${f.column}: ${f.code}: ${faultText(f)}`);
	};
	if (!checked.value) {
		show(checked.faults);
		io.stderr("pi-flows: the chain does not check; nothing was run");
		return 2;
	}
	return runChecked(checked.value, goal || "(no goal given)", args, io, show);
}

/** The chain as typed, then a caret line under each fault's range with its code and message. */
function underline(text: string, faults: readonly Fault[], io: Io): void {
	if (faults.length === 0) return;
	io.stderr(`  ${text}`);
	for (const f of faults) {
		const end = f.endLine === f.line ? f.endColumn : text.length + 1;
		io.stderr(
			`  ${" ".repeat(Math.max(0, f.column - 1))}${"^".repeat(Math.max(1, end - f.column))} ${f.code}: ${faultText(f)}`,
		);
	}
}

/**
 * The 1-based column in `chain` of a 1-based column on the synthetic flow's `chain:` line, where the chain
 * stands after {@link PREFIX} with each `'` doubled: `"don't look" -> @scuot` puts `@scuot` at 17, not 16.
 */
export function chainColumn(chain: string, flowColumn: number): number {
	let escaped = flowColumn - 1 - PREFIX.length;
	let i = 0;
	while (i < chain.length && escaped > 0) {
		escaped -= chain[i] === "'" ? 2 : 1;
		i++;
	}
	return i + 1;
}
