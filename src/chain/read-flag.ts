/**
 * One flag and its value. pi-crew read flags with a regex and dropped any value it disliked; here every
 * flag is either applied or refused with a fault, and the value is checked where it stands.
 */
import { brokenToken } from "./refs.ts";
import { CHAIN_FLAGS, type FlagPlace, flagAt, flagNames, setsStep } from "./flags.ts";
import { firstHere, quote, report, type FlagFirstGiven, type Sink, type Source } from "./report.ts";
import type { Token } from "./tokens.ts";
import { suggest, type ValueText } from "./values.ts";

/** Where a flag's value lands, and the flags already given there (a step's own, or the chain's). */
export interface FlagTarget {
	place: FlagPlace;
	/** The step's fields; unused among the chain-wide flags. */
	fields: Record<string, unknown>;
	/** Step flags already given on this step. */
	seen: Map<string, FlagFirstGiven>;
	/** Path of the step, or of the chain for chain-wide flags. */
	path: string;
}

const SWITCH_VALUES = new Set(["true", "false"]);

function valueText(token: Token): ValueText {
	if (token.kind === "quoted") {
		return { start: token.start, end: token.end, text: token.text, ...(token.exact ? { base: token.start + 1 } : {}) };
	}
	return { start: token.start, end: token.end, text: token.source, base: token.start };
}

function unknownFlag(flag: Token & { kind: "flag" }, at: FlagTarget, src: Source, into: Sink): string | undefined {
	const name = flag.name;
	const stepOnly = at.place === "globals" && Object.hasOwn(CHAIN_FLAGS, name);
	const guess = stepOnly
		? Object.hasOwn(CHAIN_FLAGS, `global-${name}`)
			? `global-${name}`
			: undefined
		: suggest(name, flagNames(at.place));
	const mean = guess ? ` Did you mean \`--${guess}\`?` : "";
	const message = stepOnly
		? `\`--${name}\` is a step flag; after \`--\` only chain-wide flags stand.${mean}`
		: `\`--${quote(name)}\` is not a chain flag.${mean}`;
	const known = flagNames(at.place).map((n) => `--${n}`);
	report(into, src, "chain-unknown-flag", flag, `${at.path}.${name}`, message, {
		hint: stepOnly ? "Put it on the step it is for." : `Known flags here: ${known.join(", ")}.`,
		expected: guess ? [`--${guess}`] : known,
	});
	return guess;
}

/**
 * Reads the flag at `tokens[i]` (and its value) into `at`, or reports it; returns the index of the next
 * token. An unknown flag still takes the plain value after it, so one typo gives one fault, not two.
 */
export function readFlag(tokens: Token[], i: number, at: FlagTarget, src: Source, into: Sink): number {
	const flag = tokens[i] as Token & { kind: "flag" };
	const next = tokens[i + 1];
	const valueLike = next !== undefined && next.kind !== "flag" && next.kind !== "globals";
	const eq = flag.name.indexOf("=");
	if (eq > 0 && flagAt(flag.name.slice(0, eq), at.place)) {
		const name = flag.name.slice(0, eq);
		const value = flag.name.slice(eq + 1);
		// The fix must itself be accepted: a switch takes only `true` or `false` after it, or nothing.
		const switchValue = CHAIN_FLAGS[name].check === undefined && !SWITCH_VALUES.has(value);
		const written = switchValue ? `--${name}` : `--${name} ${value}`;
		report(into, src, "chain-syntax", flag, `${at.path}.${name}`, "Flags take their value after a space, not `=`.", {
			hint: `Write \`${quote(written)}\`.`,
			expected: [written],
		});
		return i + 1;
	}
	const spec = flagAt(flag.name, at.place);
	if (!spec) {
		const guess = unknownFlag(flag, at, src, into);
		// Its value goes with it; a reference after it more likely starts a step whose `->` is missing.
		const takesValue = guess === undefined || CHAIN_FLAGS[guess].check !== undefined;
		const plainValue = next?.kind === "word" || next?.kind === "quoted" || next?.kind === "badRef";
		return takesValue && plainValue ? i + 2 : i + 1;
	}
	const onStep = setsStep(spec, at.place);
	const path = onStep ? `${at.path}.${flag.name}` : `${src.path}.${flag.name}`;
	const seenIn = onStep ? at.seen : into.globalsFirstGiven;
	const first = seenIn.get(flag.name);
	if (first) {
		const scope = onStep ? "on this step" : "for the chain";
		report(into, src, "chain-duplicate-flag", flag, path, `\`--${flag.name}\` is given twice ${scope}.`, {
			hint: "Keep one of them.",
			related: firstHere(first),
		});
	}
	const key = onStep ? spec.step : spec.global;
	const fields = onStep ? at.fields : (into.globals as Record<string, unknown>);
	if (!spec.check) {
		// pi-crew writes `--continue-on-error true`; `false` turns a chain-wide setting off for one step.
		const stated = next?.kind === "word" && SWITCH_VALUES.has(next.source) ? next.source === "true" : undefined;
		if (!first && key) fields[key] = stated ?? true;
		if (!first) seenIn.set(flag.name, { file: src.file, flag: src.range(flag) });
		if (stated !== undefined) return i + 2;
		if (next?.kind === "word") {
			report(into, src, "chain-flag-value", next, path, `\`--${flag.name}\` takes no value but true or false.`, {
				hint: "Write `true` or `false`, or remove the value: the flag alone turns it on.",
				expected: ["true", "false"],
			});
			return i + 2;
		}
		return i + 1;
	}
	if (!valueLike) {
		report(into, src, "chain-flag-value", flag, path, `\`--${flag.name}\` needs a value: ${spec.shape}.`);
		return i + 1;
	}
	if (brokenToken(next, src, into, path)) return i + 2;
	const value = valueText(next);
	if (value.text.trim() === "") {
		report(into, src, "chain-flag-value", next, path, `\`--${flag.name}\` has an empty value; it needs ${spec.shape}.`);
		return i + 2;
	}
	const checked = spec.check(value);
	if (!checked.ok) {
		for (const p of checked.problems) {
			const { start, end, message, ...details } = p;
			report(into, src, "chain-flag-value", { start, end }, path, message, details);
		}
	} else if (!first && key) {
		fields[key] = checked.value;
	}
	if (!first) seenIn.set(flag.name, { file: src.file, flag: src.range(flag), value: src.range(next) });
	return i + 2;
}
