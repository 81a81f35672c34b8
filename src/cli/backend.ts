/**
 * Which backend a run uses, read before anything loads: the run folder (the default, no service) or the
 * DBOS backend (a Postgres database its workers share; see docs/distributed.md).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Args, flag } from "./args.ts";
import type { Io } from "./io.ts";

/** Where a run goes: the run folder (default) or the DBOS backend. */
export type BackendName = "folder" | "dbos";

/**
 * The backend a run uses: `--backend`, else `PI_FLOWS_BACKEND`, else `backend` under `pi-flows` in the
 * project's `.pi/settings.json`, else the global `<agentDir>/settings.json`, else the run folder.
 */
export function backendOf(args: Args, io: Io): { ok: true; value: BackendName } | { ok: false; error: string } {
	const fromSettings = (file: string): string | undefined => {
		if (!existsSync(file)) return undefined;
		try {
			const s = JSON.parse(readFileSync(file, "utf8")) as { "pi-flows"?: { backend?: unknown } };
			const b = s["pi-flows"]?.backend;
			return typeof b === "string" ? b : undefined;
		} catch {
			return undefined;
		}
	};
	const text =
		flag(args, "backend") ??
		io.env.PI_FLOWS_BACKEND ??
		fromSettings(join(io.cwd, ".pi", "settings.json")) ??
		fromSettings(join(io.agentDir, "settings.json")) ??
		"folder";
	if (text === "folder" || text === "dbos") return { ok: true, value: text };
	return { ok: false, error: `--backend takes \`folder\` (the default: a run folder) or \`dbos\`, not \`${text}\`` };
}
