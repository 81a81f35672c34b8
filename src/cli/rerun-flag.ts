/**
 * The `--rerun-from` flag of `run` and `plan`, read one way for both: the nodes of the run `--reuse` names
 * that play again whatever their identity, checked against the flow as its file is now.
 */
import type { CheckedFlow } from "../language/index.ts";
import { readRerunFrom } from "../reuse/index.ts";
import { type Args, flag } from "./args.ts";

/**
 * `--rerun-from A[,B]`: the nodes of the run `--reuse` names to play again whatever their identity (what
 * reads them is then decided by what they answer). Only with `--reuse`, and only nodes the flow has now.
 */
export function rerunOf(
	args: Args,
	flow: CheckedFlow,
): { ok: true; value: string[] | undefined } | { ok: false; error: string } {
	if (!args.flags.has("rerun-from")) return { ok: true, value: undefined };
	if (!args.flags.has("reuse"))
		return {
			ok: false,
			error: "--rerun-from reruns nodes of an earlier run: name it with --reuse RUN (or --reuse last)",
		};
	return readRerunFrom(flag(args, "rerun-from") ?? "", flow);
}
