/**
 * Every run the server shows, from both homes: the project's run folders (as `pi-flows report` finds
 * them) and, with a database, the DBOS runs of every worker. Project runs are shown only when the server
 * was trusted with the project (`--project`); the list says how many it left out and why. Each run shown
 * is followed by one {@link LiveRun}, shared by its pages, and dropped when its last page leaves.
 */
import { join } from "node:path";
import type { Dbos } from "./dbos-source.ts";
import { DbosRun, snapshotsOf } from "./dbos-source.ts";
import { FolderRun, folderRuns } from "./folder-source.ts";
import { type Follower, LiveRun } from "./live.ts";
import type { SourceKind } from "./record.ts";
import { isProjectRun, PROJECT_RUN_TRUST } from "./trust.ts";
import { type RunStatus, type RunSummary, summaryOf } from "./view.ts";

/** What the server was started with. */
export interface CatalogOptions {
	cwd: string;
	agentDir: string;
	env: NodeJS.ProcessEnv;
	/** Where run folders live (`--runs-dir`, default `.pi/runs`), resolved. */
	home: string;
	/** `--project`: project runs are shown and acted on. */
	project: boolean;
	db?: Dbos;
	/** How often a followed run is read again (ms). Default 100. */
	buildMs?: number;
}

/** The runs list, and what it left out. */
export interface RunList {
	runs: RunSummary[];
	/** Project runs left out for want of `--project`. */
	skipped: number;
	trust?: string;
	problems: string[];
}

/** A run found, or why not (the HTTP status and a sentence). */
export type Found<T> = { ok: true; value: T } | { ok: false; status: number; why: string };

const DBOS_STATUS: Record<string, RunStatus> = {
	enqueued: "queued",
	running: "running",
	ok: "ok",
	failed: "failed",
	stopped: "stopped",
};

/** The runs the server shows and follows. */
export class Catalog {
	readonly options: CatalogOptions;
	readonly #listed = new Map<string, FolderRun>();
	readonly #live = new Map<string, LiveRun>();

	constructor(options: CatalogOptions) {
		this.options = options;
	}

	/** Every run, newest first. */
	async list(): Promise<RunList> {
		const now = Date.now();
		const runs: RunSummary[] = [];
		const problems: string[] = [];
		let skipped = 0;
		const dirs = folderRuns(this.options.home);
		for (const dir of dirs) {
			let run = this.#listed.get(dir);
			if (!run) {
				const opened = FolderRun.open(dir, this.options.agentDir, false);
				if ("error" in opened) {
					problems.push(opened.error);
					continue;
				}
				run = opened;
				this.#listed.set(dir, run);
			}
			if (run.project && !this.options.project) {
				skipped++;
				continue;
			}
			run.poll();
			runs.push(summaryOf(run.record(), now));
		}
		for (const dir of this.#listed.keys()) if (!dirs.includes(dir)) this.#listed.delete(dir);
		const db = this.options.db;
		if (db) {
			try {
				const rows = await db.store.runs(200);
				const snaps = await snapshotsOf(
					db,
					rows.map((r) => r.id),
				);
				for (const r of rows) {
					const snap = snaps.get(r.id);
					if (snap && isProjectRun(snap) && !this.options.project) {
						skipped++;
						continue;
					}
					const status = DBOS_STATUS[r.status] ?? "failed";
					const usage = (r.result as { usage?: { totalTokens?: number; cost?: number } } | undefined)?.usage;
					runs.push({
						source: "dbos",
						id: r.id,
						flow: r.flow,
						where: `${r.id} (DBOS backend)`,
						started: r.createdAt,
						life: r.life,
						status: r.stopRequested && status === "running" ? "stopping" : status,
						statusText: `${r.status} on the DBOS backend`,
						tokens: usage?.totalTokens ?? 0,
						cost: usage?.cost ?? 0,
						sealed: true,
					});
				}
			} catch (error) {
				problems.push(`the database's runs cannot be read: ${(error as Error).message}`);
			}
		}
		runs.sort((a, b) => b.started.localeCompare(a.started));
		return { runs, skipped, ...(skipped ? { trust: PROJECT_RUN_TRUST } : {}), problems };
	}

	/** The folder of a folder run named `id`, if the runs home has it (a name, never a path). */
	folderOf(id: string): string | undefined {
		if (!/^[^/\\]+$/.test(id) || id === "." || id === "..") return undefined;
		const dir = join(this.options.home, id);
		return folderRuns(this.options.home).includes(dir) ? dir : undefined;
	}

	/** The live run of `source`/`id`, opened once and shared by its pages. */
	async live(source: SourceKind, id: string): Promise<Found<LiveRun>> {
		const key = `${source}:${id}`;
		const known = this.#live.get(key);
		if (known) return { ok: true, value: known };
		const follower = await this.#follower(source, id);
		if (!follower.ok) return follower;
		const live = new LiveRun(follower.value, this.options.buildMs ?? 100);
		live.onIdle = () => {
			// Kept a moment, so a page that reloads finds the run still followed.
			setTimeout(() => {
				if (this.#live.get(key) === live && !live.followed()) {
					this.#live.delete(key);
					void live.close();
				}
			}, 5000).unref();
		};
		this.#live.set(key, live);
		return { ok: true, value: live };
	}

	async #follower(source: SourceKind, id: string): Promise<Found<Follower>> {
		if (source === "folder") {
			const dir = this.folderOf(id);
			if (!dir) return { ok: false, status: 404, why: `no run folder ${id} under ${this.options.home}` };
			const run = FolderRun.open(dir, this.options.agentDir);
			if ("error" in run) return { ok: false, status: 404, why: run.error };
			if (run.project && !this.options.project) return { ok: false, status: 403, why: PROJECT_RUN_TRUST };
			return {
				ok: true,
				value: { poll: async () => run.poll(), position: () => run.position(), record: async () => run.record() },
			};
		}
		const db = this.options.db;
		if (!db) return { ok: false, status: 404, why: "the server was started without a database (--database)" };
		const run = await DbosRun.open(db, id);
		if (!run) return { ok: false, status: 404, why: `no run ${id} in the database` };
		if (run.project && !this.options.project) return { ok: false, status: 403, why: PROJECT_RUN_TRUST };
		return { ok: true, value: run };
	}

	async close(): Promise<void> {
		for (const live of this.#live.values()) await live.close();
		this.#live.clear();
		await this.options.db?.store.close();
	}
}
