/**
 * A flow's questions as pi dialogs: options become `select` (with the card's "that's enough" as one more
 * option), yes/no becomes `confirm`, an open question becomes `input`. Over RPC each dialog is an
 * `extension_ui_request` the client answers. Dismissing a dialog is a stop: the person chose not to
 * answer, and a guess would run the flow on an answer nobody gave.
 */
import type { ExtensionUIContext } from "@earendil-works/pi-coding-agent";
import type { AskAnswer, AskCard, AskPort } from "../engine/index.ts";

/** The free-text choice of an open card. */
export const OTHER = "Other…";

/** Lines of each read shown above a question; the rest is summarised so a dialog fits a terminal. */
const READ_LINES = 12;

/** Observes dialogs opening and closing (the live view pauses its Esc while one owns the keyboard). */
export interface DialogHooks {
	opened?(): void;
	closed?(): void;
}

/** Puts questions to the person through `ui`, the same calls in the terminal and over RPC. */
export function dialogAsk(
	ui: Pick<ExtensionUIContext, "select" | "confirm" | "input">,
	hooks: DialogHooks = {},
): AskPort {
	return {
		somebodyThere: true,
		async ask(card, signal) {
			if (signal?.aborted) return { kind: "stopped" };
			const started = performance.now();
			const timedOut = () => card.timeoutMs !== undefined && performance.now() - started >= card.timeoutMs - 50;
			const dismissed = (): AskAnswer =>
				signal?.aborted ? { kind: "stopped" } : timedOut() ? { kind: "timeout" } : { kind: "stopped" };
			const options = {
				...(signal ? { signal } : {}),
				...(card.timeoutMs !== undefined ? { timeout: card.timeoutMs } : {}),
			};
			hooks.opened?.();
			try {
				if (card.confirm) {
					const yes = await ui.confirm(titleOf(card, false), bodyOf(card), options);
					if (!yes && (signal?.aborted || timedOut())) return dismissed();
					return { kind: "answer", value: yes };
				}
				if (card.options) {
					const shown = card.options.map((o) => (o.description ? `${o.label} — ${o.description}` : o.label));
					const extras = [...(card.enough ? [card.enough] : []), ...(card.open ? [OTHER] : [])];
					const picked = await ui.select(titleOf(card, true), [...shown, ...extras], options);
					if (picked === undefined) return dismissed();
					const index = shown.indexOf(picked);
					if (index >= 0) return { kind: "answer", value: card.options[index].label };
					if (card.enough && picked === card.enough) return { kind: "enough" };
					const typed = await ui.input(titleOf(card, true), "your answer", options);
					return typed === undefined || !typed.trim() ? dismissed() : { kind: "answer", value: typed, custom: true };
				}
				const typed = await ui.input(titleOf(card, true), "your answer", options);
				return typed === undefined ? dismissed() : { kind: "answer", value: typed };
			} finally {
				hooks.closed?.();
			}
		},
	};
}

/** The dialog's title: who asks, then (when the dialog has no body) the reads, then the question. */
function titleOf(card: AskCard, withBody: boolean): string {
	const head = `${card.header ? `${card.header} · ` : ""}${card.visit}`;
	return withBody && card.reads.length
		? `${head}\n\n${bodyOf(card)}`
		: withBody
			? `${head}\n\n${card.question}`
			: `${head}: ${card.question}`;
}

function bodyOf(card: AskCard): string {
	const reads = card.reads.map((r) => {
		const lines = r.text.split("\n");
		const cut =
			lines.length > READ_LINES ? [...lines.slice(0, READ_LINES), `… ${lines.length - READ_LINES} more lines`] : lines;
		return `## ${r.address}\n${cut.join("\n")}`;
	});
	return [...reads, card.question].join("\n\n");
}
