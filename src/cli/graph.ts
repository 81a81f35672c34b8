/**
 * `pi-flows graph <flow>`: the flow's shape as a Mermaid flowchart on stdout, ready for a Markdown
 * ```mermaid block or the Mermaid live editor.
 */
import { mermaidOf } from "../language/render/index.ts";
import type { Args } from "./args.ts";
import { checkedFlowArg } from "./flow-arg.ts";
import type { Io } from "./io.ts";

/** Runs `graph`: 0 with the flowchart on stdout, 2 when the flow is not found or does not check. */
export function graphCommand(args: Args, io: Io): number {
	const checked = checkedFlowArg("graph", args, io);
	if (!checked.ok) return checked.code;
	io.stdout(mermaidOf(checked.value).trimEnd());
	return 0;
}
