/**
 * Which backend a run uses, read before anything loads: the run folder (the default, no service) or the
 * DBOS backend (a Postgres database its workers share; see docs/distributed.md). The project's
 * `.pi/settings.json` is repository content: a clone that picked the backend would send the person's run,
 * and its input, to whatever database `PI_FLOWS_DATABASE_URL` names (the team's), so it is read only when
 * the project is trusted, and a value it holds untrusted is named, with how to trust.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { untrustedSetting } from "../trust/index.ts";
import { type Args, flag } from "./args.ts";
import type { Io } from "./io.ts";
import { cliTrusted } from "./project.ts";

/** Where a run goes: the run folder (default) or the DBOS backend. */
export type BackendName = "folder" | "dbos";

/** The backend, and a note when the untrusted project's settings named one that was not read. */
export type Backend = { ok: true; value: BackendName; skipped?: string } | { ok: false; error: string };

function fromSettings(file: string): string | undefined {
	if (!existsSync(file)) return undefined;
	try {
		const s = JSON.parse(readFileSync(file, "utf8")) as { "pi-flows"?: { backend?: unknown } };
		const b = s["pi-flows"]?.backend;
		return typeof b === "string" ? b : undefined;
	} catch {
		return undefined;
	}
}

/**
 * The backend a run uses: `--backend`, else `PI_FLOWS_BACKEND`, else `backend` under `pi-flows` in the
 * project's `.pi/settings.json` (only when the project is trusted), else the global
 * `<agentDir>/settings.json`, else the run folder.
 */
export function backendOf(args: Args, io: Io): Backend {
	const projectFile = join(io.cwd, ".pi", "settings.json");
	const trusted = cliTrusted(args, io);
	const project = fromSettings(projectFile);
	const text =
		flag(args, "backend") ??
		io.env.PI_FLOWS_BACKEND ??
		(trusted ? project : undefined) ??
		fromSettings(join(io.agentDir, "settings.json")) ??
		"folder";
	const skipped =
		!trusted && project !== undefined && project !== text
			? untrustedSetting(".pi/settings.json", `picks the backend \`${project}\``)
			: undefined;
	if (text === "folder" || text === "dbos") return { ok: true, value: text, ...(skipped ? { skipped } : {}) };
	return { ok: false, error: `--backend takes \`folder\` (the default: a run folder) or \`dbos\`, not \`${text}\`` };
}
