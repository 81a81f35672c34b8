/**
 * Agent visits: one turn of an agent (or of the agent an enum picked), with its reads, its answer tool,
 * retries with backoff, and shared subagents for `memory:` scopes. A failed attempt's usage counts; a
 * retry after a timeout gets a fresh subagent unless a memory scope keeps it.
 */
import type { AgentDef, Skill } from "../../agents/index.ts";
import { dirname, join } from "node:path";
import { formatDuration } from "../../runtime/index.ts";
import { FAILURE_KIND_TABLE, type FailureKind } from "../../runtime/index.ts";
import type { ModelRequest, Result, ToolEnd } from "../../runtime/index.ts";
import type { AskOptions, FlowEvent, SpawnRequest, Subagent } from "../../runtime/index.ts";
import type { ToolSpec } from "../../runtime/index.ts";
import type { TransportPolicy } from "../../runtime/index.ts";
import { type AgentNode, allNodes } from "../../language/ast.ts";
import type { Value } from "../../language/types/index.ts";
import { DEFAULT_CONTINUATIONS, turnTimeout } from "../../language/check/index.ts";
import {
	DEFAULT_POLICY,
	type HandoffDocument,
	type HandoffPolicy,
	landThePlaneDirective,
} from "../../handoff/index.ts";
import {
	checkpointTool,
	continuationPrompt,
	documentOf,
	finishTool,
	handedOff,
	handoffValue,
	type HandoffCapture,
} from "../../engine/handoff-tools.ts";
import { skippedWhenDry } from "../../engine/dry-skips.ts";
import { recordVisitStart } from "../../engine/start-tree.ts";
import type { Ledger } from "../../engine/ledger.ts";
import { modelKey, type NodeModel } from "../../engine/models.ts";
import { type Captured, submitClosing, submitTool, verdictClosing, verdictTool } from "../../engine/tools.ts";
import { lastRefusal } from "../../engine/refusal.ts";
import { diffFor, renderedReads, taskOf, valueAt } from "../../engine/turn.ts";
import {
	findLedger,
	type Frame,
	frameCwd,
	type MemoryScope,
	memoryScope,
	type VisitRecord,
} from "../../engine/frames.ts";
import { DEFAULT_IDLE_MS, emitRequest, MAX_BACKOFF_MS, stopKind, type World } from "../../engine/world.ts";
import { agentFacts } from "../../engine/identify.ts";
import { noteToolCall } from "../../engine/trees.ts";
import { reuseOrRun } from "../../engine/reuse.ts";
import { replayRecord } from "../../engine/walk.ts";
import type { EndedVisit } from "../../engine/record.ts";

/** The land-the-plane directives of flow turns, written once: with resets left a checkpoint is worth naming. */
const DIRECTIVE = {
	reset: landThePlaneDirective({ canReset: true }),
	land: landThePlaneDirective({ canReset: false }),
};

/** The tools the watermark declares with each directive: `checkpoint` only while a reset can follow it. */
const OFFER = { reset: ["finish", "checkpoint"], land: ["finish"] } as const;

/**
 * A subagent as a visit holds it for its turns: the pi session, and the mutable state its tools write to
 * (the answer, verdict and handoff they captured, the visit whose turn is running). One visit holds it, or a
 * `memory:` scope shares it between visits, whose turns then wait in its queue one after another.
 */
interface HeldSubagent {
	sub: Subagent;
	/** What the answer and handoff tools captured during the current turn. */
	captured: Captured;
	/** The visit the current turn belongs to (the verdict tool and the journal record it). */
	visit: { at: string };
	/** The last turn queued on the subagent (a pi session answers one prompt at a time); none before the first. */
	queue?: Promise<unknown>;
}

