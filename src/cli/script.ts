/**
 * `pi-flows script <flow> [--test] [--out FILE]`: a starter script for the scripted model, one entry per
 * agent node with an answer each node accepts, so a newcomer tests a flow before paying for a run. On
 * stdout, or into `--out` (never over an existing file).
 */
import { existsSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { starterScript } from "../flowtest/index.ts";
import { type Args, flag } from "./args.ts";
import { checkedFlowArg } from "./flow-arg.ts";
import type { Io } from "./io.ts";

/** Runs `script`: 0 with the script written, 2 when the flow is not found, does not check, or `--out` exists. */
export function scriptCommand(args: Args, io: Io): number {
	const checked = checkedFlowArg("script", args, io);
	if (!checked.ok) return checked.code;
	const text = starterScript(checked.value, { test: args.flags.has("test") });
	const out = flag(args, "out");
	if (!out) {
		io.stdout(text.trimEnd());
		return 0;
	}
	const file = resolve(io.cwd, out);
	if (existsSync(file)) {
		io.stderr(`pi-flows script: ${out} exists; it was left as it is (choose another --out, or delete it first)`);
		return 2;
	}
	writeFileSync(file, text);
	const next = args.flags.has("test")
		? `pi-flows test ${out}`
		: `pi-flows run ${checked.value.name.value} "…" --script ${out}`;
	io.stderr(`wrote ${out}; try \`${next}\``);
	return 0;
}
