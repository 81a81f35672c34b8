/**
 * Leaf visits besides agents: a check (a project script, a red check is a value), a commit (on the run's
 * own branch), a question (through the ask port, with the unattended rules), a call (another flow run
 * whole in the same world) and a swarm (the swarm combinator, with a board and claims).
 */
import { createClaims, swarm } from "../../combinators/index.ts";
import type { Address, AskNode, CallNode, CheckNode, CommitNode, SwarmNode } from "../ast.ts";
import { DEFAULT_CHECK_TIMEOUT_MS, turnTimeout } from "../check/index.ts";
import type { Value } from "../types/index.ts";
import type { AskAnswer, AskCard } from "./ask.ts";
import { evaluate } from "./evaluate.ts";
import { renderRead, valueAt } from "./turn.ts";
import { type Frame, frameCwd, lookupIn, type VisitRecord } from "./values.ts";
import { innermost, isStop, runSequence } from "./walk.ts";
import { modelKey } from "./models.ts";
import type { World } from "./world.ts";
import { childWorld } from "./child-world.ts";
import { stopKind } from "./agent.ts";

type Out = { record: VisitRecord; failedAt?: string };

/** Runs a check script; passed or red, it is a value. */
export async function runCheck(
	world: World,
	node: CheckNode,
	_visit: string,
	signal: AbortSignal,
	frame?: Frame,
): Promise<VisitRecord> {
	const port = world.options.check;
	const script = node.script?.value ?? "";
	if (!port)
		return { ok: false, error: { kind: "unavailable", message: "no check port: this run cannot run scripts" } };
	const cwd = frame ? frameCwd(frame, world) : world.options.cwd;
	const timeoutMs = node.timeout?.value ?? DEFAULT_CHECK_TIMEOUT_MS;
	const content = world.options.scripts?.get(script);
	const out = await port.run({
		script,
		root: cwd,
		cwd,
		timeoutMs,
		signal,
		...(content !== undefined ? { content } : {}),
	});
	if (out.ok) return { ok: true, output: { passed: out.passed, report: out.report } };
	if (out.kind === "stopped") return { ok: false, error: stopKind(world, signal) };
	return { ok: false, error: { kind: out.kind, message: out.message } };
}

/** Commits the tree on the run's own branch; a clean tree is `committed: false`. */
export async function runCommit(world: World, node: CommitNode, frame: Frame): Promise<VisitRecord> {
	const git = world.options.git;
	if (!git) return { ok: false, error: { kind: "unavailable", message: "no git port: this run cannot commit" } };
	const v = node.message ? valueAt(node.message, frame, world) : { ok: false as const, reason: "no message" };
	const message = v.ok && typeof v.value === "string" ? v.value : "";
	if (!message.trim())
		return {
			ok: false,
			error: {
				kind: "empty-message",
				message: v.ok ? "the commit message is empty" : `the commit message cannot be read: ${v.reason}`,
			},
		};
	const run = runWorld(world);
	const out = await git.commit(frameCwd(frame, world), {
		message,
		slug: world.slug,
		...(run.branch ? { branch: run.branch } : {}),
	});
	// A branch opened by a commit that then failed (a hook) is still the run's: the next commit goes there.
	if (out.branch) run.branch = out.branch;
	if (!out.ok) return { ok: false, error: { kind: out.kind, message: out.message } };
	return { ok: true, output: { committed: out.committed, ...(out.sha ? { sha: out.sha } : {}), branch: out.branch } };
}

/**
 * The world the run was started with. Each visit sees its own view of it (`Object.create`, for its own
 * usage), so run-wide state written on a view would die with the visit: the run's branch is kept on the
 * object that owns `options`, which every view and every callee's world reads through.
 */
function runWorld(world: World): World {
	for (let w: World | null = world; w; w = Object.getPrototypeOf(w) as World | null)
		if (Object.hasOwn(w, "options")) return w;
	return world;
}