/** One visit of an agent node as decided before its first turn: nothing here changes while it runs. */
interface AgentVisit {
	world: World;
	node: AgentNode;
	frame: Frame;
	visit: string;
	signal: AbortSignal;
	agent: AgentDef;
	model?: NodeModel;
	/** The ledger a verdict node judges. */
	ledger?: Ledger;
	/** The task's closing words: how to answer (`submit`, `verdict`), repeated when a retry asks again. */
	closing?: string;
	/** The task as composed from the node's prompt and reads. */
	task: string;
	/** The reads as rendered into the task, each under its address. */
	reads: readonly { address: string; text: string }[];
	/** What the task closes with: the plugins' addenda and the closing, as composed into it. */
	told?: string;
	/** Where a kept subagent lives (a `memory:` scope, or the agent's `lifetime:`); none: one per visit. */
	scope?: MemoryScope;
	/** combo's `lifetime: workflow` (or `session`): kept like `memory:`, but under a share name of its own. */
	lives: boolean;
	/** The name the scope shares the subagent under: the agent's, or `agent@node` for a `lifetime:`. */
	shareName: string;
	/** What shares the visit's subagent, as the identity's facts name it (`memory: …`, `lifetime: …`). */
	shared?: string;
	policy: HandoffPolicy;
	pane: boolean;
	attempts: number;
	timeoutMs: number;
	maxContinuations: number;
	/** The context share at which the watermark asks the turn to land the plane. */
	threshold: number;
}

/** How far a visit has come: the one mutable state its loop carries from turn to turn. */
interface Progress {
	held?: HeldSubagent;
	/** What the visit ends with when nothing more is tried. */
	last: VisitRecord;
	/** The attempt being played, from 1 (a continuation or a reset is not a new attempt). */
	attempt: number;
	continuations: number;
	/** Checkpoints that reset the context, capped by the policy's `maxResets`. */
	resets: number;
	/** What the next turn is asked. */
	prompt: string;
	/** The last handoff document the visit's turns wrote. */
	lastDoc?: HandoffDocument;
}

/**
 * Runs one visit of an agent node: plans it, then plays turns until one ends the visit. A turn may hand
 * off to a fresh context (a checkpoint reset, a partial finish) or fail in a way its kind retries; each
 * step below says which.
 */
export async function runAgent(
	world: World,
	node: AgentNode,
	frame: Frame,
	visit: string,
	signal: AbortSignal,
): Promise<VisitRecord> {
	// Each await costs every visit: the steps before the first turn are awaited only when they have something pending.
	const diff = diffFor(world, node.reads, frame);
	const v = planVisit(world, node, frame, visit, signal, diff && (await diff));
	if ("ok" in v) return v;
	const known = agentFacts(world, node, frame, v);
	const facts = known instanceof Promise ? await known : known;
	if (facts) {
		const asked = reuseOrRun(world, node, visit, facts, world.options.reuse ? rebuildOf(node, frame) : NOT_REUSED);
		const reused = asked && (await asked);
		if (reused) return reused.record;
	}
	const recording = recordVisitStart(
		world,
		frameCwd(frame, world),
		visit,
		node.tools?.map((t) => t.value) ?? v.agent.tools,
	);
	if (recording) await recording;
	const p = startProgress(v);
	try {
		for (;;) {
			if (signal.aborted) return { ok: false, error: stopKind(world, signal) };
			const over = world.budget.exceeded();
			if (over) return { ok: false, error: { kind: "budget", message: over } };
			const s = p.held ?? (await holdSubagent(v, p));
			if (s === "again") continue;
			if (!s) return p.last;
			const result = await playTurn(v, p, s);
			const doc = result.ok ? s.captured.handoff?.doc : undefined;
			if (doc) {
				const handed = await followHandoff(v, p, s, doc);
				if (handed === "again") continue;
				if (handed) return handed;
			}
			p.last = endedRecord(v, p, s, result);
			if (p.last.ok) return p.last;
			const retried = await retryAfter(v, p, s);
			if (retried) return retried;
		}
	} finally {
		if (p.held && !v.scope) await p.held.sub.close();
	}
}

/**
 * How an earlier run's end of the visit becomes its record. Made apart from `runAgent` and only when there is
 * an earlier run: a closure made there would cost every visit its variables on the heap.
 */
function rebuildOf(node: AgentNode, frame: Frame): (ended: EndedVisit) => VisitRecord {
	return (ended) => replayRecord(ended, node, frame);
}

/** Never called: without an earlier run nothing is taken from one. */
const NOT_REUSED = (): VisitRecord => {
	throw new Error("pi-flows: no earlier run to take a visit from");
};

