/**
 * Handoff summaries between chain steps. After each step a summary is built from what can be measured
 * (files created, modified and deleted in the tree; tokens, time, attempts and tools from pi) and what
 * the step's agent wrote in its handoff (decisions, blockers, next steps). Later steps are handed the
 * previous step's summary and the chain's history, capped at `maxHistory` with a marker saying what was
 * left out; a large step is cut short, never dropped.
 */
import type { RunPlugin } from "../engine/index.ts";
import type { EventSink, FlowEvent } from "../runtime/index.ts";
import { type TreeState, treeChanges, treeState } from "./tree.ts";

/** What one step did, as later steps see it. */
export interface HandoffSummary {
	taskId: string;
	index: number;
	task: string;
	outcome: "success" | "failure" | "partial";
	filesCreated: string[];
	filesModified: string[];
	filesDeleted: string[];
	decisions: string[];
	blockers: string[];
	nextSteps: string[];
	metrics: { tokensUsed: number; duration: number; iterations: number; toolsUsed: string[] };
	/** The step's answer, cut to a few thousand characters. */
	contextSnapshot: string;
	error?: string;
}

/** Default number of earlier steps each step is shown. */
export const DEFAULT_MAX_HISTORY = 10;
const SNAPSHOT_CHARS = 4000;

/** The chain's observer: summaries, history and `chain.*` events. */
export function chainHandoffs(options: {
	cwd: string;
	steps: { id: string; task: string }[];
	maxHistory?: number;
}): RunPlugin & { summaries: HandoffSummary[] } {
	const summaries: HandoffSummary[] = [];
	const index = new Map(options.steps.map((s, i) => [s.id, i]));
	let before: TreeState | undefined;
	let started = 0;
	let iterations = 0;
	let tools = new Set<string>();
	const cap = options.maxHistory ?? DEFAULT_MAX_HISTORY;
	const onEvent = (e: FlowEvent, emit: EventSink) => {
		if (e.type === "run_start")
			emit({ type: "chain", event: "chain.started", summary: { steps: options.steps.map((s) => s.id) } });
		else if (e.type === "node_start" && index.has(e.path)) {
			before = treeState(options.cwd);
			started = performance.now();
			iterations = 0;
			tools = new Set();
		} else if (e.type === "turn_start" && e.path === e.path.split("/")[0] && index.has(e.path)) iterations++;
		else if (e.type === "tool_call" && index.has(e.path.split("/")[0])) tools.add(e.tool);
		else if (e.type === "node_end" && index.has(e.path) && !e.replayed) {
			const changes = treeChanges(before ?? new Map(), treeState(options.cwd));
			const handoff = (e.handoff ?? {}) as {
				status?: string;
				decisions?: string[];
				blocked?: string;
				next_task?: string;
			};
			const i = index.get(e.path) ?? 0;
			const summary: HandoffSummary = {
				taskId: e.path,
				index: i,
				task: options.steps[i]?.task ?? e.path,
				outcome: !e.ok ? "failure" : handoff.status === "partial" ? "partial" : "success",
				filesCreated: changes.created,
				filesModified: changes.modified,
				filesDeleted: changes.deleted,
				decisions: handoff.decisions ?? [],
				blockers: handoff.blocked ? [handoff.blocked] : [],
				nextSteps: handoff.next_task ? [handoff.next_task] : [],
				metrics: {
					tokensUsed: e.usage.totalTokens,
					duration: Math.round(performance.now() - started),
					iterations,
					toolsUsed: [...tools].sort(),
				},
				contextSnapshot: cut(typeof e.output === "string" ? e.output : JSON.stringify(e.output ?? "")),
				...(e.error ? { error: e.error } : {}),
			};
			summaries.push(summary);
			emit({
				type: "chain",
				event: e.ok ? "chain.step_completed" : "chain.step_failed",
				step: e.path,
				index: i,
				summary,
				...(e.error ? { error: e.error } : {}),
			});
		} else if (e.type === "run_end")
			emit({ type: "chain", event: e.ok ? "chain.completed" : "chain.failed", ...(e.error ? { error: e.error } : {}) });
	};
	return {
		summaries,
		onEvent,
		// With continue-on-error the steps after a failure still run, but the chain as a whole failed.
		settle(result) {
			const failed = summaries.find((s) => s.outcome === "failure");
			if (!result.ok || !failed) return result;
			return {
				...result,
				ok: false,
				errorKind: "child",
				failedAt: failed.taskId,
				error: `chain: step ${failed.index + 1} \`${failed.taskId}\` failed (${failed.error ?? "failure"}); the later steps ran on`,
			};
		},
		taskAddendum(nodeId) {
			if (!index.has(nodeId) || summaries.length === 0) return undefined;
			const shown = summaries.slice(-cap);
			const left = summaries.length - shown.length;
			const history = shown.map((s) => `- step ${s.index + 1} \`${s.taskId}\`: ${s.outcome}${files(s)}`).join("\n");
			const marker = left
				? `\n(${left} earlier step${left === 1 ? "" : "s"} not shown: the history keeps the last ${cap})`
				: "";
			return `## Chain history\n\n${history}${marker}\n\n## Handoff from \`${shown[shown.length - 1].taskId}\`\n\n${render(shown[shown.length - 1])}`;
		},
	};
}

function files(s: HandoffSummary): string {
	const parts = [
		s.filesCreated.length && `${s.filesCreated.length} created`,
		s.filesModified.length && `${s.filesModified.length} modified`,
		s.filesDeleted.length && `${s.filesDeleted.length} deleted`,
	].filter(Boolean);
	return parts.length ? ` (${parts.join(", ")})` : "";
}

function cut(text: string): string {
	return text.length > SNAPSHOT_CHARS
		? `${text.slice(0, SNAPSHOT_CHARS)}\n[… ${text.length - SNAPSHOT_CHARS} more characters of this step's answer were cut]`
		: text;
}

/** A summary as a step reads it. */
export function render(s: HandoffSummary): string {
	const list = (title: string, items: string[]) =>
		items.length ? `${title}:\n${items.map((x) => `- ${x}`).join("\n")}\n` : "";
	return [
		`Outcome: ${s.outcome}${s.error ? ` (${s.error})` : ""}`,
		list("Files created", s.filesCreated) +
			list("Files modified", s.filesModified) +
			list("Files deleted", s.filesDeleted),
		list("Decisions", s.decisions) + list("Blockers", s.blockers) + list("Next steps", s.nextSteps),
		`Metrics: ${s.metrics.tokensUsed} tokens, ${s.metrics.duration} ms, ${s.metrics.iterations} attempt(s), tools: ${s.metrics.toolsUsed.join(", ") || "none"}`,
		`Answer:\n${s.contextSnapshot}`,
	]
		.filter((p) => p.trim())
		.join("\n\n");
}
