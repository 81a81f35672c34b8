/**
 * Following a run's rows as its workers append them. A row's `seq` is taken from a sequence when it is
 * inserted, but rows become visible when their transaction commits, and two workers appending at once may
 * commit in the other order: a reader that asks only for rows past the highest `seq` it has read would pass
 * over the one that committed last, for good. A {@link Tail} asks again, for a while, below its highest
 * `seq`, for the rows it has not read yet.
 *
 * Input: the rows each read returns. Output: each row once, whenever it became visible. Example: a read
 * returns seq 11 while 10 is still being committed; the next read, asking past the floor without 11,
 * returns 10.
 */

/**
 * How long an append may take from its `seq` to its commit. The appends are single statements on their own
 * (an `INSERT` of a turn's rows), so a commit later than this would be a database in trouble; a row that
 * late is still read by a page opened afresh, which reads the whole run.
 */
export const SETTLE_MS = 30_000;

/** A row read past a {@link Tail}'s floor. */
export interface Sequenced {
	seq: number;
}

/**
 * Where a follower stands in a stream of rows ordered by `seq`: every row at or below {@link floor} has
 * been read (or never will be), and {@link seen} lists the rows read above it.
 */
export class Tail {
	#floor: number;
	#top: number;
	readonly #seen = new Set<number>();
	/** The highest `seq` read as of each read still inside the settle window, oldest first. */
	readonly #marks: { at: number; top: number }[] = [];
	readonly #settleMs: number;
	readonly #now: () => number;

	/** Starts past `after` (rows at or below it are taken as read), a row's commit allowed `settleMs`. */
	constructor(after = 0, settleMs = SETTLE_MS, now: () => number = Date.now) {
		this.#floor = after;
		this.#top = after;
		this.#settleMs = settleMs;
		this.#now = now;
	}

	/** The `seq` at or below which there is nothing left to read. */
	get floor(): number {
		return this.#floor;
	}

	/** The highest `seq` read. */
	get top(): number {
		return this.#top;
	}

	/** The `seq`s read above the floor, for a query to leave out. */
	get seen(): number[] {
		return [...this.#seen];
	}

	/**
	 * Reads the rows past the floor that were not read before: `fetch` gets the floor and the `seq`s to
	 * leave out. The floor moves up to what had been read a settle window before this read began, so a row
	 * committed within the window after a later one is still asked for.
	 */
	async read<T extends Sequenced>(fetch: (floor: number, seen: readonly number[]) => Promise<T[]>): Promise<T[]> {
		const began = this.#now();
		const rows = await fetch(this.#floor, this.seen);
		const fresh: T[] = [];
		for (const row of rows) {
			if (row.seq <= this.#floor || this.#seen.has(row.seq)) continue;
			this.#seen.add(row.seq);
			if (row.seq > this.#top) this.#top = row.seq;
			fresh.push(row);
		}
		this.#marks.push({ at: began, top: this.#top });
		let settled = this.#floor;
		while (this.#marks.length && this.#marks[0].at <= began - this.#settleMs) {
			settled = Math.max(settled, this.#marks[0].top);
			this.#marks.shift();
		}
		if (settled > this.#floor) {
			this.#floor = settled;
			for (const seq of this.#seen) if (seq <= settled) this.#seen.delete(seq);
		}
		return fresh;
	}
}