/** The visit's fixed facts: its agent, model, task and bounds; a record when its agent cannot be picked. */
function planVisit(
	world: World,
	node: AgentNode,
	frame: Frame,
	visit: string,
	signal: AbortSignal,
	diff: string | undefined,
): AgentVisit | VisitRecord {
	const agent = pickAgent(world, node, frame);
	if ("error" in agent) return { ok: false, error: { kind: "condition", message: agent.error } };
	const model =
		world.options.models.get(modelKey(world.prefix, node.id.value)) ??
		world.options.models.get(modelKey(world.prefix, node.id.value, agent.name));
	const ledger = node.verdict ? findLedger(frame, node.verdict.value) : undefined;
	const closing = node.output ? submitClosing() : ledger ? verdictClosing(ledger, node.path) : undefined;
	const told = toldOf(world, node, visit, closing);
	const reads = renderedReads(node.reads, frame, world, diff);
	const task = taskOf(world.flow.prompts.get(node.id.value) ?? "", reads, told);
	// combo's `lifetime: workflow` (or `session`): the node keeps its subagent across its visits, as `memory:`
	// would, but its own subagent, so no other node's `submit` type is forced on it.
	const lives = !node.memory && (agent.lifetime === "workflow" || agent.lifetime === "session");
	const scope = node.memory ? memoryScope(frame, node.memory.value) : lives ? lifetimeScope(frame) : undefined;
	// One switch and one cap for every surface: off means no handoff tools and no steer in this turn.
	const policy = world.options.handoff ?? DEFAULT_POLICY;
	const v: AgentVisit = {
		world,
		node,
		frame,
		visit,
		signal,
		agent,
		task,
		reads,
		lives,
		shareName: lives ? `${agent.name}@${node.id.value}` : agent.name,
		policy,
		// A pane follows the visit when the node asks (its `pane:` wins) or its agent does (combo's `openInHerdr`).
		pane: node.pane ? node.pane.value : agent.pane === true,
		attempts: 1 + (node.retry?.value ?? 0),
		timeoutMs: world.options.timeoutMs ?? turnTimeout(node, world.flow).ms,
		maxContinuations:
			node.handoff?.continuations?.value ?? world.flow.handoff?.continuations?.value ?? DEFAULT_CONTINUATIONS,
		threshold: node.handoff?.watermark?.value ?? world.flow.handoff?.watermark?.value ?? policy.watermark,
	};
	// The optional facts set one by one: a conditional spread is a throwaway object, and this runs every visit.
	if (model) v.model = model;
	if (ledger) v.ledger = ledger;
	if (closing) v.closing = closing;
	if (told) v.told = told;
	if (scope) v.scope = scope;
	if (node.memory) v.shared = `memory: ${node.memory.value}`;
	else if (lives) v.shared = `lifetime: ${agent.lifetime}`;
	return v;
}

/** What the task closes with: the plugins' addenda, then the closing; undefined when there is neither. */
function toldOf(world: World, node: AgentNode, visit: string, closing: string | undefined): string | undefined {
	// Collected in one loop: every visit asks, and most runs have no plugin and an untyped answer.
	let told: string | undefined;
	for (const plugin of world.options.plugins ?? []) {
		const addendum = plugin.taskAddendum?.(node.id.value, visit);
		if (addendum) told = told ? `${told}\n\n${addendum}` : addendum;
	}
	if (closing) told = told ? `${told}\n\n${closing}` : closing;
	return told;
}

/** The first attempt; a visit cut mid-turn in an earlier life goes on from the document it had saved. */
function startProgress(v: AgentVisit): Progress {
	const p: Progress = {
		last: { ok: false, error: { kind: "provider", message: "not run" } },
		attempt: 1,
		continuations: 0,
		resets: 0,
		prompt: v.task,
	};
	const saved = v.policy.enabled ? documentOf(v.world.options.replay?.handoff?.(v.visit)) : undefined;
	if (saved && (saved.by === "checkpoint" || saved.status === "partial")) {
		p.lastDoc = saved;
		p.prompt = continuationPrompt(v.task, saved);
	}
	return p;
}

/**
 * The subagent the next turn plays on when the visit holds none yet (`p.held`, which the caller reads
 * first): shared through the scope, or opened, and then held. A subagent that cannot be started is a
 * `provider` failure, retried after a backoff while attempts are left (`"again"`); undefined when none
 * are, and `p.last` says why.
 */