/** Asks the person; with nobody there, `default:`, else "enough", else `nobody`. */
export async function runAsk(
	world: World,
	node: AskNode,
	frame: Frame,
	visit: string,
	signal: AbortSignal,
): Promise<VisitRecord> {
	let card: AskCard;
	if (node.questionFrom) {
		const q = valueAt(node.questionFrom, frame, world);
		if (!q.ok || typeof q.value !== "object" || q.value === null || Array.isArray(q.value)) {
			return {
				ok: false,
				error: { kind: "condition", message: `\`ask-from\` cannot be read: ${q.ok ? "not a question" : q.reason}` },
			};
		}
		const question = q.value as {
			header?: string;
			question: string;
			options: { label: string; description?: string }[];
		};
		card = {
			visit,
			question: question.question,
			...(question.header ? { header: question.header } : {}),
			options: question.options,
			open: true,
			reads: [],
		};
	} else {
		card = {
			visit,
			question: node.question?.value ?? "",
			...(node.options
				? {
						options: node.options.map((o) => ({
							label: o.label.value,
							...(o.description ? { description: o.description } : {}),
						})),
					}
				: {}),
			...(node.confirm ? { confirm: true } : {}),
			reads: [],
		};
	}
	if (node.enough) card.enough = node.enough.value;
	const diff = await diffFor(world, node.reads, frame);
	if (node.fallback !== undefined) card.hasDefault = true;
	if (node.timeout) card.timeoutMs = node.timeout.value;
	card.reads = node.reads.map((r) => ({ address: r.text, text: renderRead(r, frame, world, diff) }));
	const port = world.options.ask;
	const answer: AskAnswer = port?.somebodyThere ? await port.ask(card, signal) : { kind: "nobody" };
	world.recorder.asked(visit, card, answer);
	return answerRecord(world, node, card, answer, signal);
}

function answerRecord(world: World, node: AskNode, card: AskCard, answer: AskAnswer, signal: AbortSignal): VisitRecord {
	const fallback = node.fallback?.value as Value | undefined;
	const form = (value: string | boolean, custom = false): Value => {
		if (node.confirm) return { yes: value === true || value === "yes" };
		if (card.options) return { answered: true, answer: String(value), ...(card.open ? { custom } : {}) };
		return String(value);
	};
	switch (answer.kind) {
		case "answer":
			return { ok: true, output: form(answer.value, answer.custom === true) };
		case "enough":
			if (node.enough) return { ok: true, output: { answered: false } };
			return { ok: false, error: { kind: "stopped", message: "the person declined the question" } };
		case "stopped":
			return { ok: false, error: { kind: "stopped", message: "the person stopped the run" } };
		default: {
			if (fallback !== undefined && fallback !== null) return { ok: true, output: form(fallback as string | boolean) };
			if (node.enough) return { ok: true, output: { answered: false } };
			if (signal.aborted) return { ok: false, error: stopKind(world, signal) };
			return answer.kind === "timeout"
				? { ok: false, error: { kind: "timeout", message: "the question timed out with no default" } }
				: {
						ok: false,
						error: { kind: "nobody", message: "nobody is there to answer and the question has no default" },
					};
		}
	}
}

/** Runs a called flow whole; its failure is `child`, naming the inner visit. */
export async function runCall(
	world: World,
	node: CallNode,
	frame: Frame,
	visit: string,
	signal: AbortSignal,
): Promise<Out> {
	const callee = world.flow.callees.get(node.id.value);
	if (!callee || !node.input)
		return { record: { ok: false, error: { kind: "unavailable", message: "the callee was not checked" } } };
	const input = valueAt(node.input, frame, world);
	if (!input.ok)
		return {
			record: { ok: false, error: { kind: "condition", message: `\`input\` cannot be read: ${input.reason}` } },
		};
	const inner = childWorld(world, callee, input.value, `${world.prefix}${node.id.value}/`);
	const root: Frame = {
		records: new Map(),
		prefix: visit,
		cwd: frameCwd(frame, world),
		block: {
			id: "flow",
			kind: "flow",
			memory: { id: "flow", instance: `${visit}/flow`, closers: [], values: new Map() },
		},
	};
	try {
		const end = await runSequence(inner, callee.nodes, root, signal);
		if (!end.ok) {
			const f = end.failure;
			// A stop (a person, a fail-fast cut, a spent budget) keeps its kind through the call.
			const stop = !!f && isStop(f);
			return {
				record: stop
					? (f as VisitRecord)
					: { ok: false, error: { kind: "child", message: innermost(end.failedAt ?? visit, f?.error) } },
				...(end.failedAt ? { failedAt: end.failedAt } : {}),
			};
		}
		return { record: { ok: true, ...(end.last?.output !== undefined ? { output: end.last.output } : {}) } };
	} finally {
		for (const close of root.block?.memory.closers.splice(0) ?? []) await close().catch(() => {});
	}
}

