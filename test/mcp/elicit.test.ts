/**
 * An ask card as an elicitation form and the client's reply read back: yes/no, a choice (with "that's
 * enough"), an open choice, free text; a decline, a cancel and a reply off the form are nobody answering.
 */
import { describe, expect, it } from "vitest";
import type { AskCard } from "../../src/engine/index.ts";
import { answerOf, formOf } from "../../src/mcp/elicit.ts";

const base: AskCard = { visit: "go", question: "Ship it?", reads: [{ address: "plan", text: "the plan" }] };

describe("ask cards as elicitation forms", () => {
	it("a confirm card is a boolean field; the reads are shown above the question", () => {
		const form = formOf({ ...base, confirm: true });
		expect(form.requestedSchema).toEqual({
			type: "object",
			properties: { answer: { type: "boolean", title: "Yes" } },
			required: ["answer"],
		});
		expect(form.message).toMatch(/## plan\n\nthe plan\n\nShip it\?$/);
		expect(answerOf({ ...base, confirm: true }, { action: "accept", content: { answer: false } })).toEqual({
			kind: "answer",
			value: false,
			via: "elicitation",
		});
	});

	it("a choice card is an enum with its 'that's enough' label; picking it is enough", () => {
		const card: AskCard = { ...base, options: [{ label: "a" }, { label: "b" }], enough: "stop here" };
		expect(formOf(card).requestedSchema.properties.answer).toMatchObject({ enum: ["a", "b", "stop here"] });
		expect(answerOf(card, { action: "accept", content: { answer: "b" } })).toMatchObject({
			kind: "answer",
			value: "b",
		});
		expect(answerOf(card, { action: "accept", content: { answer: "stop here" } })).toEqual({
			kind: "enough",
			via: "elicitation",
		});
		// Off the closed list: nobody answered it.
		expect(answerOf(card, { action: "accept", content: { answer: "c" } })).toEqual({ kind: "nobody", via: "declined" });
	});

	it("an open card takes a typed answer as custom", () => {
		const card: AskCard = { ...base, options: [{ label: "a" }], open: true };
		expect(answerOf(card, { action: "accept", content: { answer: "mine" } })).toEqual({
			kind: "answer",
			value: "mine",
			custom: true,
			via: "elicitation",
		});
	});

	it("a decline, a cancel or no reply at all is nobody answering, said as declined", () => {
		for (const reply of [{ action: "decline" }, { action: "cancel" }, undefined, { action: "accept", content: {} }])
			expect(answerOf(base, reply)).toEqual({ kind: "nobody", via: "declined" });
	});
});