function holdSubagent(v: AgentVisit, p: Progress): Promise<HeldSubagent | "again" | undefined> {
	const scope = v.scope;
	let opening: Promise<HeldSubagent>;
	try {
		opening = scope ? sharedSubagent(scope, v.shareName, () => openSubagent(v, p)) : openSubagent(v, p);
	} catch (error) {
		return cannotStart(v, p, error);
	}
	// Chained rather than awaited: every visit opens one.
	return opening.then(keepHeld.bind(undefined, p), (error: unknown) => cannotStart(v, p, error));
}

/**
 * The opened subagent, kept for the visit's next turns. Bound rather than a closure made per visit: V8 keeps
 * a closure's optimized code only while an instance of it lives, and compiles it again after a full
 * collection, in every run.
 */
function keepHeld(p: Progress, held: HeldSubagent): HeldSubagent {
	p.held = held;
	return held;
}

/** A subagent that could not be started: `"again"` after a backoff while attempts are left. */
async function cannotStart(v: AgentVisit, p: Progress, error: unknown): Promise<"again" | undefined> {
	p.last = {
		ok: false,
		error: {
			kind: "provider",
			message: `could not start the subagent: ${(error as Error).message ?? String(error)}`,
		},
	};
	if (p.attempt < v.attempts && (await backoff(v.world, p.attempt++, v.signal))) return "again";
	return undefined;
}

/** Spawns the visit's subagent with its answer tools, handoff tools, skills, pane and journaling hooks. */
function openSubagent(v: AgentVisit, p: Progress): Promise<HeldSubagent> {
	const { world, node, agent, scope } = v;
	// The session its hooks name, once spawned.
	const opened: { sub?: Subagent } = {};
	// Every field the turns set, set here: a field added later grows the object, on every visit.
	const captured: Captured = {
		value: undefined,
		verdict: undefined,
		refusals: 0,
		handoff: undefined,
		calls: undefined,
	};
	const at = { at: v.visit };
	const tools: ToolSpec[] = [];
	let later: (() => ToolSpec[]) | undefined;
	const typed =
		world.flow.answerTypes.get(node.id.value) ??
		node.output?.value ??
		(scope && !v.lives ? sharedOutput(world, node, agent.name) : undefined);
	if (typed) tools.push(submitTool(typed, captured));
	if (v.ledger) tools.push(verdictTool(v.ledger, node.path, at, captured));
	if (v.policy.enabled) {
		const handoff: HandoffCapture = { doc: undefined, reset: undefined };
		captured.handoff = handoff;
		const handoffTools = () => {
			// The document reaches the journal before the tool returns: a crash mid-turn leaves it on disk.
			const save = async (doc: HandoffDocument) => void world.recorder.handoff?.(at.at, doc as unknown as Value);
			const resetsLeft = () => p.resets < v.policy.maxResets;
			return [finishTool(handoff, { save }), checkpointTool(handoff, v.policy.checkpointReset, { save, resetsLeft })];
		};
		// Every declared tool is paid on every request: a first session gets the handoff tools when its
		// watermark fires (the directive names them), and makes them only then; a continuation, seeded to end
		// with `finish`, has them from the start.
		if (p.lastDoc === undefined) later = handoffTools;
		else tools.push(...handoffTools());
	}
	const skills = world.flow.skills.get(node.id.value);
	const transport = transportOf(world);
	// Built field by field: a literal of a dozen conditional spreads was a few hundred bytes of garbage a
	// turn, and every byte a turn leaves is paid again in the collections of pi's own young objects.
	const request: SpawnRequest = {
		agent,
		cwd: frameCwd(v.frame, world),
		onToolCall: (tool, args, callId) => {
			// Made by the turn's first call: most turns of most visits call none.
			(captured.calls ??= []).push(tool);
			world.recorder.toolCall(at.at, tool);
			noteToolCall(world, at.at, tool);
			if (!world.hears) return;
			const event: FlowEvent = {
				type: "tool_call",
				path: at.at,
				agent: agent.name,
				subagent: opened.sub?.id ?? "",
				tool,
				args,
			};
			if (callId) event.callId = callId;
			world.emit(event);
		},
	};
	// Every visit's messages are events, for whoever hears them: a pane, a watcher's page (`pi-flows serve`).
	if (world.hears) {
		request.onMessage = (text: string) =>
			world.emit({ type: "message", path: at.at, agent: agent.name, subagent: opened.sub?.id ?? "", text });
		request.onDraft = (text: string) =>
			world.emit({
				type: "message",
				path: at.at,
				agent: agent.name,
				subagent: opened.sub?.id ?? "",
				text,
				draft: true,
			});
	}
	if (v.model) request.model = v.model.spec ?? v.model.ref;
	if (node.thinking) request.thinking = node.thinking.value;
	if (node.tools) request.tools = node.tools.map((t) => t.value);
	if (tools.length) request.customTools = tools;
	if (later) request.laterTools = later;
	if (skills?.length) request.appendPrompt = skills.map(skillBlock).join("\n\n");
	if (transport) request.transport = transport;
	if (scope && world.options.sessionsDir)
		request.sessionDir = join(world.options.sessionsDir, safeName(`${scope.instance}--${v.shareName}`));
	// Requests and tool ends, only for an observer that draws them (a recording trace).
	if (world.options.requestEvents) {
		request.onRequest = (r: ModelRequest) => emitRequest(world, at.at, agent.name, opened.sub?.id ?? "", r);
		request.onToolEnd = (e: ToolEnd) =>
			world.emit({ type: "tool_end", path: at.at, agent: agent.name, subagent: opened.sub?.id ?? "", ...e });
	}
	// Chained rather than awaited: every visit opens one, and suspending here would cost it more.
	return world.options.spawn(request).then(heldOf.bind(undefined, opened, captured, at));
}

