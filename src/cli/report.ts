/**
 * `pi-flows report [run] [--out FILE]`: writes the run's report page, `<run>/report.html` unless told
 * otherwise, and prints where. With no run named, the newest run of this person's (its seal checks) is
 * reported, because the usual question is "what did the run I just made do?"; a run folder a repository
 * shipped is never picked. A run named whose seal does not check is reported, and says so, on the page
 * and here: its record is not known to be what pi-flows wrote.
 */
import { resolve } from "node:path";
import { reportHtml, readRun } from "../report/index.ts";
import { writeAtomic } from "../runs/index.ts";
import { newestSealed, runsHome, sealedRun } from "../runs/index.ts";
import { untrustedRecord } from "../trust/index.ts";
import { type Args, flag } from "./args.ts";
import type { Io } from "./io.ts";
import { displayPath } from "./output.ts";

/** Runs `report`: 0 with the page's path on stdout, 2 when there is no run folder to read or the page cannot be written. */
export function reportCommand(args: Args, io: Io): number | Promise<number> {
	if (flag(args, "database") !== undefined || io.env.PI_FLOWS_BACKEND === "dbos")
		return import("./distributed.ts").then((d) => d.reportDistributed(args, io));
	const home = runsHome(io.cwd, flag(args, "runs-dir"));
	const named = args.positionals[0];
	if (args.positionals.length > 1) {
		io.stderr("pi-flows report: name one run folder");
		return 2;
	}
	const newest = named ? undefined : newestSealed(home, io.agentDir);
	const runDir = named ? resolve(io.cwd, named) : newest?.runDir;
	if (!runDir) {
		const skipped = newest?.skipped
			? ` (${newest.skipped} run folder${newest.skipped === 1 ? " was" : "s were"} skipped: not made by this person's pi-flows here, or changed since)`
			: "";
		io.stderr(
			`pi-flows: no run of yours under ${displayPath(home, io.cwd)}${skipped}; name a run folder to report it anyway`,
		);
		return 2;
	}
	const data = readRun(runDir);
	if (!data.ok) {
		io.stderr(`pi-flows: ${data.error}`);
		return 2;
	}
	const sealed = sealedRun(runDir, io.agentDir);
	if (!sealed.ok) {
		const why = sealed.error.replace(/^refused to resume: /, "");
		data.value.problems.unshift(
			`${untrustedRecord(displayPath(runDir, io.cwd), why)}; this page shows its files as they are, as anyone could have written them`,
		);
	}
	const outText = flag(args, "out");
	const out = outText ? resolve(io.cwd, outText) : resolve(runDir, "report.html");
	try {
		writeAtomic(out, reportHtml(data.value));
	} catch (error) {
		io.stderr(`pi-flows: cannot write ${displayPath(out, io.cwd)}: ${(error as Error).message}`);
		return 2;
	}
	for (const p of data.value.problems) io.stderr(`pi-flows: report: ${p}`);
	io.stdout(displayPath(out, io.cwd));
	return 0;
}
