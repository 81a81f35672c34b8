/**
 * One rule for the project on the command line: every command reads the project's content (`.pi/flows`,
 * its agents, chains, flow tests, settings) only when the person trusted it, with `--project` (or
 * `PI_FLOWS_TRUST_PROJECT=1` for headless runs in a repository they own), and a command that would have
 * seen more with it says what it skipped and how to include it, instead of acting as if it were not there.
 */
import type { Sources } from "../agents/index.ts";
import { unreadProjectFlows } from "../load/index.ts";
import { PROJECT_TRUST, TRUST_ENV } from "../trust/index.ts";
import type { Args } from "./args.ts";
import type { Io } from "./io.ts";
import { displayPath } from "./output.ts";

/** Whether the person trusted the working folder's project for this command. */
export function cliTrusted(args: Args, io: Pick<Io, "env">): boolean {
	return args.flags.has("project") || io.env[TRUST_ENV] === "1";
}

/** The scope every command reads with: the project only when trusted. */
export function cliSources(args: Args, io: Pick<Io, "env">): Sources {
	return { project: cliTrusted(args, io) };
}

/** `skipped 2 project flow(s) in .pi/flows (review, triage): …`, or undefined when nothing was skipped. */
export function skippedProjectFlows(io: Io, scope: Sources): string | undefined {
	const unread = unreadProjectFlows(io.cwd, scope);
	if (!unread) return undefined;
	const n = unread.flows.length;
	return (
		`skipped ${n} project flow${n === 1 ? "" : "s"} in ${displayPath(unread.dir, io.cwd)} ` +
		`(${unread.flows.map((f) => f.name).join(", ")}): ${PROJECT_TRUST}`
	);
}
