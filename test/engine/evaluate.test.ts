// Evaluation of conditions: values, CEL's error rule for && || all exists (a deciding side wins over an
// error in either order), and errors (never false) for failed nodes, absent fields and division by zero.
import { describe, expect, it } from "vitest";
// evaluate.ts is pure; importing it directly keeps these tests off the runner's pi-facing modules.
import { evaluate, type Lookup } from "../../src/engine/evaluate.ts";
import { type Expr, parseCondition } from "../../src/language/syntax/index.ts";
import type { Value } from "../../src/language/types/index.ts";
import { alone } from "../language/syntax/helpers.ts";

const VALUES: Record<string, Value> = {
	review: { ok: true, output: { status: "approved", score: 7 } },
	tests: { ok: true, output: { passed: false, failures: 3 } },
	plan: {
		ok: true,
		output: {
			tasks: [
				{ text: "fix the bug", done: true },
				{ text: "write docs", done: false },
			],
		},
	},
	input: "héllo 👋",
	empty: [],
	zero: 0,
};
const FAILED = new Set(["audit"]);

/** The run's side: a failed node has no output, an absent field is an error, never a default. */
const lookup: Lookup = (segments) => {
	const [root, ...rest] = segments;
	if (FAILED.has(root)) {
		if (rest.length === 1 && rest[0] === "ok") return { ok: true, value: false };
		return { ok: false, reason: `${root} failed` };
	}
	let value: Value | undefined = VALUES[root];
	for (const name of rest) {
		value = value !== undefined && typeof value === "object" && !Array.isArray(value) ? value[name] : undefined;
	}
	return value === undefined ? { ok: false, reason: `${segments.join(".")} is absent` } : { ok: true, value };
};

function run(text: string) {
	const { value, faults } = parseCondition(text, alone(text));
	expect(faults).toEqual([]);
	return evaluate(value as Expr, lookup);
}

describe("evaluate", () => {
	it.each<[string, Value]>([
		['review.output.status == "approved"', true],
		["review.output.score + 1 == 8", true],
		["7 / 2", 3.5],
		["7 % 3", 1],
		["-review.output.score * 2", -14],
		["1 + 2 * 3 - 4", 3],
		["1 == 1.0", true],
		["size(input)", 7],
		["size(plan.output.tasks)", 2],
		["size(empty) == 0", true],
		['"b" > "a" && "a" < "ab" && 2 >= 2 && 1 <= 0', false],
		["tests.output.failures in [1, 2, 3]", true],
		['"x" in ["a", "b"]', false],
		["plan.output.tasks.exists(t, t.done)", true],
		["plan.output.tasks.all(t, t.done)", false],
		["empty.all(t, t.done)", true],
		["empty.exists(t, t.done)", false],
		['input.startsWith("hé") && input.endsWith("👋") && input.contains("llo")', true],
		["has(review.output.status) && !has(review.output.notes) && !has(review.output.constructor)", true],
		["!tests.output.passed", true],
		["[1, 2] == [1, 2]", true],
		['plan.output.tasks.exists(t, t.text.contains("docs"))', true],
	])("%s → %j", (text, value) => {
		expect(run(text)).toEqual({ ok: true, value });
	});

	it.each([
		["audit.output.approved", "audit failed"],
		['review.output.notes == "x"', "absent"],
		["1 / zero > 0", "division by zero"],
		["5 % zero == 0", "by zero"],
		["has(audit.output.x)", "audit failed"],
		["plan.output.tasks.all(t, t.missing)", "absent"],
		["1e308 * 10 > 0", "too large"],
		["!audit.output.approved", "audit failed"],
	])("%s is an error (%s), never false", (text, reason) => {
		const outcome = run(text);
		expect(outcome.ok).toBe(false);
		if (!outcome.ok) expect(outcome.reason).toContain(reason);
	});

	it("lets a deciding side win over an error, whichever comes first", () => {
		expect(run("audit.ok && audit.output.approved")).toEqual({ ok: true, value: false });
		expect(run("audit.output.approved && audit.ok")).toEqual({ ok: true, value: false });
		expect(run("review.ok || audit.output.approved")).toEqual({ ok: true, value: true });
		expect(run("audit.output.approved || review.ok")).toEqual({ ok: true, value: true });
		expect(run("audit.output.approved && review.ok").ok).toBe(false);
		expect(run("audit.output.approved || audit.ok").ok).toBe(false);
		expect(run("plan.output.tasks.all(t, t.missing || !t.done)").ok).toBe(false);
		expect(run("plan.output.tasks.all(t, t.done && t.missing)")).toEqual({ ok: true, value: false });
		expect(run("plan.output.tasks.exists(t, t.missing && t.done)")).toMatchObject({ ok: false });
		expect(run("plan.output.tasks.exists(t, t.missing || t.done)")).toEqual({ ok: true, value: true });
	});

	it("points an error at the part that failed", () => {
		const text = "review.ok && 1 / zero > 0";
		const outcome = run(text);
		expect(outcome.ok).toBe(false);
		if (!outcome.ok) expect(text.slice(outcome.range?.start.offset, outcome.range?.end.offset)).toBe("1 / zero");
	});

	it("gives the hand-computed value of a condition mixing a list, a string's size and arithmetic", () => {
		// A task is done; `héllo 👋` is 7 code points (8 UTF-16 units); the score is 7.
		const text = "plan.output.tasks.exists(t, t.done) && size(input) > review.output.score - 1";
		expect(run(text)).toEqual({ ok: true, value: true });
		expect(run("size(input) > review.output.score")).toEqual({ ok: true, value: false });
		expect(run("plan.output.tasks.exists(t, t.done) && size(input) == 7")).toEqual({ ok: true, value: true });
	});

	it("turns a value of the wrong shape into an error rather than a throw", () => {
		const odd: Lookup = () => ({ ok: true, value: null as unknown as Value });
		for (const text of ["a.b.c == 1", "size(a) > 0", "a.all(x, x)", "has(a.b)", 'a.contains("x")', "a + 1 > 0"]) {
			const { value } = parseCondition(text, alone(text));
			expect(evaluate(value as Expr, odd).ok, text).toBe(false);
		}
		const shaped: Lookup = () => ({ ok: true, value: { b: [1] } });
		for (const text of ["size(a) > 0", "a.b.all(x, x)", 'a.contains("x")', "a + 1 > 0", "!a", "-a > 0", "a < 1"]) {
			const { value } = parseCondition(text, alone(text));
			expect(evaluate(value as Expr, shaped).ok, text).toBe(false);
		}
	});
});
