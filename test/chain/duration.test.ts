// Durations in chain flags: one spelling with the flow files, and a printer the reader reads back.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { formatDuration, MAX_DURATION_MS, parseDuration } from "../../src/chain/index.ts";

describe("parseDuration", () => {
	it.each([
		["90s", 90_000],
		["10m", 600_000],
		["2h", 7_200_000],
		["1h30m", 5_400_000],
		["500ms", 500],
		["1s500ms", 1_500],
		["1d", 86_400_000],
		["1d2h3m4s5ms", 93_784_005],
	])("%s is %d ms", (text, ms) => {
		expect(parseDuration(text)).toBe(ms);
	});

	it.each(["", "60", "0s", "05s", "1.5s", "-1s", "+1s", "30m1h", "1m1m", "1 m", "1S", "1sec", "ms", "1h 30m", "m1"])(
		"refuses %j",
		(text) => {
			expect(parseDuration(text)).toBeUndefined();
		},
	);
});

describe("formatDuration", () => {
	it.each([
		[90_000, "1m30s"],
		[5_400_000, "1h30m"],
		[1_500, "1500ms"],
		[500, "500ms"],
		[86_400_000, "1d"],
		[3_600_000 + 1_000, "1h1s"],
	])("%d ms prints %s", (ms, text) => {
		expect(formatDuration(ms)).toBe(text);
	});

	it("prints every positive whole number of milliseconds up to 24d as text that reads back to it", () => {
		fc.assert(
			fc.property(fc.integer({ min: 1, max: MAX_DURATION_MS }), (ms) => parseDuration(formatDuration(ms)) === ms),
			{ numRuns: 1000 },
		);
	});
});
