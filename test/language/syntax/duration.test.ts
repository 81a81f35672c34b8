// Durations as a flow file writes them: compound values largest unit first, and the same form printed back.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatDuration, MAX_DURATION_MS, parseDuration, readDuration } from "../../../src/language/syntax/index.ts";
import { formatDuration as runtimeFormat } from "../../../src/runtime/duration.ts";
import { durationGrammar } from "../../../src/language/syntax/grammars.ts";
import { alone, where } from "./helpers.ts";

const ACCEPTED: [string, number][] = [
	["90s", 90_000],
	["10m", 600_000],
	["1h", 3_600_000],
	["1h30m", 5_400_000],
	["2h15m30s", 8_130_000],
	["500ms", 500],
	["1s500ms", 1_500],
	["1d", 86_400_000],
	["1d2h", 93_600_000],
	["120s", 120_000],
	["90m", 5_400_000],
];

// [text, refused part as written]
const REFUSED: [string, string][] = [
	["", ""],
	["0s", "0s"],
	["1h0m", "0m"],
	["01s", "01s"],
	["30m1h", "1h"],
	["1h1h", "1h"],
	["1ms5s", "5s"],
	["1.5h", "1.5h"],
	["-1h", "-1h"],
	["10", "10"],
	["1m30", "30"],
	["1x", "x"],
	["5sec", "sec"],
	["5constructor", "constructor"],
	["1h 30m", "1h 30m"],
	["h", "h"],
	["1H", "H"],
	["99999999999999999d", "99999999999999999d"],
];

describe("grammar/duration.ohm", () => {
	it.each(ACCEPTED)("matches %j", (text) => expect(durationGrammar().match(text).succeeded()).toBe(true));
	it.each(REFUSED.filter(([t]) => !t.startsWith("9")))("refuses %j", (text) => {
		expect(durationGrammar().match(text).failed()).toBe(true);
	});
});

describe("parseDuration", () => {
	it.each(ACCEPTED)("%j is %d ms", (text, ms) => expect(parseDuration(text)).toBe(ms));
	it.each(REFUSED)("%j is not a duration", (text) => expect(parseDuration(text)).toBeUndefined());
});

describe("readDuration", () => {
	it.each(REFUSED)("%j is refused at %j", (text, part) => {
		const { faults, value } = readDuration(text, alone(text, "plan.timeout"));
		expect(value).toBeUndefined();
		const start = text.lastIndexOf(part);
		expect(where(faults[0])).toEqual({
			code: "duration-invalid",
			line: 1,
			column: start + 1,
			endLine: 1,
			endColumn: start + part.length + 1,
		});
	});

	it("suggests the unit meant", () => {
		// The fix replaces what the fault points at (the unit), so writing it there gives `5s`.
		expect(readDuration("5sec", alone("5sec")).faults[0].expected).toEqual(["s"]);
	});
});

describe("formatDuration", () => {
	it.each([
		[5_400_000, "1h30m"],
		[1_500, "1500ms"],
		[90_000, "1m30s"],
		[86_400_000, "1d"],
		[90_061_000, "1d1h1m1s"],
		[1_000, "1s"],
		[500, "500ms"],
		[90_000_000, "1d1h"],
		[1_500.4, "1500ms"],
	])("%d prints as %j", (ms, text) => expect(formatDuration(ms)).toBe(text));

	it("is the one formatter: messages (runtime) and the file format print alike", () => {
		expect(runtimeFormat).toBe(formatDuration);
	});

	it("prints what parseDuration reads back, up to the longest (24d)", () => {
		fc.assert(
			fc.property(fc.integer({ min: 1, max: MAX_DURATION_MS }), (ms) => {
				expect(parseDuration(formatDuration(ms))).toBe(ms);
			}),
			{ numRuns: 2_000 },
		);
	});
});
