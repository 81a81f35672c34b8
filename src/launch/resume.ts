/**
 * A run folder made ready to continue, the same way from every surface that resumes (`pi-flows resume`,
 * the MCP server's `run_resume`): its seal checked before anything of it is read for use, its journal read
 * for what a resume runs again (the visits cut mid-turn, and those of them that may have written to the
 * tree: in doubt), the host opened with the script its snapshot keeps, and the budget in force (the
 * snapshot's, each limit given replacing its kind). The in-doubt choice is the surface's to make (a
 * terminal asks, a flag or a tool argument says), and `resumeRun` refuses a run that must not go on.
 * Nothing spawns here.
 *
 *   prepareResume(".pi/runs/2026-…-build", { keyDir, openHost })  →  { ok, snapshot, inDoubt: ["edit"], host, models }
 */
import { join } from "node:path";
import type { Budget, ModelDoor } from "../engine/index.ts";
import {
	journalState,
	readJournal,
	type ResumeOptions,
	type Snapshot,
	sealedRun,
	snapshotModels,
} from "../runs/index.ts";
import type { TransportPolicy } from "../runtime/index.ts";
import { readScript, type Script } from "../script/index.ts";
import { reuseFromFolder } from "../reuse/index.ts";
import { hasToolSchemas } from "./prepare.ts";

/** What a resume asks of a run folder, as the surface read it. */
export interface ResumeSettings<H extends ModelDoor> {
	/** The agent folder holding the person's run key: only a run they made here is read. */
	keyDir: string;
	/** Opens the host the run spawns through, given the script the snapshot keeps (a dry run's). */
	openHost: (script: Script | undefined, transport: Partial<TransportPolicy> | undefined) => Promise<H>;
	/** `--retries` and `--retry-wait`. */
	transport?: Partial<TransportPolicy>;
	/** The limits given now (`--budget-tokens` and kin); each replaces the snapshot's of its kind. */
	budget?: Budget;
}

/** A run folder ready to resume, or why it cannot be read. */
export type ResumePrep<H extends ModelDoor> =
	| {
			ok: true;
			runDir: string;
			snapshot: Snapshot;
			/** Visits cut after calling a tool that writes: their edits may be in the tree. */
			inDoubt: string[];
			/** Visits cut mid-turn, which run again. */
			cut: string[];
			host: H;
			/** Resolves the snapshot's models through the host, as `resumeRun` asks. */
			models: ResumeOptions["models"];
			/** Opens the run a run with `--reuse` reused from (sealed as this one is), so what is left reuses too. */
			reuseFrom: NonNullable<ResumeOptions["reuseFrom"]>;
			/** The host's tool schemas, so the visits that run now hash the tools as the earlier life did. */
			toolSchemas?: (names: readonly string[]) => Readonly<Record<string, unknown>>;
			budget?: Budget;
	  }
	| { ok: false; error: string };

/** Reads, checks and opens what resuming `runDir` needs. */
export async function prepareResume<H extends ModelDoor>(
	runDir: string,
	settings: ResumeSettings<H>,
): Promise<ResumePrep<H>> {
	// Nothing of a run folder is read for use (its script, its models) before its seal checks.
	const sealed = sealedRun(runDir, settings.keyDir);
	if (!sealed.ok) return { ok: false, error: sealed.error };
	const { snapshot } = sealed;
	const journal = readJournal(join(runDir, "journal.jsonl"));
	const state = journal.ok ? journalState(journal.entries) : undefined;
	const kept = snapshot.settings.script;
	const script = kept ? readScript(kept.text, kept.file).value : undefined;
	const host = await settings.openHost(script, settings.transport);
	const budget: Budget = { ...(snapshot.settings.budget ?? {}), ...(settings.budget ?? {}) };
	return {
		ok: true,
		runDir,
		snapshot,
		inDoubt: state?.inDoubt ?? [],
		cut: state?.cut ?? [],
		host,
		models: snapshotModels(host, snapshot),
		reuseFrom: (from) => {
			const opened = reuseFromFolder(from, settings.keyDir);
			return opened.ok ? opened.source : { error: opened.error };
		},
		...(hasToolSchemas(host) ? { toolSchemas: (names: readonly string[]) => host.toolSchemas(names) } : {}),
		...(Object.keys(budget).length ? { budget } : {}),
	};
}
