/**
 * In doubt, the tree is put back. A visit cut after calling a tool that writes may have changed the tree;
 * it recorded the tree it started from (`tree` in the journal, src/engine/start-tree.ts), so a resume
 * can say which files it changed, and `--in-doubt rerun` first puts those files back to that tree and only
 * then runs the visit again: its writes land once. What the restore replaced is kept under a ref
 * (`refs/pi-flows/kept/…`), so nothing is lost. A visit whose start tree is unknown (an older journal), or
 * during which another writing visit ran (its work would be undone too), is not put back, and the note
 * says so.
 *
 *   const doubt = await inDoubtChanges(cwd, entries, state.inDoubt);
 *   // [{ visit: "fix#1", tree: "4b82…", changed: ["src/a.ts"] }]
 *   await putBack(cwd, doubt)  // ["put back src/a.ts as fix#1 found it (the tree it replaced: refs/pi-flows/kept/fix-1-…)"]
 */
import { WRITING_TOOLS } from "../agents/index.ts";
import { pathsBetween, restoreTree, snapshotTree } from "../engine/index.ts";
import type { JournalEntry } from "./journal.ts";

/** One in-doubt visit: the tree it started from, the files changed since, and why it cannot be put back. */
export interface InDoubtVisit {
	visit: string;
	tree?: string;
	/** Files that differ now from the tree the visit started from (empty when unknown). */
	changed: string[];
	/** Why the tree is not put back for it, when it is not. */
	kept?: string;
}

/** What each in-doubt visit changed, from the trees the journal recorded at their starts. */
export async function inDoubtChanges(
	cwd: string,
	entries: readonly JournalEntry[],
	inDoubt: readonly string[],
): Promise<InDoubtVisit[]> {
	const now = inDoubt.length ? await snapshotTree(cwd) : undefined;
	const out: InDoubtVisit[] = [];
	for (const visit of inDoubt) {
		const at = entries.findLastIndex((e) => e.type === "tree" && e.path === visit);
		const entry = entries[at];
		if (at < 0 || entry?.type !== "tree" || !now?.ok) {
			out.push({ visit, changed: [], kept: "the journal holds no tree from its start" });
			continue;
		}
		const changed = await pathsBetween(cwd, entry.tree, now.snapshot.tree);
		const others = entries
			.slice(at + 1)
			.some((e) => e.type === "tool_call" && e.path !== visit && WRITING_TOOLS.has(e.tool));
		out.push({
			visit,
			tree: entry.tree,
			changed: changed.ok ? changed.paths : [],
			...(others
				? { kept: "another visit that writes ran while it did, and putting the tree back would undo its work" }
				: {}),
			...(!changed.ok ? { kept: changed.message } : {}),
		});
	}
	return out;
}

/** The in-doubt visits in a sentence: each with the files it changed. */
export function describeInDoubt(visits: readonly InDoubtVisit[]): string {
	return visits.map((v) => (v.changed.length ? `${v.visit} (changed ${v.changed.join(", ")})` : v.visit)).join(", ");
}

/** Puts the tree back to where each in-doubt visit started, where it can; one note per visit. */
export async function putBack(cwd: string, visits: readonly InDoubtVisit[]): Promise<string[]> {
	const notes: string[] = [];
	for (const v of visits) {
		if (v.kept || !v.tree) {
			notes.push(`${v.visit} runs again on the tree as it is: ${v.kept ?? "no tree from its start"}`);
			continue;
		}
		if (!v.changed.length) continue;
		const restored = await restoreTree(cwd, v.tree, v.visit);
		notes.push(
			restored.ok
				? `put back ${restored.restored.join(", ")} as ${v.visit} found them (the tree it replaced: ${restored.kept})`
				: `${v.visit} runs again on the tree as it is: it could not be put back (${restored.message})`,
		);
	}
	return notes;
}
