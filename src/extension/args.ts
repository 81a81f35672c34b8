/**
 * Reads a command line such as `/run --model p/m explore "How are faults reported?" --timeout 10m`. Flags
 * may lead the line or end it; in the middle of the text they stay text, so an input may mention `--model`
 * without becoming one. An input written as one quoted string is the text inside the quotes.
 */
import { nearest } from "../faults/index.ts";
import { durationFlagError, MAX_DURATION_MS, parseDuration } from "../language/syntax/index.ts";

/** What each command accepts; every flag takes one value. */
export const RUN_FLAGS = [
	"--model",
	"--timeout",
	"--budget-tokens",
	"--script",
	"--chain",
	"--retries",
	"--retry-wait",
	"--reuse",
] as const;

/** A flag of {@link RUN_FLAGS}. */
export type RunFlag = (typeof RUN_FLAGS)[number];

/** A command line, read. */
export interface CommandLine {
	/** The first word that is not a flag: a flow or agent name; "" when there is none. */
	name: string;
	/** Everything between the name and the trailing flags, as typed. */
	input: string;
	flags: Partial<Record<RunFlag, string>>;
}

/** Splits a line, or says what is wrong with it in one sentence. */
export function readCommandLine(
	line: string,
	allowed: readonly RunFlag[] = RUN_FLAGS,
): { ok: true; value: CommandLine } | { ok: false; error: string } {
	const words = wordsOf(line);
	const flags: CommandLine["flags"] = {};
	const take = (flag: string, value: string | undefined): string | undefined => {
		if (!(allowed as readonly string[]).includes(flag)) {
			const near = nearest(flag, allowed);
			return `unknown flag \`${flag}\`${near ? `; did you mean \`${near}\`?` : ""} The flags are ${allowed.join(", ")}.`;
		}
		if (value === undefined || value.startsWith("--")) return `\`${flag}\` needs a value`;
		if (flags[flag as RunFlag] !== undefined) return `\`${flag}\` is given twice`;
		flags[flag as RunFlag] = unquote(value);
		return undefined;
	};
	let first = 0;
	while (first < words.length && words[first].text.startsWith("--")) {
		const error = take(words[first].text, words[first + 1]?.text);
		if (error) return { ok: false, error };
		first += 2;
	}
	const nameWord = words[first];
	if (!nameWord) return { ok: true, value: { name: "", input: "", flags } };
	let last = words.length;
	// `--reuse` alone at the very end reuses from the last run (`--reuse last`).
	if (last - 1 > first && words[last - 1].text === "--reuse" && (allowed as readonly string[]).includes("--reuse")) {
		flags["--reuse"] = "last";
		last -= 1;
	}
	// A trailing pair is a flag only when the flag is one we know: `--foo bar` at the end of a question
	// is part of the question.
	while (last - 2 > first && (allowed as readonly string[]).includes(words[last - 2].text)) {
		const error = take(words[last - 2].text, words[last - 1].text);
		if (error) return { ok: false, error };
		last -= 2;
	}
	const inputText = last > first + 1 ? line.slice(words[first + 1].start, words[last - 1].end) : "";
	return { ok: true, value: { name: unquote(nameWord.text), input: unquote(inputText.trim()), flags } };
}

/** `--timeout` as milliseconds, or why not. */
export function readTimeout(text: string | undefined): { ok: true; value?: number } | { ok: false; error: string } {
	if (text === undefined) return { ok: true };
	const ms = /^\d+$/.test(text) ? Number(text) * 1000 : parseDuration(text);
	if (ms === undefined || ms <= 0 || ms > MAX_DURATION_MS)
		return {
			ok: false,
			error:
				durationFlagError("--timeout", text) ??
				`--timeout takes a duration like 90s, 10m or 1h30m (at most 24d), not \`${text}\``,
		};
	return { ok: true, value: ms };
}

/** `--budget-tokens` as a count (`50000`, `50k`, `1.5m`), or why not. */
export function readTokenBudget(text: string | undefined): { ok: true; value?: number } | { ok: false; error: string } {
	if (text === undefined) return { ok: true };
	const match = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(text.trim());
	const scale = match?.[2].toLowerCase() === "k" ? 1_000 : match?.[2].toLowerCase() === "m" ? 1_000_000 : 1;
	const value = match ? Math.round(Number(match[1]) * scale) : Number.NaN;
	if (!Number.isSafeInteger(value) || value < 1)
		return { ok: false, error: `--budget-tokens takes a token count like 50000 or 50k, not \`${text}\`` };
	return { ok: true, value };
}

interface Word {
	text: string;
	start: number;
	end: number;
}

/** Whitespace-separated words; a quoted stretch is one word, quotes kept (they are removed on use). */
function wordsOf(line: string): Word[] {
	const words: Word[] = [];
	const pattern = /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\S+/g;
	for (let m = pattern.exec(line); m; m = pattern.exec(line))
		words.push({ text: m[0], start: m.index, end: m.index + m[0].length });
	return words;
}

function unquote(text: string): string {
	const quoted = /^"((?:[^"\\]|\\.)*)"$|^'((?:[^'\\]|\\.)*)'$/.exec(text);
	if (!quoted) return text;
	return (quoted[1] ?? quoted[2]).replace(/\\(["'\\])/g, "$1");
}
