/**
 * Adds providers to the person's `models.json` without losing any: `pi-flows provider --agent-dir` once
 * replaced the file whole, dropping every provider configured there (their base URLs, their keys) with no
 * copy. Now the file's other providers and keys are kept, same-named providers are replaced, the old file
 * is copied beside it first, and a file that is not a JSON object is refused rather than overwritten.
 *
 * In: the agent folder and the providers to add. Out: the file written, its copy, the providers kept.
 * Example: a models.json with `anthropic-proxy` and `local`, adding `wire` → all three, and
 * `models.json.2026-12-01T10-00-00-000Z.bak` holding the old text.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../package/index.ts";

/** What merging did, or why nothing was written. */
export type MergedModels =
	| { ok: true; path: string; backup?: string; kept: string[]; added: string[] }
	| { ok: false; path: string; error: string };

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** Merges `fresh.providers` into `<dir>/models.json`, keeping every other key and provider. */
export function mergeModelsFile(dir: string, fresh: Record<string, unknown>): MergedModels {
	const path = join(dir, "models.json");
	const adding = isObject(fresh.providers) ? fresh.providers : {};
	let old: Record<string, unknown> = {};
	let mode = 0o600;
	if (existsSync(path)) {
		let parsed: unknown;
		try {
			parsed = JSON.parse(readFileSync(path, "utf8"));
		} catch (error) {
			return {
				ok: false,
				path,
				error: `${path} is not valid JSON (${(error as Error).message}); fix it first, it was not changed`,
			};
		}
		if (!isObject(parsed))
			return { ok: false, path, error: `${path} is not a JSON object; fix it first, it was not changed` };
		old = parsed;
		mode = statSync(path).mode & 0o777;
	}
	const before = isObject(old.providers) ? old.providers : {};
	const merged = { ...old, providers: { ...before, ...adding } };
	mkdirSync(dir, { recursive: true });
	let backup: string | undefined;
	if (existsSync(path)) {
		backup = `${path}.${new Date().toISOString().replace(/[:.]/g, "-")}.bak`;
		copyFileSync(path, backup);
	}
	// It may hold keys: written whole or not at all, with the old file's permissions (0600 for a new one).
	writeFileAtomic.sync(path, `${JSON.stringify(merged, null, 2)}\n`, { fsync: true, mode });
	return {
		ok: true,
		path,
		...(backup ? { backup } : {}),
		kept: Object.keys(before).filter((k) => !(k in adding)),
		added: Object.keys(adding),
	};
}
