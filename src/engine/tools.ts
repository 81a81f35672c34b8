/**
 * The tools a flow turn answers with. A typed output arrives only through `submit`, validated against the
 * node's type (a wrong value goes back to the model, which may call again); a review arrives only through
 * `verdict`, which applies the ledger's rules. Prose is never parsed for an answer.
 */
import type { ToolSpec } from "../runtime/index.ts";
import {
	matches,
	sampleValue,
	type Type,
	typeToJsonSchema,
	typeToString,
	type Value,
} from "../language/types/index.ts";
import type { HandoffCapture } from "./handoff-tools.ts";
import type { Ledger, VerdictEffect } from "./ledger.ts";

/** What a turn's answer tool captured. */
export interface Captured {
	value?: Value;
	verdict?: { approved: boolean; remarks?: string; effect: VerdictEffect };
	/** Refused calls, for the transcript and for tests. */
	refusals: number;
	/** What `finish` or `checkpoint` left. */
	handoff?: HandoffCapture;
	/** The tools the current turn called, for an agent's `mustCallTool`. */
	calls?: string[];
}

/** The `submit` tool for a typed output; non-object types travel as `{ value }`. */
export function submitTool(type: Type, captured: Captured): ToolSpec {
	const wrapped = type.kind !== "object";
	const schema = typeToJsonSchema(type) as Record<string, unknown>;
	const parameters = wrapped
		? { type: "object", properties: { value: schema }, required: ["value"], additionalProperties: false }
		: schema;
	return {
		name: "submit",
		label: "Submit",
		description: `Submit your answer as a value of this type: ${typeToString(type)}. The call is your answer; text beside it is not read.`,
		parameters,
		// A dry run's answer: a sample of the type with every optional field filled, so every reader is walked.
		sampleArgs: () => {
			const value = sampleValue(type);
			return wrapped ? { value } : (value as Record<string, unknown>);
		},
		async execute(args) {
			const value = (wrapped ? args.value : args) as Value;
			const m = matches(value, type);
			if (!m.ok) {
				captured.refusals++;
				return {
					text: `Refused: at ${m.path || "the top"} expected ${m.expected}. Call submit again with a value of type ${typeToString(type)}.`,
					isError: true,
				};
			}
			captured.value = value;
			return { text: "Accepted.", terminate: true };
		},
	};
}

const VERDICT_PARAMETERS = {
	type: "object",
	properties: {
		approved: { type: "boolean", description: "True when the work is acceptable as it stands." },
		remarks: { type: "string", description: "What is wrong and why, when not approved." },
		resolved: {
			type: "array",
			description: "Open obligations you raised that are now closed, by id.",
			items: {
				type: "object",
				properties: {
					id: { type: "string" },
					how: { type: "string", enum: ["addressed", "withdrawn"] },
					reason: { type: "string" },
				},
				required: ["id", "how"],
			},
		},
		raised: { type: "array", description: "New obligations, one sentence each.", items: { type: "string" } },
	},
	required: ["approved"],
	additionalProperties: false,
};

/** The `verdict` tool of a review node: it records raises and closes on the ledger and ends the turn. */
export function verdictTool(ledger: Ledger, by: string, at: { at: string }, captured: Captured): ToolSpec {
	return {
		name: "verdict",
		label: "Verdict",
		description:
			"Give your verdict on the work: approved or not, remarks, obligations you close (by id) and new ones you raise. The call ends your turn.",
		parameters: VERDICT_PARAMETERS,
		sampleArgs: () => ({ approved: true }),
		async execute(args) {
			const approved = args.approved === true;
			const remarks = typeof args.remarks === "string" ? args.remarks : undefined;
			const resolved = Array.isArray(args.resolved)
				? (args.resolved as { id: string; how: "addressed" | "withdrawn"; reason?: string }[])
				: [];
			const raised = Array.isArray(args.raised)
				? (args.raised as unknown[]).filter((r): r is string => typeof r === "string")
				: [];
			const effect = ledger.apply(by, at.at, { resolved, raised });
			captured.verdict = { approved, ...(remarks ? { remarks } : {}), effect };
			const ignored = effect.ignored.map((i) => `${i.id} (${i.why})`).join(", ");
			return { text: `Recorded.${ignored ? ` Ignored: ${ignored}.` : ""}`, terminate: true };
		},
	};
}

/**
 * The closing part of a typed turn. The type and the rule that text beside the call is not read are in
 * `submit`'s declaration, which every request carries: saying them again here would be paid twice.
 */
export function submitClosing(): string {
	return "Answer by calling `submit`: the call is your answer.";
}

/** The closing part of a review turn: the open obligations by id and how the verdict works. */
export function verdictClosing(ledger: Ledger, by: string): string {
	const open = ledger.openObligations();
	const mine = open.filter((o) => o.raisedBy === by);
	const list = open.length
		? open.map((o) => `- ${o.id}: ${o.text}${o.raisedBy === by ? "" : ` (raised by ${o.raisedBy})`}`).join("\n")
		: "(none)";
	return [
		"## Open obligations",
		"",
		list,
		"",
		`Answer by calling \`verdict\`. Close an obligation you raised by listing its id under \`resolved\`${mine.length ? "" : " (you have none open)"}; an id you leave out stays open. Raise new obligations under \`raised\`. The work counts as approved only if you approve and nothing stays open.`,
	].join("\n");
}
