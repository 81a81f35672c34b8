/**
 * The chain's contract: what a parsed chain holds, kept apart from the code that builds it (as pi keeps
 * `types.ts` apart from its loaders), so the runner written later depends on these shapes only.
 */
import type { LineTable, Range } from "../text/index.ts";

/** pi's thinking levels, the only values a step or a model suffix may carry once parsed. */
export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh", "max"] as const;

/** One of {@link THINKING_LEVELS}. */
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

/** The words pi-crew's chains used; accepted so old chains still read, and normalised on the way in. */
export const THINKING_ALIASES: Readonly<Record<string, ThinkingLevel>> = {
	fast: "low",
	standard: "medium",
	deep: "high",
};

/** The agent a quoted goal runs on, since a goal names no agent of its own. */
export const DEFAULT_GOAL_AGENT = "worker";

/** What a step runs: an agent, a flow, a prompt template, or a goal for {@link DEFAULT_GOAL_AGENT}. */
export type ChainRef =
	/** `goal` is the step's own goal, written after the reference as pi-crew does: `@team "Convert X -> Y"`. */
	| { kind: "agent"; name: string; label?: string; goal?: string }
	| { kind: "flow"; name: string }
	| { kind: "template"; name: string }
	| { kind: "goal"; text: string };

/**
 * A model as pi reads it (`sonnet`, `opus:high`, `provider/id[:thinking]`), split so nobody parses it twice.
 * pi's own resolver turns it into a model when the run is prepared.
 */
export interface ChainModel {
	/** Absent for a bare name such as `sonnet`, which pi matches against every provider's models. */
	provider?: string;
	/** May itself contain `/` or a `:` suffix that is not a thinking level (`openrouter/x:free`). */
	id: string;
	thinking?: ThinkingLevel;
}

/** One step of a chain with its own overrides; an absent field means "inherit the global or default". */
export interface ChainStep {
	ref: ChainRef;
	model?: ChainModel;
	skills?: string[];
	thinking?: ThinkingLevel;
	/** `--timeout`, in milliseconds. */
	timeoutMs?: number;
	/** Extra attempts after a failure. */
	retry?: number;
	/** Keep going when this step fails. */
	continueOnError?: boolean;
	/** From the reference to the last flag of the step, so later checks can point at it. */
	range: Range;
}

/** Settings for the whole chain; a step's own flag wins over the matching global. */
export interface ChainGlobals {
	model?: ChainModel;
	skills?: string[];
	thinking?: ThinkingLevel;
	/** Keep going when any step fails. */
	continueOnError?: boolean;
	/** Token budget for the whole chain. */
	budgetTotal?: number;
	/** Tokens after which the run warns; never above `budgetTotal`. */
	budgetWarning?: number;
	/** Extra attempts after a failure, for every step without its own `--retry`. */
	retry?: number;
	/** Wait between attempts, in milliseconds. */
	backoffMs?: number;
	/** How many earlier steps' handoffs each step is shown. */
	maxHistory?: number;
}

/** A parsed chain. */
export interface ChainSpec {
	steps: ChainStep[];
	globals: ChainGlobals;
	/** The whole chain text. */
	range: Range;
}

/** Where a chain's text sits, so faults point into the file the user edits rather than into a substring. */
export interface ChainSource {
	/** The file named in every fault. */
	file: string;
	/**
	 * Offset of the text's first character in the file, for a chain inside a YAML value. Default: 0.
	 * Lines and columns come from `lineTable`; without one they count from the text itself (line 1).
	 */
	baseOffset?: number;
	/** The whole file's line table; needed for absolute lines and columns. */
	lineTable?: LineTable;
	/** Node path the fault paths start with. Default: "chain". */
	path?: string;
}

/** How to read a chain: where it sits, and optionally chain-wide flags given as a separate string. */
export interface ParseChainOptions extends ChainSource {
	/** Flags such as `--retry 2 --continue-on-error`, read as if written after `--` at the chain's end. */
	globals?: { text: string } & Partial<ChainSource>;
}
