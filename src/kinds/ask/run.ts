/**
 * Runs an ask node: a card put to the person through the ask port (`ports/ask.ts`), and with nobody there
 * the unattended rules (`default:`, else "that's enough", else the node fails `nobody`).
 */
import type { AskNode } from "../../language/ast.ts";
import type { Value } from "../../language/types/index.ts";
import type { AskAnswer, AskCard } from "../../engine/ports/index.ts";
import { diffFor, renderRead, valueAt } from "../../engine/turn.ts";
import type { Frame, VisitRecord } from "../../engine/frames.ts";
import { stopKind, type World } from "../../engine/world.ts";
import { askFacts } from "../../engine/identify.ts";
import { reuseOrRun } from "../../engine/reuse.ts";

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
	const reused = await reuseOrRun(world, node, visit, askFacts(world, node, frame, { ...card }), (e) => ({
		ok: e.ok,
		...(e.output !== undefined ? { output: e.output } : {}),
	}));
	if (reused) {
		if (reused.answer) world.recorder.asked(visit, card, reused.answer);
		return reused.record;
	}
	const port = world.options.ask;
	const asked = performance.now();
	const answer: AskAnswer = port?.somebodyThere ? await port.ask(card, signal) : { kind: "nobody" };
	world.recorder.asked(visit, card, answer);
	world.emit({ type: "ask_answered", path: visit, answer: answer.kind, waitedMs: performance.now() - asked });
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
