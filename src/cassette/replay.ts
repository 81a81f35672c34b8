/**
 * Replaying a cassette: its recorded answers become the scripted model's steps (played as written, through
 * pi's real agent loop, so tools really execute), and before each request is answered what the model is
 * asked now is compared with what it was asked when recorded, part by part, so a difference is named by
 * the visit, the turn and the part: `visit answer, turn 1: \`## answer\` changed`.
 *
 *   strict    any difference fails that request, and so the test, naming it
 *   warn      every difference is reported, the recorded answers played on regardless
 *   lockdown  strict, and the process reaches no network while the test runs (fetch and TCP refused)
 *
 * In every mode a request the cassette does not hold (a visit it never recorded, a turn past its last)
 * fails at once: nothing else may answer it.
 */
import net from "node:net";
import { changedParts, digestOf, explainChange, type VisitIdentity } from "../identity/index.ts";
import type { Script, ScriptRequest, ScriptStep } from "../script/index.ts";
import { lineTable, type Range } from "../text/index.ts";
import type { Cassette, CassetteVisit } from "./format.ts";
import { type Asked, askedOf } from "../identity/index.ts";

/** How a replay treats a difference. */
export type ReplayMode = "strict" | "warn" | "lockdown";

/** The modes, for flags and messages. */
export const REPLAY_MODES: readonly ReplayMode[] = ["strict", "warn", "lockdown"];

/** One difference between a replayed request and its recording. */
export interface Difference {
	visit: string;
	/** A swarm's member and round whose request it was (`scout[1]`, round 2). */
	member?: { name: string; round: number };
	/** The request of the visit (of the member's round), from 1; absent for a check visit. */
	turn?: number;
	/** What differs, in words: "`## answer` changed", "the result of `read` changed". */
	part: string;
}

/** A difference as one line. */
export function differenceLine(d: Difference): string {
	const member = d.member ? `, member ${d.member.name}, round ${d.member.round}` : "";
	return `visit ${d.visit}${member}${d.turn !== undefined ? `, turn ${d.turn}` : ""}: ${d.part}`;
}

/** A replay in progress: the script to play, and what it found. */
export interface Player {
	script: Script;
	/** Every difference so far, in the order met. */
	readonly differences: Difference[];
	/** Told each visit's identity as it starts (the run's recorder hook). */
	identity(path: string, identity: VisitIdentity): void;
	/**
	 * A check visit's result from the recorded ones (by visit path, else a hand-written one by script path),
	 * or why the replay refuses it: a check the recording did not run, or one that ran another script.
	 */
	checked(request: { visit?: string; script: string }, recorded: Readonly<Record<string, RecordedCheck>>): CheckAnswer;
}

/** A check's result as a flow test holds it. */
export interface RecordedCheck {
	script?: string;
	passed: boolean;
	report?: string;
}

/** What a replayed check is answered: a result, or the refusal that fails it. */
export type CheckAnswer = { passed: boolean; report: string } | { refused: string };

/** The system digest of a conversation recorded without pi's system message: one that continued. */
const NO_SYSTEM = digestOf([]);

/**
 * Parts a replay does not compare as digests: its scratch folder is no repository. The tree is compared
 * file by file instead, the files the visit read against the project's (`CassetteVisit.tree`).
 */
const NOT_COMPARED = new Set(["tree"]);

/** The identity's parts that reach the model only as the task's words. */
const IN_TASK = (part: string) => part === "section" || part === "closing" || part.startsWith("read:");

/**
 * The player of a cassette in a mode. `project` reads a file of the project the replay stands in (by path
 * from its root; undefined: no such file): a visit's first request compares the files its tools read when
 * recorded (the visit's `tree`) with the project's now, and names each that changed. Without it the tree
 * is not compared.
 */
