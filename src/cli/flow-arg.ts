/**
 * The flow a `plan` or `graph` command is about: found by name or path as `run` finds it, checked whole
 * with its callees from the same catalogue, and refused (exit 2, positioned faults on stderr) when it does
 * not check, because a plan or a graph of a flow that cannot run would show something that never happens.
 */
import { loadRoster } from "../agents/index.ts";
import type { CheckedFlow } from "../language/index.ts";
import { findFlow } from "../load/index.ts";
import { catalogueOptions, checkFlowFile } from "../load/index.ts";
import type { Args } from "./args.ts";
import type { Io } from "./io.ts";
import { cliTrusted } from "./project.ts";
import { formatFaults } from "./output.ts";

/** The checked flow named by the first positional, or the exit code after saying why not. */
export function checkedFlowArg(
	command: string,
	args: Args,
	io: Io,
): { ok: true; value: CheckedFlow } | { ok: false; code: number } {
	const [name] = args.positionals;
	if (!name || args.positionals.length > 1) {
		io.stderr(`usage: pi-flows ${command} <flow name or path> [--project]`);
		return { ok: false, code: 2 };
	}
	const scope = { project: cliTrusted(args, io) };
	const found = findFlow(name, io.cwd, scope, io.env);
	if (!found.ok) {
		io.stderr(`pi-flows: ${found.error}`);
		return { ok: false, code: 2 };
	}
	const roster = loadRoster(io.cwd, scope, io.env);
	const checked = checkFlowFile(found.value.file, roster, catalogueOptions(io.cwd, scope, io.env));
	if (!checked.value) {
		const n = checked.faults.length;
		io.stderr(formatFaults(checked.faults, io.cwd));
		io.stderr(`pi-flows: ${found.value.name} does not check (${n} fault${n === 1 ? "" : "s"})`);
		return { ok: false, code: 2 };
	}
	return { ok: true, value: checked.value };
}
