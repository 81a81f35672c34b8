/**
 * Side-by-side measurement on a shared, noisy machine: the sides run in the same process, round after
 * round, in rotating order (AB, BA, AB, ...), so drift, a warmer JIT or the previous side's garbage lands on
 * every side alike. Figures are medians; a ratio is the median of the per-round ratios (each round's sides
 * ran back to back, under the same load).
 *
 * No forced GC between sides: tried, a full `gc()` before each side made the following 1,000 turns 1.5 to 3
 * times slower (the same number of collections in the side, but 4 to 6 times their time), which measures
 * the collector's recovery rather than the side.
 */

export function median(xs: readonly number[]): number {
	if (xs.length === 0) return Number.NaN;
	const s = [...xs].sort((a, b) => a - b);
	const mid = Math.floor(s.length / 2);
	return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** The smallest and largest value, for a spread. */
export function range(xs: readonly number[]): [number, number] {
	return [Math.min(...xs), Math.max(...xs)];
}

/**
 * What one side of a round took: wall milliseconds, the CPU milliseconds this process spent meanwhile
 * (every thread: the main thread, GC helpers, libuv), and those of the main thread alone. On a shared
 * machine a neighbour's burst stretches wall time but hardly CPU time. The helper threads' share is the
 * noisiest part: concurrent marking started by one side's garbage may run during the next side, so two
 * identical sides differ by up to 10% in process CPU and by about 1% in main-thread CPU.
 */
export interface Sample {
	ms: number;
	cpuMs: number;
	/** Main-thread CPU milliseconds (NaN where the work ran elsewhere, e.g. in a child process). */
	threadMs: number;
}

/** A clock of all three measures, started now. */
export function startClock(): () => Sample {
	const cpu = process.cpuUsage();
	const thread = process.threadCpuUsage();
	const start = performance.now();
	return () => {
		const ms = performance.now() - start;
		const used = process.cpuUsage(cpu);
		const own = process.threadCpuUsage(thread);
		return { ms, cpuMs: (used.user + used.system) / 1000, threadMs: (own.user + own.system) / 1000 };
	};
}

/** Times `fn`: its sample and what it returned. */
export async function timed<T>(fn: () => Promise<T>): Promise<Sample & { value: T }> {
	const stop = startClock();
	const value = await fn();
	return { ...stop(), value };
}

/** Recorded samples of each side, round by round (index r of every side is the same round). */
export type Sides<K extends string> = Record<K, Sample[]>;

/**
 * Runs `warmup` unrecorded rounds, then `rounds` recorded ones; each round runs every side once, the order
 * rotating from round to round (AB, BA for two sides; ABC, BCA, CAB for three). Each side returns the
 * sample to record (it may time less than all it does, e.g. not its setup).
 */
export async function interleave<K extends string>(
	rounds: number,
	warmup: number,
	sides: Record<K, () => Promise<Sample>>,
): Promise<Sides<K>> {
	const keys = Object.keys(sides) as K[];
	const out = Object.fromEntries(keys.map((k) => [k, [] as Sample[]])) as Sides<K>;
	for (let round = 0; round < warmup + rounds; round++) {
		const shift = round % keys.length;
		const order = [...keys.slice(shift), ...keys.slice(0, shift)];
		const got = {} as Record<K, Sample>;
		for (const k of order) got[k] = await sides[k]();
		if (round < warmup) continue;
		for (const k of keys) out[k].push(got[k]);
	}
	return out;
}

/** a[r] / b[r] for every round r: each pair ran back to back, under the same load. */
export function ratios(a: readonly number[], b: readonly number[]): number[] {
	return a.map((x, i) => x / b[i]);
}
