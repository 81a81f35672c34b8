/**
 * Flag values, checked in code rather than in the grammar so each refusal names the exact characters at
 * fault (the `:hgih` of a model, the empty entry of `a,,b`) and says what would be accepted.
 */
import { nearest } from "../faults/index.ts";
import { durationLength, MAX_DURATION_MS, parseDuration } from "./duration.ts";
import type { Span } from "./tokens.ts";
import { type ChainModel, THINKING_ALIASES, THINKING_LEVELS, type ThinkingLevel } from "./types.ts";

/** A flag's value as written, and how to find a character of it in the chain text. */
export interface ValueText extends Span {
	text: string;
	/** Offset of `text[0]` in the chain when every character maps one-to-one; else sub-ranges widen to the token. */
	base?: number;
}

/** Why a value was refused, and where in the chain. */
export interface Problem extends Span {
	message: string;
	hint?: string;
	expected?: string[];
}

/** A checked value, or every problem with it. */
export type Checked<T> = { ok: true; value: T } | { ok: false; problems: Problem[] };

const ok = <T>(value: T): Checked<T> => ({ ok: true, value });
const refuse = <T>(problems: Problem[]): Checked<T> => ({ ok: false, problems });

function at(value: ValueText, from: number, to: number): Span {
	return value.base === undefined
		? { start: value.start, end: value.end }
		: { start: value.base + from, end: value.base + to };
}

function problem(value: ValueText, message: string, extra: Omit<Problem, "start" | "end" | "message"> = {}): Problem {
	return { start: value.start, end: value.end, message, ...extra };
}

/**
 * Did-you-mean for short words too: `nearest` allows one edit under five letters, which misses a swapped
 * pair (`hgih`), the commonest typo in short enum values, so a single adjacent swap is also tried.
 */
export function suggest(word: string, candidates: readonly string[]): string | undefined {
	const close = nearest(word, candidates);
	if (close) return close;
	for (let i = 0; i + 1 < word.length; i++) {
		const swapped = word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
		if (swapped !== word && candidates.includes(swapped)) return swapped;
	}
	return undefined;
}

const THINKING_WORDS = [...THINKING_LEVELS, ...Object.keys(THINKING_ALIASES)];
const LEVEL_LIST = THINKING_LEVELS.join(", ");

function levelOf(word: string): ThinkingLevel | undefined {
	return (THINKING_LEVELS as readonly string[]).includes(word) ? (word as ThinkingLevel) : THINKING_ALIASES[word];
}

/** `off` … `xhigh`, or one of the aliases `fast`, `standard`, `deep`. */
export function checkThinking(value: ValueText): Checked<ThinkingLevel> {
	const level = levelOf(value.text);
	if (level) return ok(level);
	const guess = suggest(value.text, THINKING_WORDS);
	const mean = guess ? ` Did you mean \`${guess}\`?` : "";
	return refuse([
		problem(value, `\`${value.text}\` is not a thinking level.${mean}`, {
			hint: `Use one of ${LEVEL_LIST} (or fast, standard, deep).`,
			expected: guess ? [guess] : [...THINKING_LEVELS],
		}),
	]);
}

