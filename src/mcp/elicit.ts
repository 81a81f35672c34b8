/**
 * An ask node's card as an MCP elicitation form, and the client's reply read back as the ask port's
 * answer. One field, `answer`: a yes/no card is a boolean, a choice card a string enum (its "that's
 * enough" label one of the values), an open card (`ask-from`) or a plain question a string. A decline or
 * a cancel is nobody answering: the flow's unattended rule decides, and the answer says it was declined.
 *
 *   { question: "Ship it?", confirm: true }  →  { message: "…Ship it?", requestedSchema: { answer: boolean } }
 *   { action: "accept", content: { answer: true } }  →  { kind: "answer", value: true, via: "elicitation" }
 */
import type { AskAnswer, AskCard } from "../engine/index.ts";
import type { ElicitRequestFormParams } from "./sdk.ts";

/** A form elicitation's parameters (`elicitation/create`, or an `input_required` request). */
export type ElicitForm = ElicitRequestFormParams;

/** How much of each read a form shows; the host's dialog is no place for a whole document. */
const READ_CHARS = 1200;

/** The card as a form. */
export function formOf(card: AskCard): ElicitForm {
	const lines = [`${card.header ? `${card.header} · ` : ""}${card.visit}`];
	for (const r of card.reads) lines.push(`## ${r.address}`, clip(r.text));
	lines.push(card.question);
	const labels = card.options?.map((o) => o.label) ?? [];
	if (card.options?.some((o) => o.description))
		for (const o of card.options) lines.push(`- ${o.label}${o.description ? ` — ${o.description}` : ""}`);
	type Field = ElicitForm["requestedSchema"]["properties"][string];
	let answer: Field;
	if (card.confirm) answer = { type: "boolean", title: "Yes" };
	else if (card.options && !card.open)
		answer = { type: "string", title: "Answer", enum: card.enough ? [...labels, card.enough] : labels };
	else if (card.options)
		answer = {
			type: "string",
			title: "Answer",
			description: `One of: ${labels.join(", ")}${card.enough ? `; or "${card.enough}"` : ""}; or your own answer.`,
		};
	else answer = { type: "string", title: "Answer" };
	return {
		mode: "form",
		message: lines.join("\n\n"),
		requestedSchema: { type: "object", properties: { answer }, required: ["answer"] },
	};
}

/** The client's reply to {@link formOf}'s form as the ask port's answer; untrusted, so read, not cast. */
export function answerOf(card: AskCard, reply: unknown): AskAnswer {
	const r = (reply ?? {}) as { action?: unknown; content?: unknown };
	if (r.action !== "accept") return { kind: "nobody", via: "declined" };
	const value = (r.content as { answer?: unknown } | undefined)?.answer;
	if (card.confirm) {
		if (typeof value === "boolean") return { kind: "answer", value, via: "elicitation" };
		if (value === "yes" || value === "no") return { kind: "answer", value: value === "yes", via: "elicitation" };
		return { kind: "nobody", via: "declined" };
	}
	if (typeof value !== "string" || !value.trim()) return { kind: "nobody", via: "declined" };
	const text = value.trim();
	const labels = card.options?.map((o) => o.label);
	if (labels?.includes(text)) return { kind: "answer", value: text, via: "elicitation" };
	if (card.enough && text === card.enough) return { kind: "enough", via: "elicitation" };
	if (labels && !card.open) return { kind: "nobody", via: "declined" };
	return { kind: "answer", value: text, ...(labels ? { custom: true } : {}), via: "elicitation" };
}

function clip(text: string): string {
	return text.length > READ_CHARS ? `${text.slice(0, READ_CHARS - 1)}…` : text;
}
