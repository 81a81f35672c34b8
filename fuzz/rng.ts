/**
 * A seeded generator for the structural fuzzers. fast-check hands each case a seed and the shapes are
 * built from it, because a flow's reads and conditions must name ids declared earlier in the same
 * file: threading that scope through fast-check combinators would cost more than it shrinks. A case is
 * replayed by its fast-check seed, which fixes every seed handed down here.
 */

/** mulberry32: tiny, fast, and the same sequence on every platform. */
export class Rng {
	private state: number;

	constructor(seed: number) {
		this.state = seed >>> 0;
	}

	/** A float in [0, 1). */
	next(): number {
		this.state = (this.state + 0x6d2b79f5) >>> 0;
		let t = this.state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	}

	/** An integer in [0, n). */
	int(n: number): number {
		return Math.floor(this.next() * n);
	}

	/** An integer in [min, max]. */
	between(min: number, max: number): number {
		return min + this.int(max - min + 1);
	}

	chance(p: number): boolean {
		return this.next() < p;
	}

	pick<T>(list: readonly T[]): T {
		return list[this.int(list.length)];
	}

	/** One of the weighted choices: `[weight, value]`. */
	weighted<T>(choices: readonly (readonly [number, T])[]): T {
		const total = choices.reduce((sum, [w]) => sum + w, 0);
		let roll = this.next() * total;
		for (const [w, v] of choices) {
			roll -= w;
			if (roll < 0) return v;
		}
		return choices[choices.length - 1][1];
	}
}
