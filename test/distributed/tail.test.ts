/**
 * A follower's place in a stream of rows whose `seq`s are taken at insert and seen at commit: a row that
 * becomes visible after a later one is read once, as long as it comes within the settle window, and the
 * rows read are left out of later queries until the floor passes them.
 */
import { describe, expect, it } from "vitest";
import { Tail } from "../../src/distributed/tail.ts";

/** A table whose rows are visible once committed, read as the store reads it (past the floor, the seen left out). */
function table() {
	const committed: number[] = [];
	const asked: { floor: number; seen: number[] }[] = [];
	return {
		commit: (...seqs: number[]) => committed.push(...seqs),
		asked,
		fetch: async (floor: number, seen: readonly number[]) => {
			asked.push({ floor, seen: [...seen] });
			return committed
				.filter((seq) => seq > floor && !seen.includes(seq))
				.sort((a, b) => a - b)
				.map((seq) => ({ seq }));
		},
	};
}

describe("Tail", () => {
	it("reads a row that committed after a later one, once", async () => {
		let now = 0;
		const t = table();
		const tail = new Tail(0, 1000, () => now);
		t.commit(1, 3);
		expect((await tail.read(t.fetch)).map((r) => r.seq)).toEqual([1, 3]);
		now = 100;
		t.commit(2);
		expect((await tail.read(t.fetch)).map((r) => r.seq)).toEqual([2]);
		now = 200;
		expect(await tail.read(t.fetch)).toEqual([]);
		expect(tail.top).toBe(3);
	});

	it("moves its floor to what was read a settle window before, and stops asking about the rows below it", async () => {
		let now = 0;
		const t = table();
		const tail = new Tail(0, 1000, () => now);
		t.commit(1, 2);
		await tail.read(t.fetch);
		expect(tail.floor).toBe(0);
		now = 500;
		t.commit(5);
		await tail.read(t.fetch);
		expect(t.asked.at(-1)).toEqual({ floor: 0, seen: [1, 2] });
		now = 1000;
		await tail.read(t.fetch);
		// The read at 0 is a window old: what it had read (up to 2) is settled; 5 is not yet.
		expect(tail.floor).toBe(2);
		expect(tail.seen).toEqual([5]);
		now = 1600;
		await tail.read(t.fetch);
		expect(tail.floor).toBe(5);
		expect(tail.seen).toEqual([]);
	});

	it("starts past `after`, and a page cut by a limit is taken up by the next read", async () => {
		const t = table();
		t.commit(3, 4, 5, 6);
		const tail = new Tail(4);
		const limited = async (floor: number, seen: readonly number[]) => (await t.fetch(floor, seen)).slice(0, 1);
		expect((await tail.read(limited)).map((r) => r.seq)).toEqual([5]);
		expect((await tail.read(limited)).map((r) => r.seq)).toEqual([6]);
		expect(await tail.read(limited)).toEqual([]);
	});

	it("takes no row twice, even when a query returns one it was told to leave out", async () => {
		const tail = new Tail();
		const rows = async () => [{ seq: 1 }, { seq: 2 }];
		expect(await tail.read(rows)).toHaveLength(2);
		expect(await tail.read(rows)).toEqual([]);
	});
});
