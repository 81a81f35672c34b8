/**
 * `swarm`: several members, one goal, nobody dividing it. Members are told the same goal, handed a board
 * to talk on and claims to take work from, and play rounds; what they divide between them is theirs.
 *
 *   const done = await swarm({ members: [{ agent: member, count: 3 }], goal, claims: createClaims({ keys: files }), board: true, rounds: 2, cwd, spawn });
 *   done.posts; done.claims; done.converged;
 */
import type { AgentDef } from "../agents/index.ts";
import type { Held } from "../runtime/index.ts";
import { createPool } from "../runtime/index.ts";
import type { Result } from "../runtime/index.ts";
import { createTrail } from "../runtime/index.ts";
import { emptyUsage } from "../runtime/index.ts";
import type { WorkflowOptions } from "../runtime/index.ts";
import { readBranches } from "./branches.ts";
import { type Claims, type ClaimsReport, parseClaimLines } from "./claims.ts";
import { memberTask, type Post } from "./swarm-task.ts";
import { failure, readWorkflow, type WorkflowResult } from "./workflow-result.ts";

/** Failed turns in a row after which a member drops out rather than costing every remaining round. */
const DROP_OUT_AFTER = 2;

/** A kind of member and how many of it. */
export interface SwarmMember {
	agent: AgentDef;
	/** Default: 1. */
	count?: number;
}

/** What `until` is shown after each round. */
export interface SwarmState {
	round: number;
	/** This round's answers, one per member that played it. */
	answers: readonly Result[];
	posts: readonly Post[];
	claims?: Claims;
}

/** Options of {@link swarm}. `lifetime` defaults to `"workflow"` here and nowhere else. */
export interface SwarmOptions extends WorkflowOptions {
	members: readonly SwarmMember[];
	goal: string;
	/** Work keys members take and release; see `createClaims`. Default: none. */
	claims?: Claims;
	/** Posts every answer to a board and hands each member what is new. Default: false. */
	board?: boolean;
	/** Rounds at most; one round is one ask per live member. */
	rounds: number;
	/** Stops early when the work is done; `converged` says it fired. */
	until?: (state: SwarmState) => boolean;
}

/** How one member ended. */
export interface MemberReport {
	id: string;
	agent: string;
	/** Its last turn; for a member that dropped out, the turn that failed. */
	answer: Result;
	droppedOut: boolean;
}

/** A swarm's outcome: it reads like a fan-out of the members' last answers. */
export type SwarmResult = WorkflowResult & {
	/** Whether `until` fired. Reaching the round cap is not success. */
	converged: boolean;
	/** Rounds played. */
	rounds: number;
	/** The run's social history, in order (empty without a board). */
	posts: Post[];
	/** What was held at the end, and what was released; absent without claims. */
	claims?: ClaimsReport;
	members: MemberReport[];
};

interface Member {
	held: Held;
	agent: AgentDef;
	failures: number;
	answer?: Result;
	out: boolean;
	seen: number;
	notes: string[];
}

/**
 * Plays up to `rounds` rounds. A member whose turn fails is asked again next round; after two failed
 * turns in a row it drops out, is closed, and its claims are released. `lifetime: "task"` with more than
 * one round is refused outright (a member's id is its name on the board, and it would change every round).
 * `ok` is false when a member's last answer failed.
 */
