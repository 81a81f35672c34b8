/**
 * The one trust rule, for runs: a run whose flow, callees or agents came from the project (`.pi/`, the
 * repository's content) is a project run, and the server shows and acts on it only when started with
 * `--project`, as every command reads project flows only with it. Other runs (shipped or the person's
 * own flows) need nothing more than the token.
 */
import { relative, resolve } from "node:path";
import type { Snapshot } from "../runs/index.ts";

/** Whether the run's flow or any of its agents are the project's own. */
export function isProjectRun(snapshot: Snapshot): boolean {
	if (snapshot.agents.some((a) => a.source === "project")) return true;
	const pi = resolve(snapshot.settings.cwd, ".pi");
	const inside = (file: string) => {
		const r = relative(pi, resolve(snapshot.settings.cwd, file));
		return r !== "" && !r.startsWith("..") && !r.startsWith("/");
	};
	return [snapshot.flow, ...snapshot.callees].some((f) => inside(f.file));
}

/** What a person is told of a project run the server was not trusted with. */
export const PROJECT_RUN_TRUST =
	"this run's flow or agents are the project's (repository content), shown only when trusted: start `pi-flows serve --project`";