/** The spawned subagent as the visit holds it, named to its hooks. Bound, not a closure: see {@link keepHeld}. */
function heldOf(opened: { sub?: Subagent }, captured: Captured, at: { at: string }, sub: Subagent): HeldSubagent {
	opened.sub = sub;
	return { sub, captured, visit: at };
}

/**
 * One turn on the held subagent, after the turns queued before it: its captures cleared, its clock started when the
 * turn does (a `/step` pause or a queue before it is drawn as waiting), its usage and transcript kept.
 */
function playTurn(v: AgentVisit, p: Progress, s: HeldSubagent): Promise<Result> {
	if (v.world.hears) v.world.emit({ type: "turn_wait", path: v.visit, agent: v.agent.name, subagent: s.sub.id });
	// Only a subagent a scope shares has turns of other visits to wait for: this visit's own follow each other.
	return v.scope ? serial(s, () => askTurn(v, p, s)) : askTurn(v, p, s);
}

/** The turn itself, once the subagent is free. */
function askTurn(v: AgentVisit, p: Progress, s: HeldSubagent): Promise<Result> {
	const { world, agent, visit } = v;
	s.captured.value = undefined;
	s.captured.verdict = undefined;
	s.captured.calls = undefined;
	// The tools hold this object: clear it rather than replace it.
	if (s.captured.handoff) {
		s.captured.handoff.doc = undefined;
		s.captured.handoff.reset = undefined;
	}
	s.visit.at = visit;
	const turn = new AskedTurn(v, s);
	// Set field by field, like the spawn request: every turn builds these, and a conditional spread is garbage.
	const options: AskOptions = {
		label: visit,
		signal: v.signal,
		timeoutMs: v.timeoutMs,
		idleMs: world.options.idleTimeoutMs ?? DEFAULT_IDLE_MS,
		onStart: turn.start.bind(turn),
	};
	if (world.hears)
		options.onRetry = (r) =>
			world.emit({
				type: "provider_retry",
				path: visit,
				agent: agent.name,
				subagent: s.sub.id,
				model: s.sub.model,
				...r,
			});
	if (!v.node.output && !v.ledger) options.answer = "text";
	const capture = s.captured.handoff;
	if (capture)
		options.watermark = {
			threshold: v.threshold,
			directive: p.resets < v.policy.maxResets ? DIRECTIVE.reset : DIRECTIVE.land,
			offer: p.resets < v.policy.maxResets ? OFFER.reset : OFFER.land,
			muted: () => handedOff(capture),
		};
	// Chained rather than awaited, like the spawn: an async step here costs every turn more.
	return s.sub.ask(p.prompt, options).then(turn.ended.bind(turn));
}

