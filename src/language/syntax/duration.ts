/**
 * Durations: `90s`, `10m`, `1h30m`, `2h15m30s`, `500ms`, `1d`. Compound values are ours (combo accepts one
 * unit only, yet prints compound ones); days are in because an `ask` may wait overnight, and `formatDuration`
 * prints what `parseDuration` reads, so a value round-trips. Zero, signs, decimals and spaces are refused:
 * each has one clearer spelling.
 */
import { didYouMean, fault } from "../../faults/index.ts";
import type { Parsed } from "./expression.ts";
import type { Node, Semantics } from "ohm-js";
import { durationGrammar } from "./grammars.ts";
import { rangeIn, type SourceAt } from "./source-at.ts";

/**
 * The longest duration pi-flows accepts anywhere (flows, chains, the CLI, `/run`, the tool): 24 days.
 * Node's timers hold at most 2^31-1 ms (about 24.8 days) and fire at once past it; pi-flows' own timers
 * wait in chunks, but pi's dialogs (an `ask` with a timeout) take one timer we cannot chunk, so every
 * duration stops at a round value below that limit, and a longer one is refused where it is written.
 */
export const MAX_DURATION_MS = 24 * 86_400_000;

/** Milliseconds per unit, largest first: the order a compound duration must follow. */
const UNITS = [
	["d", 86_400_000],
	["h", 3_600_000],
	["m", 60_000],
	["s", 1_000],
	["ms", 1],
] as const;

const UNIT_MS = new Map<string, number>(UNITS);

/** Words people write for a unit, so the refusal can say which unit they meant. */
const UNIT_WORDS: [unit: string, words: string[]][] = [
	["s", ["sec", "secs", "second", "seconds"]],
	["m", ["min", "mins", "minute", "minutes"]],
	["h", ["hr", "hrs", "hour", "hours"]],
	["d", ["day", "days"]],
	["ms", ["msec", "millis"]],
];
const UNIT_ALIASES = new Map(UNIT_WORDS.flatMap(([unit, words]) => words.map((w) => [w, unit] as const)));

let semantics: Semantics | undefined;

function build(): Semantics {
	const s = durationGrammar().createSemantics();
	const part = (unit: string) =>
		function (this: Node, count: Node, _unit: Node): number {
			return Number(count.sourceString) * (UNIT_MS.get(unit) as number);
		};
	s.addOperation<number>("ms", {
		duration(d, h, m, sec, ms, _end) {
			return [d, h, m, sec, ms].reduce((sum, opt) => sum + (opt.children[0]?.ms() ?? 0), 0);
		},
		days: part("d"),
		hours: part("h"),
		minutes: part("m"),
		seconds: part("s"),
		millis: part("ms"),
	});
	return s;
}

/** Milliseconds a well-formed duration spells, however long; NaN when `text` is not one. */
export function durationLength(text: string): number {
	const match = durationGrammar().match(text);
	if (match.failed()) return Number.NaN;
	semantics ??= build();
	return semantics(match).ms() as number;
}

/**
 * Milliseconds of a duration, or undefined when `text` is not one or is longer than {@link MAX_DURATION_MS}.
 * Used by `/run --timeout` and the CLI too.
 */
export function parseDuration(text: string): number | undefined {
	const ms = durationLength(text);
	return Number.isSafeInteger(ms) && ms <= MAX_DURATION_MS ? ms : undefined;
}

interface Problem {
	start: number;
	end: number;
	message: string;
	expected?: string[];
}

/** Names the first thing wrong with a duration, part by part, rather than quoting the grammar. */
function explain(text: string, failure: number, expectedText: string): Problem {
	const whole = (message: string): Problem => ({ start: 0, end: text.length, message });
	if (text === "") return whole("The duration is empty: write one like `90s`, `10m` or `1h30m`.");
	if (/\s/.test(text)) return whole("A duration has no spaces: write `1h30m`.");
	if (text.startsWith("-")) return whole("A duration cannot be negative.");
	if (/\d[.,]\d/.test(text)) return whole("A duration takes whole numbers: write `1h30m` rather than `1.5h`.");
	let previous = -1;
	for (const m of text.matchAll(/(\d+)([A-Za-z]*)/g)) {
		const start = m.index;
		const [all, count, unit] = m;
		const end = start + all.length;
		if (/^0+$/.test(count)) return { start, end, message: `\`${all}\` is zero: leave the part out.` };
		if (count.startsWith("0")) return { start, end, message: `\`${all}\` has a leading zero.` };
		if (unit === "") return { start, end, message: `\`${count}\` needs a unit: ms, s, m, h or d.` };
		const rank = UNITS.findIndex(([u]) => u === unit);
		if (rank < 0) {
			const meant = UNIT_ALIASES.get(unit.toLowerCase());
			const fixed = meant ? `${count}${meant}` : undefined;
			// The suggestion replaces the unit it points at, and is offered only when the duration then reads.
			const whole = fixed && text.slice(0, start) + fixed + text.slice(end);
			const accepted = whole !== undefined && parseDuration(whole) !== undefined;
			const message = `\`${unit}\` is not a unit: the units are ms, s, m, h and d.${accepted ? didYouMean(fixed) : ""}`;
			return { start: start + count.length, end, message, expected: meant && accepted ? [meant] : undefined };
		}
		if (rank <= previous) {
			const message = `\`${all}\` is out of order: units go largest first, each once, as in \`1h30m\`.`;
			return { start, end, message };
		}
		previous = rank;
	}
	return { start: failure, end: text.length, message: `\`${text}\` is not a duration: expected ${expectedText}.` };
}

/**
 * A flag's duration refused in one sentence with the part that is wrong and, where one is near, the
 * duration meant: `--timeout takes a duration like 90s, 10m or 1h30m, not \`10min\`: \`min\` is not a
 * unit… Did you mean \`10m\`?`. Undefined when `text` is a duration.
 */
export function durationFlagError(flag: string, text: string): string | undefined {
	if (parseDuration(text) !== undefined) return undefined;
	const match = durationGrammar().match(text);
	const head = `${flag} takes a duration like 90s, 10m or 1h30m (at most 24d), not \`${text}\``;
	// A duration that reads but is too long is said by the bound in the head; a misreading gets its reason.
	if (!match.failed()) return head;
	const why = explain(text, match.getRightmostFailurePosition(), match.getExpectedText()).message;
	return `${head}: ${why.charAt(0).toLowerCase()}${why.slice(1)}`;
}

/** A duration with its fault (`duration-invalid`), pointing at the part that is wrong. */
export function readDuration(text: string, at: SourceAt): Parsed<number> {
	const value = parseDuration(text);
	if (value !== undefined) return { value, faults: [] };
	const match = durationGrammar().match(text);
	const problem = match.failed()
		? explain(text, match.getRightmostFailurePosition(), match.getExpectedText())
		: {
				start: 0,
				end: text.length,
				message: `\`${text}\` is longer than the longest duration, \`24d\`: timers cannot wait longer.`,
				expected: ["24d"],
			};
	const range = rangeIn(at, problem.start, problem.end);
	const details = { expected: problem.expected };
	return { faults: [fault("duration-invalid", at.file, range, at.path, problem.message, details)] };
}

export { formatDuration } from "../../runtime/index.ts";
