import { describe, expect, it } from "vitest";
import { mapConcurrent } from "../../src/combinators/index.ts";
import { wait } from "./helpers.ts";

describe("mapConcurrent", () => {
	it("returns results in the order of the items when later items finish first", async () => {
		const finished: number[] = [];
		const out = await mapConcurrent([60, 40, 20, 1], 4, async (ms, i) => {
			await wait(ms);
			finished.push(i);
			return `item ${i}`;
		});
		expect(finished).toEqual([3, 2, 1, 0]);
		expect(out).toEqual(["item 0", "item 1", "item 2", "item 3"]);
	});

	it("never has more than `concurrency` calls in flight", async () => {
		let inFlight = 0;
		let peak = 0;
		await mapConcurrent(
			Array.from({ length: 9 }, (_, i) => i),
			3,
			async (i) => {
				peak = Math.max(peak, ++inFlight);
				await wait(5 + (i % 3) * 7);
				inFlight--;
			},
		);
		expect(peak).toBe(3);
	});

	it("starts nothing new once the signal aborts, waits for what started, then rejects with the reason", async () => {
		const controller = new AbortController();
		const started: number[] = [];
		const settled: number[] = [];
		const run = mapConcurrent(
			[0, 1, 2, 3],
			2,
			async (i) => {
				started.push(i);
				await wait(i === 0 ? 5 : 20);
				if (i === 0) controller.abort(new Error("enough"));
				settled.push(i);
			},
			controller.signal,
		);
		await expect(run).rejects.toThrow("enough");
		expect(started).toEqual([0, 1]);
		expect(settled.sort()).toEqual([0, 1]);
	});

	it("rethrows a rejecting call after the others started have settled", async () => {
		const settled: number[] = [];
		const run = mapConcurrent([0, 1, 2], 2, async (i) => {
			if (i === 0) throw new Error("boom");
			await wait(20);
			settled.push(i);
		});
		await expect(run).rejects.toThrow("boom");
		expect(settled).toEqual([1]);
	});

	it("refuses a concurrency below one", async () => {
		await expect(mapConcurrent([1], 0, async (x) => x)).rejects.toThrow(RangeError);
	});
});
