/**
 * Branches that run together in copies: each branch works in its own git worktree of the tree as it
 * stands; when the block ends, the patches land in the run's tree in branch order (not finishing order);
 * a patch that does not apply is reported as a value (`refused`, with the files) and the branches after
 * it read `landed: false`. Copies are always released. A stopped run lands nothing. Work that did not
 * land is never deleted: its copy's branch is kept, and the block's entries and failure say which.
 */
import type { Copy, GitFailure, LandResult } from "./ports/index.ts";
import type { World } from "./world.ts";
import { treeChanged } from "./trees.ts";

/** The copies of one block visit. */
export interface BlockCopies {
	/** Opens branch `i`'s copy; the error is the branch's failure. */
	open(i: number, label: string): Promise<{ ok: true; dir: string } | GitFailure>;
	/** Lands every opened copy in branch order; `undefined` entries for branches with no copy. */
	land(count: number): Promise<(LandResult | undefined)[]>;
	/** Releases every copy, whatever happened; the branches kept with work that did not land, by branch index. */
	release(): Promise<(string | undefined)[]>;
}

/** Copies for a block working in `cwd`. */
export function blockCopies(world: World, cwd: string): BlockCopies {
	const copies: (Copy | undefined)[] = [];
	const git = world.options.git;
	return {
		async open(i, label) {
			if (!git) return { ok: false, kind: "unavailable", message: "no git port: copies need a repository" };
			const out = await git.openCopy(cwd, label);
			if (!out.ok) return { ok: false, kind: "unavailable", message: `a copy could not be made: ${out.message}` };
			copies[i] = out.copy;
			return { ok: true, dir: out.copy.dir };
		},
		async land(count) {
			if (!git) return [];
			const opened = copies.map((c, i) => ({ c, i })).filter((x): x is { c: Copy; i: number } => x.c !== undefined);
			const results = await git.land(
				cwd,
				opened.map((x) => x.c),
			);
			// What landed is in the run's tree now: a visit's identity hashes it again.
			treeChanged(world);
			const byIndex: (LandResult | undefined)[] = Array.from({ length: count }, () => undefined);
			opened.forEach((x, k) => {
				byIndex[x.i] = results[k];
			});
			return byIndex;
		},
		async release() {
			if (!git) return [];
			return Promise.all(copies.map((c) => (c ? git.release(c) : undefined)));
		},
	};
}