/**
 * A turn being asked: its start, heard once, and its end, spent and journaled. A class whose methods are
 * bound as the turn's callbacks rather than closures made per turn: V8 keeps a closure's optimized code only
 * while an instance of it lives, so closures made for each turn were compiled again after every full
 * collection, in every run.
 */
class AskedTurn {
	readonly v: AgentVisit;
	readonly s: HeldSubagent;
	started = false;
	constructor(v: AgentVisit, s: HeldSubagent) {
		this.v = v;
		this.s = s;
	}

	start(): undefined {
		if (this.started) return undefined;
		this.started = true;
		const { world, visit, agent } = this.v;
		if (!world.hears) return undefined;
		const event: FlowEvent = {
			type: "turn_start",
			path: visit,
			agent: agent.name,
			model: this.s.sub.model,
			subagent: this.s.sub.id,
		};
		if (this.v.pane) event.pane = agent.color ? { color: agent.color } : {};
		world.emit(event);
		return undefined;
	}

	ended(r: Result): Result {
		const { world, visit, agent } = this.v;
		const sub = this.s.sub;
		if (!this.started && r.errorKind !== "budget") this.start();
		world.spend(r.usage);
		if (r.heldMs) world.hold?.(r.heldMs);
		world.recorder.transcript(visit, sub.id, r.messages);
		if (world.hears && this.started)
			world.emit({
				type: "turn_end",
				path: visit,
				agent: agent.name,
				model: sub.model,
				subagent: sub.id,
				ok: r.ok,
				usage: r.usage,
			});
		else if (world.hears)
			world.emit({
				type: "turn_refused",
				path: visit,
				agent: agent.name,
				subagent: sub.id,
				reason: r.error ?? "the run's budget is spent",
			});
		return r;
	}
}

/**
 * What the handoff document a turn that ended well wrote decides: go on in a fresh context (`"again"`: a
 * checkpoint with a reset, or a partial finish with continuations left), end the visit (blocked, or still
 * partial at the cap), or nothing (a `finish` that is done: the turn's answer decides).
 */
async function followHandoff(
	v: AgentVisit,
	p: Progress,
	s: HeldSubagent,
	doc: HandoffDocument,
): Promise<"again" | VisitRecord | undefined> {
	p.lastDoc = doc;
	const handoff = handoffValue(doc);
	if (doc.by === "checkpoint" && s.captured.handoff?.reset !== "none") {
		// A checkpoint with a reset: the node goes on from the document in a fresh context, at no model cost.
		// The checkpoint tool stops resetting once the cap is reached, so this stays within HANDOFF_MAX_RESETS.
		p.resets++;
		await dropSubagent(v, p, s);
		p.prompt = continuationPrompt(v.task, doc);
		return "again";
	}
	if (doc.by === "finish" && doc.status === "blocked")
		return { ok: false, handoff, error: { kind: "blocked", message: doc.blocked ?? doc.summary } };
	if (doc.by === "finish" && doc.status === "partial") {
		if (p.continuations >= v.maxContinuations) {
			return {
				ok: false,
				handoff,
				error: {
					kind: "unfinished",
					message: `still partial after ${p.continuations} continuation(s): ${doc.next_task ?? doc.summary}`,
				},
			};
		}
		p.continuations++;
		await dropSubagent(v, p, s);
		p.prompt = continuationPrompt(v.task, doc);
		return "again";
	}
	return undefined;
}

/** The turn's answer as the visit's record, with the last handoff document it wrote. */
function endedRecord(v: AgentVisit, p: Progress, s: HeldSubagent, result: Result): VisitRecord {
	const { world, node, ledger, signal, timeoutMs } = v;
	const last = mustHaveCalled(
		v.agent,
		recordOf(world, node, result, s.captured, ledger, signal, timeoutMs),
		s.captured.calls ?? [],
		(rule) => skippedWhenDry(s.sub, `${v.visit}: ${rule}`),
	);
	if (p.lastDoc) last.handoff = handoffValue(p.lastDoc);
	if (last.ok && p.lastDoc && !node.output && !ledger && !result.output.trim()) last.output = p.lastDoc.summary;
	return last;
}

/**
 * After a failed attempt: undefined to try again (its kind is retried, attempts are left, the backoff
 * was not cut), else the record the visit ends with. A kind that wants a fresh subagent gets one unless a
 * scope keeps it; a retry on the same subagent is told what failed.
 */
