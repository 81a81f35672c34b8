/**
 * Questions to the person running a flow go through this port: pi's dialogs in the TUI, RPC requests,
 * a prompt in the CLI, scripted answers in tests and dry runs. With nobody there, the unattended rules
 * apply: the card's `default:`, else "that's enough" when it has one, else the node fails `nobody`.
 */
import { addressOf, nodeOf } from "../../runtime/index.ts";

/** What the person is shown. */
export interface AskCard {
	/** The visit that asks (`spec/interview#3/ask_next`). */
	visit: string;
	question: string;
	header?: string;
	/** A choice card's options; an open card (from `ask-from`) also accepts a typed answer. */
	options?: { label: string; description?: string }[];
	open?: boolean;
	confirm?: boolean;
	/** The "that's enough" label. */
	enough?: string;
	/** The reads shown above the question, each under its address. */
	reads: { address: string; text: string }[];
	timeoutMs?: number;
	/** Whether the node has a `default:` (taken when nobody answers). */
	hasDefault?: boolean;
}

/**
 * What came back. `via` says how, where a surface has more than one way (the MCP server: `elicitation`
 * when a client's form answered; `declined`, `no-elicitation` or `unattached` when the unattended rules
 * applied instead); the journal keeps it with the answer, so a run's record tells which happened.
 */
export type AskAnswer =
	| { kind: "answer"; value: string | boolean; custom?: boolean; via?: string }
	| { kind: "enough"; via?: string }
	| { kind: "stopped" }
	| { kind: "timeout" }
	| { kind: "nobody"; via?: string };

/** Puts questions to a person. */
export interface AskPort {
	/** False when nobody is there to answer (print mode, CI): the unattended rules apply without asking. */
	readonly somebodyThere: boolean;
	ask(card: AskCard, signal?: AbortSignal): Promise<AskAnswer>;
}

/** A port that answers from a table keyed by visit path or node id (tests, dry runs). */
export function scriptedAsk(answers: Record<string, AskAnswer | string | boolean>, log?: AskCard[]): AskPort {
	return {
		somebodyThere: true,
		async ask(card) {
			log?.push(card);
			const a = answers[card.visit] ?? answers[addressOf(card.visit)] ?? answers[nodeOf(card.visit)];
			if (a === undefined) return { kind: "nobody" };
			return typeof a === "object" ? a : { kind: "answer", value: a };
		},
	};
}

/** Nobody is there. */
export const NOBODY: AskPort = { somebodyThere: false, ask: async () => ({ kind: "nobody" }) };
