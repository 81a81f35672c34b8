/**
 * A visit's conversation as a cassette keeps it: per model request, what the model answered (text,
 * thinking, tool calls, a provider error) and a fingerprint of what it was asked (the system prompt, the
 * tools declared, each message), every part digested on its own so a replay names the part that differs.
 * One function reads both a run folder's transcript and the messages a replayed request carries, so the
 * two sides are fingerprinted alike.
 *
 *   turnsOf([system, user, assistant(call read), toolResult, assistant("done")])
 *     → [{ asked: { system, tools: [read], schemas, messages: ["user 1c…"] }, answer: { calls: [read …] } },
 *        { asked: { …, messages: ["user 1c…", "assistant 9a…", "result read 77…"] }, answer: { say: "done" } }]
 */
import { digestOf } from "./hash.ts";
import { maskShapes, redactJson, redactText } from "../secrets/index.ts";

/** What one request asked, digested part by part. */
export interface Asked {
	/** The system prompt's digest (the run's folder written as `<cwd>`). */
	system: string;
	/** The tools declared to the model, by name, in order. */
	tools: string[];
	/** The digest of the tools' declarations (names, descriptions, schemas). */
	schemas: string;
	/** One entry per message sent: its role (a tool result with its tool's name) and its digest. */
	messages: string[];
}

/** One tool call of an answer. */
export interface AnsweredCall {
	name: string;
	args: unknown;
}

/** What the model answered one request. */
export interface Answer {
	thinking?: string;
	say?: string;
	calls?: AnsweredCall[];
	/** The provider's error, when the request failed. */
	fail?: string;
	/** The answer hit the output limit. */
	length?: true;
}

/** One request of a visit. */
export interface Turn {
	asked: Asked;
	answer: Answer;
}

/** A secret-shaped value found while a turn was read, and where. */
export interface Found {
	/** `turn 2, answer` or `turn 1, a tool result`. */
	where: string;
	kind: string;
}

type Loose = Record<string, unknown>;

/** The folder a session ran in, as pi's system message states it, so it can be written as `<cwd>`. */
export function cwdOf(messages: readonly unknown[]): string | undefined {
	for (const m of messages) {
		const sections = (m as Loose)?.sections as Loose | undefined;
		const cwd = typeof sections?.cwd === "string" ? /<cwd>\s*([^\n<]+?)\s*<\/cwd>/.exec(sections.cwd)?.[1] : undefined;
		if (cwd) return cwd;
	}
	return undefined;
}

/**
 * The text as a record may keep it: known secrets masked (src/secrets), secret-shaped values masked and
 * their kinds told to `found`, and the run's own folder written as `<cwd>` (a replay runs in another).
 */
export function cleanText(text: string, cwd: string | undefined, found?: (kind: string) => void): string {
	const shaped = maskShapes(redactText(text));
	for (const k of shaped.found) found?.(k);
	return cwd ? shaped.text.split(cwd).join("<cwd>") : shaped.text;
}

function cleanDeep(value: unknown, cwd: string | undefined, found?: (kind: string) => void): unknown {
	if (typeof value === "string") return cleanText(value, cwd, found);
	if (Array.isArray(value)) return value.map((v) => cleanDeep(v, cwd, found));
	if (value !== null && typeof value === "object")
		return Object.fromEntries(Object.entries(redactJson(value)).map(([k, v]) => [k, cleanDeep(v, cwd, found)]));
	return value;
}

/** What a message's content says, ids and timings left out (they differ on every run). */
function contentOf(content: unknown, cwd: string | undefined): unknown {
	if (typeof content === "string") return cleanText(content, cwd);
	if (!Array.isArray(content)) return null;
	return content.map((b: Loose) => {
		if (b.type === "text") return { text: cleanText(String(b.text ?? ""), cwd) };
		if (b.type === "thinking") return { thinking: cleanText(String(b.thinking ?? ""), cwd) };
		if (b.type === "toolCall") return { call: b.name, args: cleanDeep(b.arguments ?? {}, cwd) };
		if (b.type === "image") return { image: digestOf(String(b.data ?? "")) };
		return { other: b.type };
	});
}

