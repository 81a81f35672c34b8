/**
 * Runs a swarm node: the swarm combinator, its members told the same goal, with a board and (with
 * `claims-from`) claims; `until` reads the swarm's live value and may stop it early.
 */
import { createClaims, swarm } from "../../combinators/index.ts";
import type { SwarmNode } from "../../language/ast.ts";
import { turnTimeout } from "../../language/check/index.ts";
import type { Value } from "../../language/types/index.ts";
import { evaluate } from "../../engine/evaluate.ts";
import { modelKey } from "../../engine/models.ts";
import { diffFor, renderRead, valueAt } from "../../engine/turn.ts";
import { type Frame, frameCwd, lookupIn, type VisitRecord } from "../../engine/frames.ts";
import { emitRequest, stopKind, type World } from "../../engine/world.ts";
import { swarmFacts } from "../../engine/identify.ts";
import { reuseOrRun } from "../../engine/reuse.ts";
import type { ModelRequest, ToolEnd } from "../../runtime/index.ts";
import { noteToolCall } from "../../engine/trees.ts";
import { cwdOf } from "../../identity/index.ts";
import { keepMemberTurns } from "./facts.ts";

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
	const facts = await swarmFacts(world, node, frame, goal, diff);
	const reused = await reuseOrRun(world, node, visit, facts, (e) => ({
		ok: e.ok,
		...(e.output !== undefined ? { output: e.output } : {}),
	}));
	if (reused) return reused.record;
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
			// A member's requests are the swarm visit's, told apart by the member's subagent id (known once spawned).
			const member = { id: "" };
			const agent = request.agent.name;
			const sub = await world.options.spawn({
				...request,
				...(m ? { model: m.spec ?? m.ref } : {}),
				// A member's tool call is the swarm visit's, as an agent visit's is its own: journaled (a writing
				// tool puts the visit in doubt if it is cut), noted for the tree, and told to whoever watches.
				onToolCall: (tool, args, callId) => {
					world.recorder.toolCall(visit, tool);
					noteToolCall(world, visit, tool);
					world.emit({
						type: "tool_call",
						path: visit,
						agent,
						subagent: member.id,
						tool,
						args,
						...(callId ? { callId } : {}),
					});
				},
				...(world.options.requestEvents
					? {
							onRequest: (r: ModelRequest) => emitRequest(world, visit, agent, member.id, r),
							onToolEnd: (e: ToolEnd) =>
								world.emit({ type: "tool_end", path: visit, agent, subagent: member.id, ...e }),
						}
					: {}),
			});
			member.id = sub.id;
			models.set(sub.id, sub.model);
			// Each round's turn is journaled under the member's label, so `pi-flows record` keeps the members'
			// answers; the folder a later round's messages no longer state is the first round's.
			let cwd: string | undefined;
			return {
				...sub,
				ask: async (task, options) => {
					const r = await sub.ask(task, options);
					// A member's turn held for a person (a `/step` pause) is the person's time, not the swarm's.
					if (r.heldMs) world.hold?.(r.heldMs);
					cwd ??= cwdOf(r.messages);
					keepMemberTurns(world, visit, options?.label, r.messages, cwd);
					return r;
				},
			};
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
