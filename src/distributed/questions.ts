/**
 * Questions on the DBOS backend. A worker has no person at its terminal; the person who started the run
 * may be following it from theirs (`pi-flows run --backend dbos` at a terminal). So a worker's `ask` node
 * writes its card to `pi_flows.questions` and waits; the following client reads the open questions of its
 * run, asks the person with the terminal asker and writes the answer; the worker's ask returns it.
 *
 * One row per (run, life, path): a visit run again after a takeover finds the question it asked, and an
 * answer already given is returned without asking again. An answer is written once (`answer IS NULL` in
 * the update): whichever side settles first (the person, or the worker giving up because nobody follows
 * any more, or the node's timeout) decides, and the other reads what was decided.
 */
import type { AskAnswer, AskCard, AskPort } from "../engine/index.ts";
import type { RunStore } from "./store.ts";

/** How long a worker waits for a follower who stopped being seen before the unattended rules apply. */
export const FOLLOWER_GONE_MS = 15_000;

/** How often a follower says it is there (well under {@link FOLLOWER_GONE_MS}). */
export const FOLLOWER_BEAT_MS = 1_000;

/** Writes an answer unless one was given already; resolves to the answer that stands. */
export async function settleQuestion(
	store: RunStore,
	runId: string,
	life: number,
	path: string,
	answer: AskAnswer,
): Promise<AskAnswer> {
	await store.query(
		`UPDATE pi_flows.questions SET answer = $4::jsonb, answered_at = now()
			WHERE run_id = $1 AND life = $2 AND path = $3 AND answer IS NULL`,
		[runId, life, path, JSON.stringify(answer)],
	);
	const r = await store.query<{ answer: AskAnswer | null }>(
		"SELECT answer FROM pi_flows.questions WHERE run_id = $1 AND life = $2 AND path = $3",
		[runId, life, path],
	);
	return r.rows[0]?.answer ?? answer;
}

/** Dates the run's follower: a worker's question waits while this is recent. */
export async function markFollowed(store: RunStore, runId: string): Promise<void> {
	await store.query("UPDATE pi_flows.runs SET followed_at = now() WHERE id = $1", [runId]);
}

/** An open question of a run's current life. */
export interface OpenQuestion {
	life: number;
	path: string;
	card: AskCard;
}

/** The questions of the run's current life nobody answered yet, oldest first. */
export async function openQuestions(store: RunStore, runId: string): Promise<OpenQuestion[]> {
	const r = await store.query<{ life: number; path: string; card: AskCard }>(
		`SELECT q.life, q.path, q.card FROM pi_flows.questions q JOIN pi_flows.runs r ON r.id = q.run_id
			WHERE q.run_id = $1 AND q.life = r.life AND q.answer IS NULL ORDER BY q.asked_at, q.path`,
		[runId],
	);
	return r.rows;
}

const sleep = (ms: number, signal?: AbortSignal) =>
	new Promise<void>((resolve) => {
		const t = setTimeout(done, ms);
		signal?.addEventListener("abort", done, { once: true });
		function done() {
			clearTimeout(t);
			signal?.removeEventListener("abort", done);
			resolve();
		}
	});

/**
 * A worker's ask port for a run whose starter follows it with a person there: the question goes to the
 * database and the answer comes back from the follower. Nobody following for {@link FOLLOWER_GONE_MS}
 * (the client left, or never came) settles it as `nobody`, so the node takes its default as in CI; the
 * node's `timeout` settles it as `timeout`; the run's stop returns `stopped` and leaves it open.
 */
export function databaseAsk(
	store: RunStore,
	runId: string,
	life: number,
	options: { pollMs?: number; goneAfterMs?: number } = {},
): AskPort {
	const pollMs = options.pollMs ?? 100;
	const goneAfterMs = options.goneAfterMs ?? FOLLOWER_GONE_MS;
	return {
		somebodyThere: true,
		async ask(card, signal) {
			await store.query(
				`INSERT INTO pi_flows.questions (run_id, life, path, card) VALUES ($1, $2, $3, $4::jsonb)
					ON CONFLICT DO NOTHING`,
				[runId, life, card.visit, JSON.stringify(card)],
			);
			const started = Date.now();
			for (;;) {
				const r = await store.query<{ answer: AskAnswer | null; quiet_ms: number }>(
					`SELECT q.answer,
						(EXTRACT(EPOCH FROM now() - greatest(r.followed_at, q.asked_at)) * 1000)::float8 AS quiet_ms
						FROM pi_flows.questions q JOIN pi_flows.runs r ON r.id = q.run_id
						WHERE q.run_id = $1 AND q.life = $2 AND q.path = $3`,
					[runId, life, card.visit],
				);
				const row = r.rows[0];
				if (row?.answer) return row.answer;
				if (signal?.aborted) return { kind: "stopped" };
				if (card.timeoutMs !== undefined && Date.now() - started >= card.timeoutMs)
					return settleQuestion(store, runId, life, card.visit, { kind: "timeout" });
				if ((row?.quiet_ms ?? 0) > goneAfterMs)
					return settleQuestion(store, runId, life, card.visit, { kind: "nobody" });
				await sleep(pollMs, signal);
			}
		},
	};
}

/**
 * The follower's side: dates the run as followed and puts each open question to the person through
 * `ask`, writing the answer. While the person thinks, the run stays dated as followed. An answer of
 * `stopped` (the person left the prompt) is not written: the worker's wait ends once nobody is seen.
 */
export async function answerQuestions(
	store: RunStore,
	runId: string,
	ask: AskPort,
	signal?: AbortSignal,
): Promise<number> {
	await markFollowed(store, runId);
	let answered = 0;
	for (const q of await openQuestions(store, runId)) {
		if (signal?.aborted) break;
		const beat = setInterval(() => void markFollowed(store, runId).catch(() => {}), FOLLOWER_BEAT_MS);
		let answer: AskAnswer;
		try {
			answer = await ask.ask(q.card, signal);
		} finally {
			clearInterval(beat);
		}
		if (answer.kind === "stopped") break;
		await settleQuestion(store, runId, q.life, q.path, answer);
		answered++;
	}
	return answered;
}
