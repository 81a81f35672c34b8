/**
 * `pi-flows chain "<chain>" [goal]`: a chain such as `@scout -> @worker --model p/m -> @reviewer` run as a
 * flow, with every flag applied, handoff summaries between steps and `chain.*` events in the run folder.
 * A bad token is refused with its column in the chain and a did-you-mean; nothing runs.
 */
import { CHAIN_CLI_FLAGS } from "../chain/index.ts";
import { type Fault, faultText } from "../faults/index.ts";
import { CHAIN_FILE, judgeChain } from "../launch/index.ts";
import type { Args } from "./args.ts";
import type { Io } from "./io.ts";
import { cliTrusted } from "./project.ts";
import { runChecked } from "./run.ts";
import { flag } from "./args.ts";

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
	const judged = judgeChain(text, {
		cwd: io.cwd,
		scope: { project: cliTrusted(args, io) },
		env: io.env,
		description: "a chain run from the command line",
		file: "chain.md",
		...(globals ? { globals: { text: globals, file: "command line" } } : {}),
	});
	if (!judged.ok && judged.stage === "read") {
		underline(
			text,
			judged.faults.filter((f) => f.file === CHAIN_FILE),
			io,
		);
		underline(
			globals,
			judged.faults.filter((f) => f.file === "command line"),
			io,
		);
		io.stderr("pi-flows: the chain does not read; nothing was run");
		return 2;
	}
	// Faults come placed on the chain as typed (its globals written in): shown under it with a caret.
	const show = (faults: readonly Fault[]) => {
		underline(
			judged.chain,
			faults.filter((f) => f.file === CHAIN_FILE),
			io,
		);
		for (const f of faults)
			if (f.file !== CHAIN_FILE) io.stderr(`${f.file}:${f.line}:${f.column}: ${f.code}: ${faultText(f)}`);
	};
	if (!judged.ok) {
		show(judged.faults);
		io.stderr("pi-flows: the chain does not check; nothing was run");
		return 2;
	}
	const goal = flag(args, "goal") ?? rest.join(" ");
	return runChecked(judged.flow, goal || "(no goal given)", args, io, (faults) => show(judged.place(faults)));
}

/**
 * The chain as typed, then a caret line under each fault's range with its code and message. A chain typed
 * over several lines shows, above each caret, the line the fault is on.
 */
function underline(text: string, faults: readonly Fault[], io: Io): void {
	if (faults.length === 0) return;
	const lines = text.split("\n");
	if (lines.length === 1) io.stderr(`  ${text}`);
	for (const f of faults) {
		const line = lines[f.line - 1] ?? "";
		if (lines.length > 1) io.stderr(`  ${line}`);
		const end = f.endLine === f.line ? f.endColumn : line.length + 1;
		io.stderr(
			`  ${" ".repeat(Math.max(0, f.column - 1))}${"^".repeat(Math.max(1, end - f.column))} ${f.code}: ${faultText(f)}`,
		);
	}
}