export function cassettePlayer(
	cassette: Cassette,
	mode: ReplayMode,
	file: string,
	project?: (path: string) => string | undefined,
): Player {
	const differences: Difference[] = [];
	// Each visit's tree is compared once, at whichever of its requests comes first (a swarm's members race).
	const treeSeen = new Set<string>();
	const treeDifferences = (visit: string, recorded: CassetteVisit | undefined): Difference[] => {
		if (!project || !recorded?.tree || treeSeen.has(visit)) return [];
		treeSeen.add(visit);
		return Object.entries(recorded.tree).flatMap(([path, was]) => {
			const now = project(path);
			if (now !== undefined && digestOf(now) === was) return [];
			const part =
				now === undefined
					? `the project's \`${path}\`, which it read, is gone since the recording`
					: `the project's \`${path}\`, which it read, changed since the recording`;
			return [{ visit, part }];
		});
	};
	const identities = new Map<string, VisitIdentity>();
	const turns = new Map<string, ScriptStep[]>();
	// A swarm's members play under their own labels (`survey/scout[1]#2`), as the scripted model names them;
	// each is compared as a visit of its own under the swarm's identity.
	const members = new Map<string, { path: string; name: string; round: number; recorded: CassetteVisit }>();
	for (const [path, v] of cassette.visits) {
		turns.set(path, v.turns.map(stepOf));
		for (const [label, kept] of v.members ?? []) {
			const hash = label.lastIndexOf("#");
			const recorded = { node: v.node, ...(v.identity ? { identity: v.identity } : {}), turns: kept };
			members.set(`${path}/${label}`, {
				path,
				name: label.slice(0, hash),
				round: Number(label.slice(hash + 1)),
				recorded,
			});
			turns.set(`${path}/${label}`, kept.map(stepOf));
		}
	}
	// A visit that continues a shared subagent's conversation (`memory:`) recorded only its own messages:
	// its requests are compared from where its first began, the earlier visits' turns being theirs.
	const offsets = new Map<string, number>();
	const askedNow = (r: ScriptRequest, recorded: CassetteVisit): Asked => {
		const asked = askedOf(r.messages);
		const first = recorded.turns[0]?.asked;
		if (!first || first.system !== NO_SYSTEM) return asked;
		if (!offsets.has(r.visit)) offsets.set(r.visit, Math.max(0, asked.messages.length - first.messages.length));
		return {
			system: NO_SYSTEM,
			tools: [],
			schemas: first.schemas,
			messages: asked.messages.slice(offsets.get(r.visit)),
		};
	};
	const check = (r: ScriptRequest): string | undefined => {
		const member = members.get(r.visit);
		const recorded = member?.recorded ?? cassette.visits.get(r.visit);
		if (!recorded) {
			const swarm = [...cassette.visits].find(([p, v]) => v.members && r.visit.startsWith(`${p}/`));
			if (swarm)
				return `visit ${swarm[0]}, member ${r.visit.slice(swarm[0].length + 1).replace(/#(\d+)$/, ", round $1")} is not in the cassette ${file} (it holds ${[...(swarm[1].members?.keys() ?? [])].join(", ")}); record the run again`;
			return `visit ${r.visit} is not in the cassette ${file} (it holds ${[...cassette.visits.keys()].join(", ") || "no visit"}); record the run again`;
		}
		const turn = recorded.turns[r.index];
		const whose = member ? `visit ${member.path}, member ${member.name}, round ${member.round}` : `visit ${r.visit}`;
		if (!turn)
			return `${whose}, turn ${r.index + 1} is not in the cassette ${file}: it recorded ${recorded.turns.length} turn(s) of this ${member ? "member's round" : "visit"}`;
		const visit = member?.path ?? r.visit;
		const found = [
			...treeDifferences(visit, member ? cassette.visits.get(visit) : recorded),
			...compare(visit, r.index, recorded, identities.get(visit), turn.asked, askedNow(r, recorded)).map((d) =>
				member ? { ...d, member: { name: member.name, round: member.round } } : d,
			),
		];
		differences.push(...found);
		if (found.length && mode !== "warn") return `${mode} replay of ${file}: ${found.map(differenceLine).join("; ")}`;
		return undefined;
	};
	return {
		script: { file, turns, keyRanges: new Map(), contextWindow: 128_000, latencyMs: 0, check },
		differences,
		identity: (path, identity) => identities.set(path, identity),
		checked: (request, recorded) => {
			const own = request.visit !== undefined ? recorded[request.visit] : undefined;
			const given = recorded[request.script];
			const answer = (r: RecordedCheck | undefined) => ({ passed: r?.passed ?? true, report: r?.report ?? "" });
			if (own && (own.script === undefined || own.script === request.script)) return answer(own);
			if (!own && given) return answer(given);
			const part = own
				? `the check ran \`${request.script}\`; the recording ran \`${own.script}\``
				: `the check \`${request.script}\` ran; the recording holds no result for this visit`;
			const d: Difference = { visit: request.visit ?? request.script, part };
			differences.push(d);
			return mode === "warn" ? answer(own) : { refused: `${mode} replay of ${file}: ${differenceLine(d)}` };
		},
	};
}

function stepOf(t: CassetteVisit["turns"][number]): ScriptStep {
	const a = t.answer;
	const step: ScriptStep = { calls: [], literal: true, range: ZERO };
	if (a.fail !== undefined) {
		step.fail = a.fail;
		return step;
	}
	if (a.thinking) step.thinking = a.thinking;
	if (a.say !== undefined) step.say = a.say;
	step.calls = (a.calls ?? []).map((c) => ({ name: c.name, args: (c.args ?? {}) as Record<string, unknown> }));
	if (a.length) step.length = true;
	return step;
}

/** A recorded step was written by no one at any line: faults about it name the cassette, not a position. */
const ZERO: Range = lineTable("").range(0, 0);

