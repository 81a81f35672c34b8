/**
 * Every duration is honoured exactly up to the longest the docs allow (24d), and anything longer is a fault
 * where it is written, never a timer that fires at once: one property walk over the whole range, through
 * each place a duration is read (a flow's `timeout:`, a chain's `--timeout` and `--backoff`, the CLI, `/run`)
 * and through the timers that keep them.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseChain } from "../../../src/chain/index.ts";
import { readTimeout } from "../../../src/extension/args.ts";
import { formatDuration, MAX_DURATION_MS, parseDuration } from "../../../src/language/syntax/index.ts";
import { deadline } from "../../../src/runtime/abort.ts";
import { LONGEST_TIMER_MS, longTimeout } from "../../../src/runtime/timer.ts";
import { judge } from "../../helpers/flows.ts";

const within = fc.integer({ min: 1, max: MAX_DURATION_MS });
// Whole seconds past the limit: each spells a valid duration that only its length keeps out.
const beyond = fc
	.integer({ min: MAX_DURATION_MS / 1000 + 1, max: (100 * MAX_DURATION_MS) / 1000 })
	.map((s) => s * 1000);
const flowWith = (timeout: string) =>
	`---\nname: t\ndescription: d\ninput: string\nnodes:\n  - id: look\n    agent: scout\n    timeout: ${timeout}\n---\n\n## look\nx\n`;

describe("the longest duration", () => {
	it("is 24d, below what one timer holds", () => {
		expect(formatDuration(MAX_DURATION_MS)).toBe("24d");
		expect(MAX_DURATION_MS).toBeLessThan(LONGEST_TIMER_MS);
		expect(parseDuration("24d")).toBe(MAX_DURATION_MS);
		expect(parseDuration("24d1ms")).toBeUndefined();
		expect(parseDuration("25d")).toBeUndefined();
	});

	it("reads back every duration up to it exactly, in flows and chains alike", () => {
		fc.assert(
			fc.property(within, (ms) => {
				const text = formatDuration(ms);
				expect(parseDuration(text)).toBe(ms);
				const chain = parseChain(`@a --timeout ${text} -- --backoff ${text}`, { file: "c" });
				expect(chain.value?.steps[0].timeoutMs).toBe(ms);
				expect(chain.value?.globals.backoffMs).toBe(ms);
				expect(readTimeout(text)).toEqual({ ok: true, value: ms });
			}),
			{ numRuns: 300 },
		);
		const flow = judge(flowWith("24d"));
		expect(flow.faults).toEqual([]);
	});

	it("refuses anything longer where it is written, in flows, chains (seconds too) and /run", () => {
		fc.assert(
			fc.property(beyond, (ms) => {
				const text = formatDuration(ms);
				expect(parseDuration(text)).toBeUndefined();
				const chain = parseChain(`@a --timeout ${text}`, { file: "c" });
				expect(chain.faults.map((f) => [f.code, f.column, f.endColumn, f.expected])).toEqual([
					["chain-flag-value", 14, 14 + text.length, ["24d"]],
				]);
				const seconds = parseChain(`@a --timeout ${ms / 1000}`, { file: "c" });
				expect(seconds.faults.map((f) => [f.code, f.column])).toEqual([["chain-flag-value", 14]]);
				expect(readTimeout(text).ok).toBe(false);
			}),
			{ numRuns: 100 },
		);
		const flow = judge(flowWith("25d"));
		expect(flow.faults.map((f) => [f.code, f.line, f.column, f.expected])).toEqual([
			["duration-invalid", 8, 14, ["24d"]],
		]);
		expect(flow.faults[0].message).toContain("longer than the longest duration");
	});
});

describe("timers", () => {
	afterEach(() => vi.useRealTimers());

	it("a bare setTimeout past 2^31-1 ms fires at once (the fault the chunked timer exists for)", () => {
		vi.useFakeTimers();
		const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => {});
		let fired = false;
		setTimeout(() => (fired = true), LONGEST_TIMER_MS + 1);
		vi.advanceTimersByTime(1);
		expect(fired).toBe(true);
		warn.mockRestore();
	});

	it("longTimeout and deadline fire exactly at their time across the range, never before", () => {
		vi.useFakeTimers();
		fc.assert(
			fc.property(fc.oneof(within, fc.integer({ min: LONGEST_TIMER_MS - 2, max: 3 * LONGEST_TIMER_MS })), (ms) => {
				let fired = 0;
				const timer = longTimeout(() => fired++, ms);
				const bound = deadline(ms);
				vi.advanceTimersByTime(ms - 1);
				expect([fired, bound.signal.aborted]).toEqual([0, false]);
				vi.advanceTimersByTime(1);
				expect([fired, bound.signal.aborted]).toEqual([1, true]);
				expect(String((bound.signal.reason as Error).message)).toMatch(/^timed out after /);
				timer.clear();
				bound.clear();
			}),
			{ numRuns: 60 },
		);
	});

	it("a cleared longTimeout never fires, even between chunks", () => {
		vi.useFakeTimers();
		let fired = false;
		const timer = longTimeout(() => (fired = true), 2 * LONGEST_TIMER_MS + 5);
		vi.advanceTimersByTime(LONGEST_TIMER_MS + 1);
		timer.clear();
		vi.advanceTimersByTime(2 * LONGEST_TIMER_MS);
		expect(fired).toBe(false);
	});
});
