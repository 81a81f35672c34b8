/**
 * What a run was checked against, kept in its folder: the flow and every flow it calls (their texts),
 * the agents as parsed, the check scripts' contents, the input and the settings. A resume runs the
 * snapshot, not the disk, so a flow edited since cannot change a half-done run; it is only reported.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentDef, Skill } from "../agents/index.ts";
import { allNodes, type CheckedFlow, type Value } from "../language/index.ts";
import type { Budget } from "../engine/index.ts";
import { writeAtomic } from "./files.ts";

/** A flow file as it was when the run started. */
export interface FlowText {
	name: string;
	file: string;
	text: string;
}

/** Everything a run needs to be run again exactly. */
export interface Snapshot {
	version: 1;
	createdAt: string;
	flow: FlowText;
	callees: FlowText[];
	agents: AgentDef[];
	/** Skills named by the flow's nodes, with their text. */
	skills?: Skill[];
	scripts: Record<string, string>;
	input: Value;
	settings: {
		cwd: string;
		model?: string;
		timeoutMs?: number;
		/** A turn's longest silence (`--idle-timeout`); a watcher shows a run silent for longer as stalled. */
		idleTimeoutMs?: number;
		somebodyThere: boolean;
		budget?: Budget;
		/** The scripted model's script, when the run is scripted. */
		script?: { file: string; text: string };
		/** The run this one reuses from (`--reuse`): a run folder, or a database run id. */
		reuse?: string;
		/**
		 * The nodes it plays again whatever their identity (`--rerun-from`), kept so a resume of it forces
		 * them too instead of taking them from the run it reuses.
		 */
		rerunFrom?: string[];
		/**
		 * The caller's span as W3C `traceparent` (an MCP call's `_meta.traceparent`, a pipeline's
		 * `TRACEPARENT`): the first life's root is its child, on whichever worker runs it.
		 */
		traceparent?: string;
	};
}

/** The snapshot of a checked flow and its callees, read from the files they were checked from. */
export function snapshotOf(
	flow: CheckedFlow,
	input: Value,
	scripts: ReadonlyMap<string, string>,
	settings: Snapshot["settings"],
): Snapshot {
	const callees = new Map<string, FlowText>();
	const agents = new Map<string, AgentDef>();
	const skills = new Map<string, Skill>();
	const walk = (f: CheckedFlow) => {
		for (const list of f.skills.values()) for (const k of list) skills.set(k.name, k);
		for (const a of f.agents.values()) agents.set(a.name, a);
		for (const m of f.amongAgents.values()) for (const a of m.values()) agents.set(a.name, a);
		for (const m of f.members.values()) for (const x of m) agents.set(x.agent.name, x.agent);
		for (const node of allNodes(f.nodes)) {
			if (node.kind !== "flow") continue;
			const callee = f.callees.get(node.id.value);
			if (callee && !callees.has(callee.name.value)) {
				callees.set(callee.name.value, { name: callee.name.value, file: callee.file, text: callee.source.text });
				walk(callee);
			}
		}
	};
	walk(flow);
	return {
		version: 1,
		createdAt: new Date().toISOString(),
		flow: { name: flow.name.value, file: flow.file, text: flow.source.text },
		callees: [...callees.values()],
		agents: [...agents.values()],
		skills: [...skills.values()],
		scripts: Object.fromEntries(scripts),
		input,
		settings,
	};
}

/** The snapshot's text as `writeSnapshot` writes it, which the run's seal covers. */
export function snapshotText(snapshot: Snapshot): string {
	return `${JSON.stringify(snapshot, null, 2)}\n`;
}

/**
 * Writes the snapshot (once, atomically); returns the exact text written. A new run seals that text before
 * it writes it (`startRun`), so whoever finds a run folder's snapshot (the web view, `report`, `resume`)
 * finds its seal too: the web view judges a folder's seal once, as it opens it, and a folder opened between
 * the two writes stayed "not made here" for good.
 */
export function writeSnapshot(runDir: string, snapshot: Snapshot): string {
	const text = snapshotText(snapshot);
	writeAtomic(join(runDir, "snapshot.json"), text);
	return text;
}

/** Reads a run's snapshot (or parses `text`, the snapshot a seal was checked against), or says why not. */
export function readSnapshot(
	runDir: string,
	text?: string,
): { ok: true; value: Snapshot } | { ok: false; error: string } {
	try {
		const value = JSON.parse(text ?? readFileSync(join(runDir, "snapshot.json"), "utf8")) as Snapshot;
		if (value.version !== 1)
			return {
				ok: false,
				error: `the snapshot of ${runDir} has version ${value.version}, which this pi-flows cannot read`,
			};
		return { ok: true, value };
	} catch (error) {
		return { ok: false, error: `${runDir} holds no readable snapshot: ${(error as Error).message}` };
	}
}
