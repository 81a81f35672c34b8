/**
 * Every flag a chain accepts, in one table: where it may stand, what value it takes, where that value goes
 * and how it prints. The parser, the printer (`format.ts`) and docs/chain.md follow this table, so a flag
 * cannot be read in one and missing from another.
 */
import {
	type Checked,
	checkBackoff,
	checkCount,
	checkModel,
	checkSkills,
	checkThinking,
	checkTimeout,
	modelText,
	type ValueText,
} from "./values.ts";
import { formatDuration } from "./duration.ts";
import type { ChainGlobals, ChainModel, ChainStep } from "./types.ts";

/**
 * `step`: only after a step reference, for that step. `global`: anywhere, for the whole chain.
 * `both`: for the step it follows, or for the whole chain after `--` (or in the separate globals string).
 */
export type FlagScope = "step" | "global" | "both";

type StepKey = Exclude<keyof ChainStep, "ref" | "range">;
type GlobalKey = keyof ChainGlobals;

/** One accepted flag. `check` is absent for a flag that takes no value. */
export interface FlagSpec {
	scope: FlagScope;
	/** Field the value sets on a step (`step` and `both` flags). */
	step?: StepKey;
	/** Field the value sets on the globals (`global` and `both` flags). */
	global?: GlobalKey;
	check?: (value: ValueText) => Checked<unknown>;
	/** What the value looks like, for docs and for "needs a value" faults. */
	shape?: string;
	/** The words after `--<flag>` that read back to `value` (the printer's half of `check`). */
	print(value: never): string[];
}

/** A field the printer leaves out: unset, or an empty list (`--skill` with no skill says nothing). */
export function unset(value: unknown): boolean {
	return value === undefined || (Array.isArray(value) && value.length === 0);
}

const text = (v: string) => [v];
const count = (v: number) => [String(v)];
const duration = (ms: number) => [formatDuration(ms)];
const model = (m: ChainModel) => [modelText(m)];
const skills = (s: readonly string[]) => [s.join(",")];
const flag = (on: boolean) => (on ? [] : ["false"]);

const tokens = (v: ValueText) => checkCount(v, 1, "tokens");
const MODEL_SHAPE = "a model such as sonnet, opus:high or provider/id";

/** The flags, in the order the printer writes them. */
export const CHAIN_FLAGS: Readonly<Record<string, FlagSpec>> = {
	model: { scope: "step", step: "model", check: checkModel, shape: MODEL_SHAPE, print: model },
	skill: { scope: "step", step: "skills", check: checkSkills, shape: "skill[,skill…]", print: skills },
	thinking: { scope: "step", step: "thinking", check: checkThinking, shape: "a thinking level", print: text },
	timeout: { scope: "step", step: "timeoutMs", check: checkTimeout, shape: "seconds or a duration", print: duration },
	"global-model": { scope: "global", global: "model", check: checkModel, shape: MODEL_SHAPE, print: model },
	"global-skill": { scope: "global", global: "skills", check: checkSkills, shape: "skill[,skill…]", print: skills },
	"global-thinking": {
		scope: "global",
		global: "thinking",
		check: checkThinking,
		shape: "a thinking level",
		print: text,
	},
	"budget-total": { scope: "global", global: "budgetTotal", check: tokens, shape: "a number of tokens", print: count },
	"budget-warning": {
		scope: "global",
		global: "budgetWarning",
		check: tokens,
		shape: "a number of tokens",
		print: count,
	},
	retry: {
		scope: "both",
		step: "retry",
		global: "retry",
		check: (v) => checkCount(v, 0, "retries"),
		shape: "a whole number",
		print: count,
	},
	backoff: { scope: "global", global: "backoffMs", check: checkBackoff, shape: "a duration", print: duration },
	"max-history": {
		scope: "global",
		global: "maxHistory",
		check: (v) => checkCount(v, 0, "steps"),
		shape: "a whole number",
		print: count,
	},
	"continue-on-error": { scope: "both", step: "continueOnError", global: "continueOnError", print: flag },
};

/** Where a flag is being read: on a step, or among the chain-wide flags after `--`. */
export type FlagPlace = "step" | "globals";

/** The flag names (without `--`) accepted at a place, for did-you-mean. */
export function flagNames(place: FlagPlace): string[] {
	return Object.keys(CHAIN_FLAGS).filter((name) => place === "step" || CHAIN_FLAGS[name].scope !== "step");
}

/** The flag's spec if it may stand at `place`. */
export function flagAt(name: string, place: FlagPlace): FlagSpec | undefined {
	const spec = Object.hasOwn(CHAIN_FLAGS, name) ? CHAIN_FLAGS[name] : undefined;
	return spec && (place === "step" || spec.scope !== "step") ? spec : undefined;
}

/** Whether the flag sets a step field (true) or a global one (false) at this place. */
export function setsStep(spec: FlagSpec, place: FlagPlace): boolean {
	return place === "step" && spec.scope !== "global";
}