const PROVIDER = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const MODEL_ID = /^[^\s/:"'][^\s"']*$/;
const MODEL_HINT = "Write a model as pi reads it: a name (sonnet, opus:high) or provider/id[:thinking].";

/**
 * A model as pi reads it: `sonnet`, `opus:high`, `anthropic/claude-sonnet-4-5:high`. The provider is what
 * stands before the first `/`, if any; a `:` suffix that is a thinking level sets the thinking level, and any
 * other suffix stays in the id, as pi keeps it (`openrouter/x:free`). Whether pi knows the model is asked
 * when the run is prepared, through pi's own resolver, not here.
 */
export function checkModel(value: ValueText): Checked<ChainModel> {
	const { text } = value;
	const hint = MODEL_HINT;
	const slash = text.indexOf("/");
	if (slash === 0) return refuse([problem(value, `\`${text}\` names an empty provider.`, { hint })]);
	const provider = slash > 0 ? text.slice(0, slash) : undefined;
	if (provider !== undefined && !PROVIDER.test(provider)) {
		return refuse([{ ...at(value, 0, slash), message: `\`${provider}\` is not a provider name.`, hint }]);
	}
	const idStart = slash + 1;
	let id = text.slice(idStart);
	let thinking: ThinkingLevel | undefined;
	const colon = id.lastIndexOf(":");
	if (colon >= 0) {
		const suffix = id.slice(colon + 1);
		const from = idStart + colon + 1;
		const level = levelOf(suffix);
		const guess = level ? undefined : suggest(suffix, THINKING_WORDS);
		if (level) {
			thinking = level;
			id = id.slice(0, colon);
		} else if (suffix === "" || guess) {
			const what = suffix === "" ? "An empty thinking level." : `\`${suffix}\` is not a thinking level.`;
			return refuse([
				{
					...(suffix === "" ? at(value, from - 1, from) : at(value, from, from + suffix.length)),
					message: `${what}${guess ? ` Did you mean \`${guess}\`?` : ""}`,
					hint: `Use one of ${LEVEL_LIST} after the colon.`,
					expected: guess ? [guess] : [...THINKING_LEVELS],
				},
			]);
		}
	}
	if (id === "") return refuse([problem(value, `\`${text}\` names no model id.`, { hint })]);
	if (!MODEL_ID.test(id) || id.split("/").includes("")) {
		return refuse([{ ...at(value, idStart, idStart + id.length), message: `\`${id}\` is not a model id.`, hint }]);
	}
	const model: ChainModel = provider === undefined ? { id } : { provider, id };
	return ok(thinking ? { ...model, thinking } : model);
}

/** A model as pi reads it back: `provider/id` or the bare name, with its thinking suffix. */
export function modelText(m: ChainModel, withThinking = true): string {
	const provider = m.provider === undefined ? "" : `${m.provider}/`;
	return `${provider}${m.id}${withThinking && m.thinking ? `:${m.thinking}` : ""}`;
}

const SKILL = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/** A comma-separated list of skill names; every entry is checked, so each bad one is its own problem. */
export function checkSkills(value: ValueText): Checked<string[]> {
	const skills: string[] = [];
	const problems: Problem[] = [];
	let from = 0;
	for (const raw of value.text.split(",")) {
		const lead = raw.length - raw.trimStart().length;
		const name = raw.trim();
		const where = at(value, from + lead, from + lead + name.length);
		if (name === "") {
			const comma = Math.min(from, Math.max(0, value.text.length - 1));
			problems.push({ ...at(value, comma, comma + 1), message: "An empty skill name in the list." });
		} else if (!SKILL.test(name)) {
			problems.push({
				...where,
				message: `\`${name}\` is not a skill name.`,
				hint: "Use letters, digits, _, . and -.",
			});
		} else if (skills.includes(name)) {
			problems.push({ ...where, message: `Skill \`${name}\` is listed twice.` });
		} else skills.push(name);
		from += raw.length + 1;
	}
	return problems.length > 0 ? refuse(problems) : ok(skills);
}

/** A whole number of at least `min`, in digits only, so `1e3`, `+2` and `2.0` are refused, not guessed. */
export function checkCount(value: ValueText, min: number, unit: string): Checked<number> {
	const n = /^\d+$/.test(value.text) ? Number(value.text) : Number.NaN;
	if (Number.isSafeInteger(n) && n >= min) return ok(n);
	return refuse([problem(value, `\`${value.text}\` is not a whole number of ${unit} of at least ${min}.`)]);
}

/** Whether `text` reads as a duration (or bare seconds) that only its length keeps out. */
function tooLong(text: string): boolean {
	if (/^\d+$/.test(text)) return Number(text) * 1000 > MAX_DURATION_MS;
	return durationLength(text) > MAX_DURATION_MS;
}

/** `--timeout`: bare seconds (`60`) or a duration (`90s`, `1h30m`), above zero. */
export function checkTimeout(value: ValueText): Checked<number> {
	const ms = /^\d+$/.test(value.text) ? Number(value.text) * 1000 : parseDuration(value.text);
	if (ms !== undefined && Number.isSafeInteger(ms) && ms > 0 && ms <= MAX_DURATION_MS) return ok(ms);
	if (tooLong(value.text)) {
		return refuse([
			problem(value, `\`${value.text}\` is longer than the longest timeout, 24d.`, { expected: ["24d"] }),
		]);
	}
	const hint = "Write seconds (60) or a duration (90s, 10m, 1h30m), at most 24d.";
	return refuse([problem(value, `\`${value.text}\` is not a timeout.`, { hint })]);
}

/** `--backoff`: a duration with units, since a bare number could be seconds or milliseconds. */
export function checkBackoff(value: ValueText): Checked<number> {
	const ms = parseDuration(value.text);
	if (ms !== undefined) return ok(ms);
	if (tooLong(value.text)) {
		return refuse([
			problem(value, `\`${value.text}\` is longer than the longest backoff, 24d.`, { expected: ["24d"] }),
		]);
	}
	const bare = /^\d+$/.test(value.text);
	return refuse([
		problem(value, `\`${value.text}\` is not a duration.`, {
			hint: bare ? `Add a unit: ${value.text}s or ${value.text}ms.` : "Write a duration such as 500ms, 2s or 1m.",
		}),
	]);
}
