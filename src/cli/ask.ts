/**
 * Questions at a terminal: the card's reads, its question, numbered options (or yes/no, or free text),
 * answered on stdin. With no terminal there is nobody, and the unattended rules apply.
 */
import { createInterface } from "node:readline/promises";
import type { AskAnswer, AskCard, AskPort } from "../engine/index.ts";

/** A port that asks at the terminal; `nobody` when stdin or stderr is not a TTY. */
export function terminalAsk(
	input: NodeJS.ReadableStream = process.stdin,
	output: NodeJS.WritableStream = process.stderr,
): AskPort {
	const tty = Boolean((input as { isTTY?: boolean }).isTTY && (output as { isTTY?: boolean }).isTTY);
	return {
		somebodyThere: tty,
		async ask(card, signal) {
			if (!tty) return { kind: "nobody" };
			const rl = createInterface({ input, output });
			try {
				return await askOnce(
					card,
					(q) => rl.question(q, { signal: signal ?? new AbortController().signal }),
					(line) => output.write(`${line}\n`),
				);
			} catch {
				// Answered from elsewhere (`pi-flows serve`): the prompt says so before it closes.
				const reason = signal?.reason as Error | undefined;
				if (reason?.name === "AnsweredElsewhere") output.write(`\n${reason.message}\n`);
				// An aborted prompt (a stop, a timeout) is the run's stop, not a crash.
				return signal?.aborted ? { kind: "stopped" } : { kind: "nobody" };
			} finally {
				rl.close();
			}
		},
	};
}

/**
 * The port of a run whose questions are answered from a browser (`--ask-web`): somebody is there, the
 * prompt itself never answers, and the run folder's channel (`src/runs/control.ts`) brings the answer
 * `pi-flows serve` gives; a card's `timeout:` still applies.
 */
export function webAsk(): AskPort {
	return {
		somebodyThere: true,
		ask: (card, signal) =>
			new Promise<AskAnswer>((resolve) => {
				const timer =
					card.timeoutMs !== undefined ? setTimeout(() => resolve({ kind: "timeout" }), card.timeoutMs) : undefined;
				const stop = () => {
					if (timer) clearTimeout(timer);
					resolve({ kind: "stopped" });
				};
				if (signal?.aborted) stop();
				else signal?.addEventListener("abort", stop, { once: true });
			}),
	};
}

/** The port of a command: the browser's with `--ask-web` and no terminal, else the terminal's (raced against the browser's by the run folder). */
export function commandAsk(askWeb: boolean): AskPort {
	const terminal = terminalAsk();
	return askWeb && !terminal.somebodyThere ? webAsk() : terminal;
}

/** One card, asked through `question`; exported for tests. */
export async function askOnce(
	card: AskCard,
	question: (q: string) => Promise<string>,
	say: (line: string) => void,
): Promise<AskAnswer> {
	say(`\n? ${card.header ? `${card.header} · ` : ""}${card.visit}`);
	for (const r of card.reads) say(`## ${r.address}\n${r.text}`);
	say(card.question);
	if (card.confirm) {
		const a = (await question("[y/n] ")).trim().toLowerCase();
		return { kind: "answer", value: a === "y" || a === "yes" };
	}
	if (card.options) {
		for (const [i, o] of card.options.entries())
			say(`  ${i + 1}. ${o.label}${o.description ? ` — ${o.description}` : ""}`);
		if (card.enough) say(`  0. ${card.enough}`);
		for (;;) {
			const a = (await question(card.open ? "number, or type an answer: " : "number: ")).trim();
			if (card.enough && a === "0") return { kind: "enough" };
			const n = Number(a);
			if (Number.isInteger(n) && n >= 1 && n <= card.options.length)
				return { kind: "answer", value: card.options[n - 1].label };
			if (card.open && a) return { kind: "answer", value: a, custom: true };
			say("Please answer with one of the numbers.");
		}
	}
	return { kind: "answer", value: await question("> ") };
}
