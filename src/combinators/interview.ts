/**
 * `interview`: the agent questions the user before it commits to a brief. The interviewer is held for
 * the whole conversation, so it remembers every answer; its questions are read by convention (a
 * `QUESTION:` line), because weak models do not call tools reliably.
 *
 *   const { brief, answers } = await interview({ agent: interviewer, input: request, ask: promptUser, cwd, spawn });
 */
import type { AgentDef } from "../agents/index.ts";
import { createPool } from "../runtime/index.ts";
import type { Result } from "../runtime/index.ts";
import type { WorkflowOptions } from "../runtime/index.ts";
import { readWorkflow, type WorkflowResult } from "./workflow-result.ts";

/** Questions when no bound is given: a person's patience is a discrete, small budget. */
export const DEFAULT_MAX_QUESTIONS = 5;

/** Options of {@link interview}. */
export interface InterviewOptions extends WorkflowOptions {
	/** The interviewer. */
	agent: AgentDef;
	/** The request to turn into a brief. */
	input: string;
	/** Puts a question to the user; undefined means no answer, and the interviewer must write the brief. */
	ask: (question: string) => Promise<string | undefined>;
	/** Questions the interviewer may ask. Default: 5. */
	maxQuestions?: number;
}

/** One question and what the user said (undefined: no answer). */
export interface Answer {
	question: string;
	answer?: string;
}

/** An interview's outcome: it reads as the interviewer's last turn, the brief. */
export type InterviewResult = WorkflowResult & {
	/** The brief the interviewer wrote; empty when its last turn failed. */
	brief: string;
	/** Every question asked, in order, with its answer. */
	answers: Answer[];
};

/** The question in an answer: the text after a `QUESTION:` line (markdown bullets and bold tolerated). */
export function parseQuestion(output: string): string | undefined {
	const match = /^[ \t]*(?:[-*>][ \t]*)?\**[ \t]*question[ \t]*\**[ \t]*:[ \t]*\**[ \t]*(.+)$/im.exec(output);
	const question = match?.[1].replace(/\*+\s*$/, "").trim();
	return question || undefined;
}

function opening(input: string, max: number): string {
	return [
		input,
		"",
		"## How to answer",
		"",
		`Before you write the brief you may ask the user up to ${max} questions, one per answer: write a line \`QUESTION: <your question>\`.`,
		"When you know enough, answer with the brief itself and no QUESTION line.",
	].join("\n");
}

/**
 * Plays the conversation: each answer holding a question is put to the user through `ask`, and the reply
 * is handed back, until the interviewer answers without a question. Past `maxQuestions`, or when the user
 * gives no answer, it is told to write the brief now. `ok` says every turn ran; a failed turn ends it.
 */
export async function interview(options: InterviewOptions): Promise<InterviewResult> {
	const max = options.maxQuestions ?? DEFAULT_MAX_QUESTIONS;
	if (!Number.isInteger(max) || max < 0)
		throw new RangeError(`pi-flows: maxQuestions must be a whole number, not ${max}`);
	const pool = createPool(options);
	const answers: Answer[] = [];
	let last: Result;
	try {
		const interviewer = await pool.hold(options.agent);
		last = await interviewer.ask(opening(options.input, max));
		let finalTurn = false;
		while (last.ok && !finalTurn) {
			const question = parseQuestion(last.output);
			if (question === undefined) break;
			if (answers.length >= max) {
				finalTurn = true;
				last = await interviewer.ask(`No more questions: you have asked ${max}. Write the brief now.`);
				break;
			}
			const reply = await untilAborted(options.ask(question), options.signal);
			answers.push({ question, ...(reply !== undefined ? { answer: reply } : {}) });
			if (reply === undefined) finalTurn = true;
			// An abort while the user was being asked refuses this turn, which ends the interview as aborted.
			last = await interviewer.ask(
				reply === undefined ? "The user gave no answer. Write the brief now with what you have." : `ANSWER: ${reply}`,
			);
		}
	} finally {
		await pool.closeAll();
	}
	return readWorkflow(last, pool.trail, { brief: last.ok ? last.output : "", answers });
}

/** The user's answer, or undefined as soon as the workflow is cancelled: nobody waits on a closed run. */
function untilAborted(
	answer: Promise<string | undefined>,
	signal: AbortSignal | undefined,
): Promise<string | undefined> {
	if (!signal) return answer;
	if (signal.aborted) return Promise.resolve(undefined);
	return new Promise((resolve, reject) => {
		const onAbort = () => resolve(undefined);
		signal.addEventListener("abort", onAbort, { once: true });
		answer.then(
			(value) => {
				signal.removeEventListener("abort", onAbort);
				resolve(value);
			},
			(error: unknown) => {
				signal.removeEventListener("abort", onAbort);
				reject(error);
			},
		);
	});
}