/** A swarm: members told the same goal, a board and (with `claims-from`) claims; `until` may stop it early. */
export async function runSwarm(
	world: World,
	node: SwarmNode,
	frame: Frame,
	visit: string,
	signal: AbortSignal,
): Promise<VisitRecord> {
	const members = [...(world.flow.members.get(node.id.value) ?? [])];
	let claims: ReturnType<typeof createClaims> | undefined;
	if (node.claimsFrom) {
		const keys = valueAt(node.claimsFrom, frame, world);
		if (!keys.ok || !Array.isArray(keys.value))
			return { ok: false, error: { kind: "condition", message: "`claims-from` cannot be read as a list" } };
		claims = createClaims({ keys: keys.value.map(String) });
	}
	const diff = await diffFor(world, node.reads, frame);
	const reads = node.reads.map((r) => `## ${r.text}\n\n${renderRead(r, frame, world, diff)}`).join("\n\n");
	const goal = [world.flow.prompts.get(node.id.value) ?? "", reads].filter(Boolean).join("\n\n");
	const lookupFor = (state: { round: number; posts: readonly { member: string; text: string }[] }) => {
		const inner: Frame = {
			parent: frame,
			records: new Map([[node.id.value, { ok: true, output: swarmValue(false, state.round, state.posts, claims) }]]),
			prefix: frame.prefix,
		};
		return lookupIn(inner, world);
	};
	const until = node.until;
	/** Each member's model by subagent id, for the events that name it. */
	const models = new Map<string, string>();
	const result = await swarm({
		cwd: frameCwd(frame, world),
		// Each member runs on the model resolved for it before the run (the run's, the flow's, its agent's).
		spawn: async (request) => {
			const m = world.options.models.get(modelKey(world.prefix, node.id.value, request.agent.name));
			const sub = await world.options.spawn({ ...request, ...(m ? { model: m.spec ?? m.ref } : {}) });
			models.set(sub.id, sub.model);
			return sub;
		},
		signal,
		timeoutMs: world.options.timeoutMs ?? turnTimeout(node, world.flow).ms,
		path: visit,
		// A member's request sent again after a transport fault is the flow's event, as an agent visit's is.
		onEvent: (e) => {
			if (e.type !== "provider_retry") return;
			const { type: _type, label: _label, ...retry } = e;
			world.emit({ type: "provider_retry", path: visit, model: models.get(e.subagent) ?? "", ...retry });
		},
		members,
		goal,
		board: true,
		rounds: node.rounds?.value ?? 1,
		...(claims ? { claims } : {}),
		...(until
			? {
					until: (state) => {
						const v = evaluate(until.expr, lookupFor(state));
						return v.ok && v.value === true;
					},
				}
			: {}),
	});
	world.spend(result.usage);
	const output = swarmValue(result.converged, result.rounds, result.posts, claims, result.claims);
	// A stopped swarm did not end: it fails where it was stopped, not at the node after it.
	if (signal.aborted) return { ok: false, output, error: stopKind(world, signal) };
	if (!result.ok && result.members.every((m) => m.droppedOut))
		return { ok: false, output, error: { kind: "provider", message: result.error ?? "every member failed" } };
	return { ok: true, output };
}

/** What the tree changed, for a node that reads `diff` (the agent visit's rule, for questions and swarms too). */
async function diffFor(world: World, reads: readonly Address[], frame: Frame): Promise<string | undefined> {
	return reads.some((r) => r.root === "diff") ? world.diff(frameCwd(frame, world)) : undefined;
}

/** The swarm's value: from the final report when it ended, from the live claims while `until` reads it. */
function swarmValue(
	converged: boolean,
	rounds: number,
	posts: readonly { member: string; text: string }[],
	claims?: ReturnType<typeof createClaims>,
	report?: { held: { key: string }[]; released: { key: string }[] },
): Value {
	return {
		converged,
		rounds,
		posts: posts.map((p) => ({ member: p.member, text: p.text })),
		held: report ? report.held.map((h) => h.key) : claims ? [...claims.held().keys()] : [],
		released: report ? report.released.map((r) => r.key) : (claims?.releases().map((r) => r.key) ?? []),
	};
}