async function retryAfter(v: AgentVisit, p: Progress, s: HeldSubagent): Promise<VisitRecord | undefined> {
	const error = p.last.error;
	if (!error || !FAILURE_KIND_TABLE[error.kind].retry) return p.last;
	if (p.attempt >= v.attempts) return p.last;
	if (FAILURE_KIND_TABLE[error.kind].freshSubagent && !v.scope) await dropSubagent(v, p, s);
	p.prompt = p.held
		? `Your last answer failed (${error.kind}: ${error.message}). Do the same task again.\n\n${v.closing ?? ""}`.trimEnd()
		: v.task;
	if (!(await backoff(v.world, p.attempt++, v.signal))) return { ok: false, error: stopKind(v.world, v.signal) };
	return undefined;
}

/** A fresh session for the node's task: the old one's context is dropped, the document carries on. */
async function dropSubagent(v: AgentVisit, p: Progress, s: HeldSubagent): Promise<void> {
	if (v.scope) v.scope.values.delete(shareKey(v.shareName));
	await s.sub.close();
	p.held = undefined;
}

/** pi-flows' own answer tools, which do not count as the tool use `mustCallTool` asks for. */
const ANSWER_TOOLS = new Set(["submit", "verdict", "finish", "checkpoint"]);

/**
 * combo's `mustCallTool`: a turn that answers without the tool use its agent requires (any tool, or the one
 * named) is a bad answer, retried like a missing `submit`: an auditor that read nothing has audited nothing.
 */
function mustHaveCalled(
	agent: AgentDef,
	record: VisitRecord,
	calls: readonly string[],
	dry: (rule: string) => boolean,
): VisitRecord {
	if (!record.ok || agent.mustCallTool === undefined) return record;
	const used = calls.filter((c) => !ANSWER_TOOLS.has(c));
	const want = agent.mustCallTool;
	if (want === true ? used.length > 0 : used.includes(want)) return record;
	const what = want === true ? "a tool" : `\`${want}\``;
	if (dry(`\`${agent.name}\` must call ${what} (mustCallTool): only a model's turn can`)) return record;
	return {
		ok: false,
		error: {
			kind: "schema",
			message: `the agent \`${agent.name}\` must call ${what} (mustCallTool) and this turn called ${used.length ? used.join(", ") : "none"}`,
		},
	};
}

/**
 * The scope a lifetime keeps a subagent in: the innermost map item or parallel branch (each branch its own
 * subagent, as combo has it, so a held subagent never crosses branches or copies of the tree), else the flow.
 */
function lifetimeScope(frame: Frame): MemoryScope | undefined {
	for (let f: Frame | undefined = frame; f; f = f.parent)
		if (f.block && (f.block.kind === "map" || f.block.kind === "parallel")) return f.block.memory;
	return memoryScope(frame, "flow");
}

function recordOf(
	world: World,
	node: AgentNode,
	r: Result,
	captured: Captured,
	ledger: Ledger | undefined,
	signal: AbortSignal,
	timeoutMs: number,
): VisitRecord {
	if (!r.ok) {
		if (r.errorKind === "aborted" && signal.aborted) return { ok: false, error: stopKind(world, signal) };
		const kind: FailureKind = r.errorKind === "aborted" ? stopKind(world, signal).kind : (r.errorKind ?? "provider");
		const message = kind === "timeout" ? `timed out after ${formatDuration(timeoutMs)}` : (r.error ?? "failed");
		// The refusal is the cause; what ended the turn afterwards (no steps left, a timeout) comes second.
		const refused = lastRefusal(r.messages);
		return { ok: false, error: { kind, message: refused ? `${refused}; then ${message}` : message } };
	}
	if (node.output) {
		const refused = lastRefusal(r.messages);
		if (captured.value === undefined)
			return {
				ok: false,
				error: {
					kind: "schema",
					message: `the turn ended with no accepted \`submit\` call${refused ? `: ${refused}` : ""}`,
				},
			};
		return { ok: true, output: captured.value };
	}
	if (ledger) {
		const refused = lastRefusal(r.messages);
		if (!captured.verdict)
			return {
				ok: false,
				error: { kind: "schema", message: `the turn ended with no \`verdict\` call${refused ? `: ${refused}` : ""}` },
			};
		const open = ledger.openObligations().length;
		const approved = captured.verdict.approved && open === 0;
		return {
			ok: true,
			output: { approved, ...(captured.verdict.remarks ? { remarks: captured.verdict.remarks } : {}) },
			verdict: { ledger: node.verdict?.value ?? "", effect: captured.verdict.effect },
		};
	}
	return { ok: true, output: r.output };
}