/** Every part of one request that differs from its recording, in a person's words. */
export function compare(
	visit: string,
	index: number,
	recorded: CassetteVisit,
	now: VisitIdentity | undefined,
	before: Asked,
	asked: Asked,
): Difference[] {
	const out: string[] = [];
	const turn = index + 1;
	// The identity names what a person edited (a section, an input, an agent's tools, the model); it is said
	// at the visit's first request, and the message it changed is then not said again.
	let explained = false;
	if (index === 0 && now && recorded.identity) {
		const was = {
			v: recorded.identity.v ?? now.v,
			key: recorded.identity.key,
			parts: recorded.identity.parts,
			shown: recorded.identity.shown,
		};
		// The parts the task carries are hashed from what the run had; the cassette keeps the task as sent,
		// masked. A task sent unchanged (an upstream answer masked alike on both sides) outweighs them.
		const i = firstUser(before.messages);
		const sameTask = i >= 0 && before.messages[i] === asked.messages[firstUser(asked.messages)];
		const parts = changedParts(was as VisitIdentity, now).filter(
			(p) => !NOT_COMPARED.has(p) && !(sameTask && IN_TASK(p)),
		);
		if (parts.length) {
			out.push(explainChange(parts, { node: recorded.node, was: was as VisitIdentity, now }));
			explained = true;
		}
	}
	if (before.system !== asked.system && !explained) out.push("the system prompt changed");
	if (before.tools.join(",") !== asked.tools.join(",")) out.push(toolWords(before.tools, asked.tools));
	else if (before.schemas !== asked.schemas && !explained) out.push("the tools' schemas changed");
	const n = Math.max(before.messages.length, asked.messages.length);
	for (let i = 0; i < n; i++) {
		const a = before.messages[i];
		const b = asked.messages[i];
		if (a === b) continue;
		if (a === undefined || b === undefined) {
			out.push(`it was sent ${asked.messages.length} message(s); the recording ${before.messages.length}`);
			break;
		}
		const role = roleOf(a);
		if (role === "user" && explained && i === firstUser(before.messages)) continue;
		out.push(messageWords(role, i, before.messages));
	}
	return out.map((part) => ({ visit, turn, part }));
}

function roleOf(entry: string): string {
	const [role, tool] = entry.split(" ");
	return role === "result" ? `result ${tool}` : (role ?? "");
}

function firstUser(messages: readonly string[]): number {
	return messages.findIndex((m) => m.startsWith("user "));
}

function messageWords(role: string, i: number, messages: readonly string[]): string {
	if (role === "user")
		return i === firstUser(messages) ? "the task changed" : `the message ${i + 1} (the person's) changed`;
	if (role.startsWith("result ")) {
		const tool = role.slice(7);
		const nth = messages.slice(0, i + 1).filter((m) => m.startsWith(`result ${tool} `)).length;
		return `the result of \`${tool}\` (call ${nth} of this visit) changed`;
	}
	if (role === "assistant") return `the answer in message ${i + 1} changed`;
	return `message ${i + 1} changed`;
}

function toolWords(was: readonly string[], now: readonly string[]): string {
	const added = now.filter((t) => !was.includes(t));
	const gone = was.filter((t) => !now.includes(t));
	const words = [...added.map((t) => `+${t}`), ...gone.map((t) => `-${t}`)];
	return `the tools declared changed${words.length ? ` (${words.join(", ")})` : " (their order)"}`;
}

/**
 * Runs `body` with the process cut off from the network: `fetch` and every TCP connection refused with
 * words saying why (a unix socket, which reaches no other machine, is allowed). Restored after, however
 * `body` ends. Lockdown's guarantee: whatever a replay reaches for, it gets no answer from outside.
 */
export async function withoutNetwork<T>(body: () => Promise<T>): Promise<T> {
	const fetch = globalThis.fetch;
	const connect = net.Socket.prototype.connect;
	const refuse = (what: string) => new Error(`lockdown: no network during a cassette's replay (${what})`);
	globalThis.fetch = (async (input: unknown) => {
		throw refuse(`fetch ${String((input as { url?: string })?.url ?? input)}`);
	}) as typeof fetch;
	net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
		// Node's own callers pass their arguments already normalised, as one array.
		const given = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
		const first = given as { path?: string; port?: number; host?: string } | number | string;
		const local = typeof first === "object" && first !== null && typeof first.path === "string";
		const pipe = typeof first === "string" && !/^\d+$/.test(first);
		if (!local && !pipe) {
			const where = typeof first === "object" ? `${first.host ?? "localhost"}:${first.port}` : String(first);
			queueMicrotask(() => this.destroy(refuse(`connect ${where}`)));
			return this;
		}
		return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
	} as typeof connect;
	try {
		return await body();
	} finally {
		globalThis.fetch = fetch;
		net.Socket.prototype.connect = connect;
	}
}
