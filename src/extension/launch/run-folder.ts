/**
 * Every run gets a folder, `.pi/runs/<time>-<flow>/`, made before the first turn so a person can find the
 * run while it is going, and `result.json` written atomically when it ends. This is the place the journal
 * plugs in: when the run folder module of `src/runs/` lands, `openRunFolder` hands its recorder to the
 * run (`RunOptions.recorder`) and `finish` is its `run_end`; the callers do not change.
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { FlowResult } from "../../engine/index.ts";
import { writeFileAtomic } from "../../package/index.ts";

/** Where run folders go, under the working folder. */
export const RUNS_HOME = join(".pi", "runs");

/** A run's folder: where a person (and later a resume) finds what the run did. */
export interface RunFolder {
	/** Absolute. */
	readonly dir: string;
	/** As a person in the working folder would type it. */
	readonly shown: string;
	/** Writes `result.json`; `extra` is merged in (how the run was launched, why it stopped). */
	finish(result: FlowResult, extra?: Record<string, unknown>): void;
}

/** Makes the folder of a new run of `flow`, before the first turn, so a run in progress can be found. */
export function openRunFolder(cwd: string, flow: string, now = new Date()): RunFolder {
	const home = resolve(cwd, RUNS_HOME);
	const stamp = now.toISOString().slice(0, 19).replace("T", "_").replace(/:/g, "-");
	let name = `${stamp}-${flow}`;
	let dir = join(home, name);
	mkdirSync(home, { recursive: true });
	for (let n = 2; !makeNew(dir); n++) {
		name = `${stamp}-${flow}-${n}`;
		dir = join(home, name);
	}
	const startedAt = now.toISOString();
	return {
		dir,
		shown: join(RUNS_HOME, name),
		finish(result, extra = {}) {
			const record = { ...extra, ...result, runDir: dir, startedAt, endedAt: new Date().toISOString() };
			writeFileAtomic.sync(join(dir, "result.json"), `${JSON.stringify(record, null, 2)}\n`, { fsync: true });
		},
	};
}

/** Creates `dir` only if it did not exist, so two runs started in the same second never share one. */
function makeNew(dir: string): boolean {
	try {
		mkdirSync(dir);
		return true;
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
		throw error;
	}
}
