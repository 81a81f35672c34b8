/**
 * The watermark: when a run's context passes the threshold, the agent is told to land, once per run.
 * Pure, so the in-flow runner and the interactive extension decide alike. Input: usage, window,
 * threshold and whether it already fired; output: fire or why not.
 *
 *   decideWatermark({ tokens: 1300, contextWindow: 2000, threshold: 0.6, firedThisRun: false })
 *   → { fire: true, fraction: 0.65 }
 */

/** What the decision needs; `tokens` is pi's context usage, `null` right after a compaction. */
export interface WatermarkInput {
	tokens: number | null | undefined;
	contextWindow: number | undefined;
	/** Fraction in (0, 1]. */
	threshold: number;
	/** The directive was already steered in during this agent run. */
	firedThisRun: boolean;
}

/** Fire, with the fraction that tripped it, or the reason it stays quiet. */
export type WatermarkDecision =
	| { fire: true; fraction: number }
	| { fire: false; reason: "already-fired" | "unknown-usage" | "below"; fraction?: number };

/**
 * Decides at a turn end. Unknown usage (no count yet, no window) never fires: guessing a window would
 * make a small model land on its first turn or a large one never.
 */
export function decideWatermark(input: WatermarkInput): WatermarkDecision {
	if (input.firedThisRun) return { fire: false, reason: "already-fired" };
	const { tokens, contextWindow } = input;
	if (tokens == null || !Number.isFinite(tokens) || !contextWindow || !(contextWindow > 0)) {
		return { fire: false, reason: "unknown-usage" };
	}
	const fraction = tokens / contextWindow;
	return fraction >= input.threshold ? { fire: true, fraction } : { fire: false, reason: "below", fraction };
}

/** What the landing directive may recommend; a headless run cannot reset, so it is told only to finish. */
export interface DirectiveOptions {
	/** A checkpoint would actually reset the context (interactive session, resets left, switch on). */
	canReset: boolean;
	/** The turn has no `finish` (a delegated subagent's answer turn): its answer is the handoff. */
	answerOnly?: boolean;
}

/**
 * The directive steered in at the watermark. It names the steps, not the numbers: told how full its
 * context is, a model tends to hurry and cut corners, so the text asks for an orderly landing instead.
 */
export function landThePlaneDirective(options: DirectiveOptions): string {
	const steps = [
		"Time to hand over. Do not begin anything new from here on.",
		"1. Bring the step you are in to a clean stop: finish the edit you started, or undo it, so the files on disk agree with each other.",
		"2. Make sure every finished piece of work is saved, and check the ones you will list as artifacts.",
	];
	if (options.answerOnly) {
		steps.push(
			"3. Give your answer now, as your last message: what is done, the files you changed, what is left, where to look and how to check it, so whoever reads it can carry on without you.",
			"Do not ask questions.",
		);
		return steps.join("\n");
	}
	steps.push(
		"3. Call `finish`. Use status `done` if the task is complete. Otherwise use `partial`, and write next_task so that an agent who has never seen this conversation can carry on alone: what is done, what is left, where to look, how to check it.",
	);
	if (options.canReset) {
		steps.push(
			"If the task is long and you mean to keep going yourself, call `checkpoint` instead of `finish`: it saves the same document and clears this conversation, and you continue from the document.",
		);
	}
	steps.push("Do not ask questions and do not summarise in chat; the handoff document is the summary.");
	return steps.join("\n");
}