export async function swarm(options: SwarmOptions): Promise<SwarmResult> {
	const lifetime = options.lifetime ?? "workflow";
	if (options.members.length === 0) throw new RangeError("pi-flows: a swarm needs members");
	if (!Number.isInteger(options.rounds) || options.rounds < 1)
		throw new RangeError(`pi-flows: rounds must be a whole number of at least 1, not ${options.rounds}`);
	const first = options.members[0].agent;
	if (lifetime === "task" && options.rounds > 1) {
		const base = {
			agent: first.name,
			output: "",
			messages: [],
			usage: emptyUsage(),
			model: options.model ?? first.model ?? "",
			ok: false,
		};
		const why = `lifetime "task" with ${options.rounds} rounds is refused: a member's id is its name on the board, and a task-lifetime member gets a new one every round`;
		return readWorkflow(failure(base, why, "schema"), createTrail(), {
			converged: false,
			rounds: 0,
			posts: [],
			members: [],
		});
	}
	const pool = createPool({ ...options, lifetime });
	const { claims, board = false } = options;
	const posts: Post[] = [];
	const members: Member[] = [];
	let converged = false;
	let played = 0;
	let held: ClaimsReport["held"] = [];
	try {
		for (const { agent, count = 1 } of options.members) {
			if (!Number.isInteger(count) || count < 1)
				throw new RangeError(`pi-flows: a member's count must be at least 1, not ${count}`);
			for (let i = 0; i < count; i++) {
				members.push({
					held: await pool.hold(agent, { key: `${agent.name}[${i}]` }),
					agent,
					failures: 0,
					out: false,
					seen: 0,
					notes: [],
				});
			}
		}
		const roster = members.map((m) => m.held.id);
		for (let round = 1; round <= options.rounds && !options.signal?.aborted; round++) {
			const live = members.filter((m) => !m.out);
			if (live.length === 0) break;
			played = round;
			const answers = await Promise.all(
				live.map((m) => {
					const news = posts.slice(m.seen).filter((p) => p.member !== m.held.id);
					const task = memberTask({
						goal: options.goal,
						round,
						rounds: options.rounds,
						self: m.held.id,
						roster,
						board,
						...(claims ? { claims } : {}),
						news,
						notes: m.notes,
					});
					m.seen = posts.length;
					m.notes = [];
					return m.held.ask(task);
				}),
			);
			// Settled in member order, after the round, so who gets a contested claim never depends on timing.
			for (const [i, m] of live.entries()) {
				const answer = answers[i];
				m.answer = answer;
				m.failures = answer.ok ? 0 : m.failures + 1;
				if (answer.ok && board && answer.output.trim())
					posts.push({ round, member: m.held.id, agent: m.agent.name, text: answer.output.trim() });
				if (answer.ok && claims) m.notes = settleClaims(claims, m.held.id, answer.output);
				if (m.failures >= DROP_OUT_AFTER) {
					m.out = true;
					await m.held.close();
					claims?.releaseAll(m.held.id);
				}
			}
			// A spent budget refuses every later turn: another round would only be refused member by member.
			if (answers.some((a) => a.errorKind === "budget")) break;
			if (options.until?.({ round, answers, posts, ...(claims ? { claims } : {}) })) {
				converged = true;
				break;
			}
		}
	} finally {
		held = claims ? [...claims.held()].map(([key, holder]) => ({ key, holder })) : [];
		for (const m of members) if (!m.out) claims?.releaseAll(m.held.id);
		await pool.closeAll();
	}
	const answered = members.filter((m) => m.answer);
	const reading = readBranches(
		answered.map((m) => m.answer as Result),
		first.name,
	);
	return readWorkflow(reading, pool.trail, {
		converged,
		rounds: played,
		posts,
		...(claims ? { claims: { held, released: claims.releases() } } : {}),
		members: answered.map((m) => ({
			id: m.held.id,
			agent: m.agent.name,
			answer: m.answer as Result,
			droppedOut: m.out,
		})),
	});
}

/** Applies a member's claim lines and says what became of each, for its next task. */
function settleClaims(claims: Claims, self: string, output: string): string[] {
	const lines = parseClaimLines(output);
	const notes: string[] = [];
	for (const key of lines.release)
		notes.push(claims.release(key, self) ? `Released ${key}.` : `You did not hold ${key}.`);
	for (const key of lines.take) {
		if (claims.take(key, self)) notes.push(`Claimed ${key}.`);
		else if (!claims.keys.includes(key)) notes.push(`${key} is not a key of this swarm.`);
		else notes.push(`${key} is held by ${claims.held().get(key)}.`);
	}
	return notes;
}
