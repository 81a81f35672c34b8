/**
 * `pi-flows report [run] [--out FILE]`: writes the run's report page, `<run>/report.html` unless told
 * otherwise, and prints where. With no run named, the newest run folder of this project is reported,
 * because the usual question is "what did the run I just made do?".
 */
import { resolve } from "node:path";
import { reportHtml, readRun } from "../report/index.ts";
import { writeAtomic } from "../runs/index.ts";
import { listRunFolders, runsHome } from "../runs/index.ts";
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
	const runDir = named ? resolve(io.cwd, named) : listRunFolders(home)[0];
	if (!runDir) {
		io.stderr(`pi-flows: no run under ${displayPath(home, io.cwd)}; name a run folder`);
		return 2;
	}
	const data = readRun(runDir);
	if (!data.ok) {
		io.stderr(`pi-flows: ${data.error}`);
		return 2;
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