/** The tools a session declared to the model so far (pi states them on system messages). */
function declared(messages: readonly unknown[]): Loose[] {
	let tools: Loose[] = [];
	for (const m of messages) {
		const x = m as Loose;
		if (x.role !== "system") continue;
		const removed = new Set(
			((x.toolsRemoved as unknown[]) ?? []).map((t) => (typeof t === "string" ? t : (t as Loose).name)),
		);
		tools = tools.filter((t) => !removed.has(t.name));
		for (const t of (x.toolsAdded as Loose[]) ?? []) tools = [...tools.filter((o) => o.name !== t.name), t];
	}
	return tools;
}

/** One message's share of a fingerprint, computed once however many requests carry it. */
type Piece = { system: unknown } | { sent: string };

function pieceOf(m: unknown, cwd: string | undefined): Piece {
	const x = m as Loose;
	if (x.role === "system")
		return { system: { content: contentOf(x.content, cwd), sections: cleanDeep(x.sections ?? null, cwd) } };
	if (x.role === "toolResult")
		return {
			sent: `result ${String(x.toolName)} ${digestOf({ content: contentOf(x.content, cwd), error: x.isError === true })}`,
		};
	return { sent: `${String(x.role)} ${digestOf(contentOf(x.content, cwd))}` };
}

function askedFrom(pieces: readonly Piece[], messages: readonly unknown[]): Asked {
	const system: unknown[] = [];
	const sent: string[] = [];
	for (const p of pieces) {
		if ("system" in p) system.push(p.system);
		else sent.push(p.sent);
	}
	const tools = declared(messages);
	return {
		system: digestOf(system),
		tools: tools.map((t) => String(t.name)),
		schemas: digestOf(tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }))),
		messages: sent,
	};
}

/** The fingerprint of a request carrying `messages` (pi's messages, as a transcript or a request holds them). */
export function askedOf(messages: readonly unknown[], cwd = cwdOf(messages)): Asked {
	return askedFrom(
		messages.map((m) => pieceOf(m, cwd)),
		messages,
	);
}

/** What an assistant message answered, as a cassette keeps it (masked, and the masks told to `found`). */
export function answerOf(message: unknown, cwd: string | undefined, found?: (kind: string) => void): Answer {
	const m = message as Loose;
	const answer: Answer = {};
	if (m.stopReason === "error" || m.stopReason === "aborted") {
		answer.fail = cleanText(String(m.errorMessage ?? m.stopReason), cwd, found);
		return answer;
	}
	const texts: string[] = [];
	const thinking: string[] = [];
	const calls: AnsweredCall[] = [];
	for (const b of (Array.isArray(m.content) ? m.content : []) as Loose[]) {
		if (b.type === "text" && typeof b.text === "string") texts.push(b.text);
		else if (b.type === "thinking" && typeof b.thinking === "string") thinking.push(b.thinking);
		else if (b.type === "toolCall")
			calls.push({ name: String(b.name), args: cleanDeep(b.arguments ?? {}, cwd, found) as Loose });
	}
	if (thinking.length) answer.thinking = cleanText(thinking.join("\n\n"), cwd, found);
	if (texts.length) answer.say = cleanText(texts.join(""), cwd, found);
	if (calls.length) answer.calls = calls;
	if (m.stopReason === "length") answer.length = true;
	if (answer.say === undefined && !calls.length) answer.say = "";
	return answer;
}

/**
 * The requests of one visit's transcript: one per assistant message, asked with every message before it.
 * `found` hears each secret-shaped value masked, in an answer or in a tool result the model was sent;
 * `cwd` is the session's folder when these messages do not state it (a later turn of a kept session).
 */
export function turnsOf(messages: readonly unknown[], found?: (f: Found) => void, cwd = cwdOf(messages)): Turn[] {
	const turns: Turn[] = [];
	// Each message is digested once: request k carries the pieces of every message before it.
	const pieces: Piece[] = [];
	for (let i = 0; i < messages.length; i++) {
		const m = messages[i] as Loose;
		if (i > 0) pieces.push(pieceOf(messages[i - 1], cwd));
		const n = turns.length + 1;
		if (m.role === "toolResult" && found)
			cleanDeep(m.content, cwd, (kind) => found({ where: `turn ${n}, a result of \`${String(m.toolName)}\``, kind }));
		if (m.role !== "assistant") continue;
		turns.push({
			asked: askedFrom(pieces, messages.slice(0, i)),
			answer: answerOf(m, cwd, (kind) => found?.({ where: `turn ${n}, the answer`, kind })),
		});
	}
	return turns;
}
