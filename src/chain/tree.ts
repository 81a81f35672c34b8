/**
 * What a step changed in the working tree, measured from the tree before and after it (not from what the
 * model says it did): every file's content hash, skipping `.git`, `node_modules` and pi-flows' own `.pi`.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/** A tree's files and their fingerprints. */
export type TreeState = Map<string, string>;

const SKIP = new Set([".git", "node_modules", ".pi"]);
const MAX_FILES = 20_000;
const HASH_BYTES = 2_000_000;

/** Fingerprints every file under `root` (large files by size and time, to keep this cheap). */
export function treeState(root: string): TreeState {
	const out: TreeState = new Map();
	const walk = (dir: string) => {
		let entries: import("node:fs").Dirent[];
		try {
			entries = readdirSync(dir, { withFileTypes: true });
		} catch {
			// An unreadable folder is left out of the measure rather than failing the chain.
			return;
		}
		for (const e of entries) {
			if (out.size >= MAX_FILES) return;
			if (SKIP.has(e.name)) continue;
			const path = join(dir, e.name);
			if (e.isDirectory()) walk(path);
			else if (e.isFile()) {
				try {
					const st = statSync(path);
					out.set(
						relative(root, path),
						st.size > HASH_BYTES
							? `${st.size}:${st.mtimeMs}`
							: createHash("sha1").update(readFileSync(path)).digest("hex"),
					);
				} catch {
					// A file that vanished between the listing and the read simply is not there.
				}
			}
		}
	};
	walk(root);
	return out;
}

/** Files created, modified and deleted between two states, sorted. */
export function treeChanges(
	before: TreeState,
	after: TreeState,
): { created: string[]; modified: string[]; deleted: string[] } {
	const created: string[] = [];
	const modified: string[] = [];
	const deleted: string[] = [];
	for (const [path, hash] of after) {
		const was = before.get(path);
		if (was === undefined) created.push(path);
		else if (was !== hash) modified.push(path);
	}
	for (const path of before.keys()) if (!after.has(path)) deleted.push(path);
	return { created: created.sort(), modified: modified.sort(), deleted: deleted.sort() };
}
