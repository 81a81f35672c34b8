/**
 * Runs one target for a number of cases from a seed and counts what went wrong, rather than stopping at
 * the first failure as `fc.assert` would: a fuzz report says how many cases crashed, and a sample test
 * wants every failing input at once. The seed fixes every case, so a report is replayed with it.
 */
import fc from "fast-check";
import type { Target } from "./targets.ts";

/** What went wrong with one case. */
export interface Failure {
	kind: "crash" | "broken" | "slow";
	/** Which case of the run (0-based), for replaying with the same seed. */
	index: number;
	message: string;
	input: string;
}

/** What one run of a target found. */
export interface Outcome {
	target: string;
	seed: number;
	cases: number;
	/** Cases answered with a value (the rest with faults): how deep the inputs reached. */
	values: number;
	crashes: number;
	broken: number;
	slow: number;
	ms: number;
	slowestMs: number;
	/** The first few failures, in case order. */
	failures: Failure[];
	knownBug?: string;
}

export interface RunParams {
	cases: number;
	seed: number;
	/** A case slower than this is a failure: a parser's time must not explode on a small input. */
	slowMs?: number;
	/** How many failures to keep for the report. */
	keep?: number;
}

/** A case over this is reported: the inputs are small, so this is an explosion, never noise. */
export const DEFAULT_SLOW_MS = 2_000;

export function runTarget(target: Target, params: RunParams): Outcome {
	const slowMs = params.slowMs ?? DEFAULT_SLOW_MS;
	const keep = params.keep ?? 5;
	const out: Outcome = {
		target: target.name,
		seed: params.seed,
		cases: 0,
		values: 0,
		crashes: 0,
		broken: 0,
		slow: 0,
		ms: 0,
		slowestMs: 0,
		failures: [],
		...(target.knownBug ? { knownBug: target.knownBug } : {}),
	};
	const fail = (kind: Failure["kind"], message: string, input: unknown) => {
		out[kind === "crash" ? "crashes" : kind]++;
		if (out.failures.length < keep) {
			let shown: string;
			try {
				shown = target.show(input);
			} catch (error) {
				shown = `(cannot show the input: ${String(error)})`;
			}
			out.failures.push({ kind, index: out.cases - 1, message, input: shown });
		}
	};
	const started = performance.now();
	fc.check(
		fc.property(target.arbitrary, (input) => {
			out.cases++;
			const t0 = performance.now();
			try {
				const verdict = target.judge(input);
				if (verdict.answer === "value") out.values++;
				if (verdict.problem) fail("broken", verdict.problem, input);
			} catch (error) {
				const e = error as Error;
				fail("crash", `${e?.name ?? "Error"}: ${e?.message ?? String(error)}`, input);
			}
			const ms = performance.now() - t0;
			out.slowestMs = Math.max(out.slowestMs, ms);
			if (ms > slowMs) fail("slow", `took ${Math.round(ms)} ms`, input);
			return true;
		}),
		{ numRuns: params.cases, seed: params.seed },
	);
	out.ms = performance.now() - started;
	return out;
}

/** Cases that count against the run: a known bug's crashes do not, until it is fixed. */
export function failed(o: Outcome): number {
	return o.knownBug ? 0 : o.crashes + o.broken + o.slow;
}
