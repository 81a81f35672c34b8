/**
 * One rule for project flows on the command line: every command reads `.pi/flows` (and the project's
 * agents) only with `--project`, and a command that would have seen more flows with it says which it
 * skipped and how to include them, instead of acting as if they were not there.
 */
import type { Scope } from "../agents/index.ts";
import { PROJECT_TRUST, unreadProjectFlows } from "../load/index.ts";
import type { Args } from "./args.ts";
import type { Io } from "./io.ts";
import { displayPath } from "./output.ts";

/** The scope every command reads with: the project only with `--project`. */
export function cliScope(args: Args): Scope {
	return { project: args.flags.has("project") };
}

/** `skipped 2 project flow(s) in .pi/flows (review, triage): …`, or undefined when nothing was skipped. */
export function skippedProjectFlows(io: Io, scope: Scope): string | undefined {
	const unread = unreadProjectFlows(io.cwd, scope);
	if (!unread) return undefined;
	const n = unread.flows.length;
	return (
		`skipped ${n} project flow${n === 1 ? "" : "s"} in ${displayPath(unread.dir, io.cwd)} ` +
		`(${unread.flows.map((f) => f.name).join(", ")}): ${PROJECT_TRUST}`
	);
}