/** The flow's `transport:` as a policy override, or undefined when it has none. */
function transportOf(world: World): Partial<TransportPolicy> | undefined {
	const t = world.flow.transport;
	if (!t) return undefined;
	return {
		...(t.attempts ? { attempts: t.attempts.value } : {}),
		...(t.wait ? { totalWaitMs: t.wait.value } : {}),
		...(t.stall ? { stallMs: t.stall.value } : {}),
		...(t.adaptive ? { adaptive: t.adaptive.value } : {}),
	};
}

/** A file name for a scope instance (`deliver#1/work[2]/pair--coder` → `deliver-1_work-2-_pair--coder`). */
function safeName(text: string): string {
	return text.replace(/\//g, "_").replace(/[^A-Za-z0-9_.-]/g, "-");
}

/** A shared subagent's `submit` is fixed at spawn: it takes the type any node sharing it declares. */
function sharedOutput(world: World, node: AgentNode, agent: string) {
	for (const n of allNodes(world.flow.nodes)) {
		if (
			n.kind === "agent" &&
			n.memory?.value === node.memory?.value &&
			n.output &&
			(n.agent?.value === agent || n.among?.some((a) => a.value === agent))
		)
			return n.output.value;
	}
	return undefined;
}

function pickAgent(world: World, node: AgentNode, frame: Frame): AgentDef | { error: string } {
	const literal = world.flow.agents.get(node.id.value);
	if (literal) return literal;
	if (!node.agentFrom) return { error: "no agent" };
	const v = valueAt(node.agentFrom, frame, world);
	if (!v.ok) return { error: `\`agent-from: ${node.agentFrom.text}\` cannot be read: ${v.reason}` };
	const agent = world.flow.amongAgents.get(node.id.value)?.get(String(v.value));
	return agent ?? { error: `\`${String(v.value)}\` is not among the agents this node may run` };
}

/** Where a scope keeps the subagent shared under `name` (the same key drops it for a fresh one). */
function shareKey(name: string): string {
	return `subagent:${name}`;
}

/** The subagent a scope shares under `name`, opened by the first visit that asks; the scope closes it. */
async function sharedSubagent(
	scope: MemoryScope,
	name: string,
	open: () => Promise<HeldSubagent>,
): Promise<HeldSubagent> {
	const key = shareKey(name);
	let held = scope.values.get(key) as Promise<HeldSubagent> | undefined;
	if (!held) {
		held = open();
		scope.values.set(key, held);
		scope.closers.push(async () => (await held)?.sub.close());
	}
	return held;
}

/** Turns of one shared subagent run one after another: a pi session answers one prompt at a time. */
function serial<T>(held: HeldSubagent, fn: () => Promise<T>): Promise<T> {
	const run = held.queue ? held.queue.then(fn, fn) : fn();
	held.queue = run.then(
		() => {},
		() => {},
	);
	return run;
}

async function backoff(world: World, attempt: number, signal: AbortSignal): Promise<boolean> {
	const ms = Math.min(MAX_BACKOFF_MS, (world.options.retryBackoffMs ?? 1000) * 2 ** (attempt - 1));
	if (ms <= 0) return !signal.aborted;
	return new Promise((resolve) => {
		if (signal.aborted) return resolve(false);
		const t = setTimeout(() => {
			signal.removeEventListener("abort", onAbort);
			resolve(true);
		}, ms);
		const onAbort = () => {
			clearTimeout(t);
			resolve(false);
		};
		signal.addEventListener("abort", onAbort, { once: true });
	});
}

/**
 * A node's skill, given whole, the way pi's `/skill:<name>` gives one: the SKILL.md text, with where it
 * lives, so the files it refers to resolve (the model opens them with `read`).
 */
function skillBlock(k: Skill): string {
	return `<skill name="${k.name}" location="${k.file}">\nReferences are relative to ${dirname(k.file)}.\n\n${k.text}\n</skill>`;
}
