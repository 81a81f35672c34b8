// Type rules of conditions against a small scope: what each operator takes, enum strictness, free strings,
// text, and no cascades.
import { describe, expect, it } from "vitest";
// The condition checker's own files, not check/index.ts: that door also opens the whole flow checker,
// which these tests of a pure layer should not depend on.
import { checkCondition } from "../../../src/language/check/condition.ts";
import { type ConditionEnv, readFields, unknownName } from "../../../src/language/check/condition-env.ts";
import { type Expr, parseCondition } from "../../../src/language/syntax/index.ts";
import {
	BOOLEAN,
	enumOf,
	FREE_STRING,
	field,
	listOf,
	NUMBER,
	objectOf,
	STRING,
	TEXT,
	type Type,
} from "../../../src/language/types/index.ts";
import { alone } from "./helpers.ts";

const STATUS = enumOf(["approved", "rejected"]);
const ROOTS: Record<string, Type> = {
	review: objectOf([
		field("ok", BOOLEAN),
		field("output", objectOf([field("status", STATUS), field("notes", STRING, true)])),
	]),
	tests: objectOf([
		field("ok", BOOLEAN),
		field("output", objectOf([field("passed", BOOLEAN), field("failures", NUMBER)])),
	]),
	plan: objectOf([
		field("ok", BOOLEAN),
		field(
			"output",
			objectOf([
				field("tasks", listOf(objectOf([field("text", STRING), field("worker", enumOf(["scout", "coder"]))]))),
			]),
		),
	]),
	scout: objectOf([field("ok", BOOLEAN), field("output", TEXT)]),
	ask: objectOf([
		field("ok", BOOLEAN),
		field("output", objectOf([field("answered", BOOLEAN), field("answer", FREE_STRING)])),
	]),
	other: objectOf([field("output", objectOf([field("mode", enumOf(["fast", "slow"]))]))]),
	gate: objectOf([field("output", objectOf([field("decision", enumOf(["approved", "later"]))]))]),
	input: STRING,
	tags: listOf(STATUS),
};

/** The test scope: roots by name, fields through object types, as the flow checker's env would. */
const env: ConditionEnv = {
	file: "flow.md",
	path: "gate.when",
	resolve(segments) {
		const root = ROOTS[segments[0].name];
		if (!root) return { fault: unknownName(this, segments[0], Object.keys(ROOTS)) };
		return readFields(this, root, segments, 1);
	},
};

function check(text: string) {
	const parsed = parseCondition(text, alone(text));
	expect(parsed.faults).toEqual([]);
	return checkCondition(parsed.value as Expr, env);
}

/** code and the refused source text of each fault. */
function refusals(text: string): [string, string][] {
	return check(text).faults.map((f) => [f.code, text.slice(f.offset, f.endOffset)]);
}

describe("checkCondition accepts", () => {
	it.each([
		'review.ok && review.output.status == "approved"',
		'"rejected" != review.output.status',
		"review.output.status == gate.output.decision",
		'review.output.status in [gate.output.decision, "rejected"]',
		'review.output.status in ["approved", "rejected"]',
		"!tests.output.passed || tests.output.failures * 2 + 1 > 3 % 2",
		"-tests.output.failures < 0",
		"size(plan.output.tasks) >= 1 && size(input) < 100",
		'plan.output.tasks.all(t, t.worker == "coder" && t.text.startsWith("fix"))',
		"plan.output.tasks.exists(t, size(t.text) > 3)",
		'has(review.output.notes) && review.output.notes.contains("ok")',
		'"approved" in tags',
		'input < "m"',
		"ask.output.answered && ask.output.answer != input",
		"size(ask.output.answer) > 0",
		"has(scout.output)",
	])("%s", (text) => {
		const result = check(text);
		expect(result.faults).toEqual([]);
		expect(result.type).toEqual(BOOLEAN);
	});
});

describe("checkCondition refuses", () => {
	it.each<[string, [string, string][]]>([
		['review.output.status == "aproved"', [["condition-enum-value", '"aproved"']]],
		['review.output.status in ["approved", "rejectd"]', [["condition-enum-value", '"rejectd"']]],
		['"nope" in tags', [["condition-enum-value", '"nope"']]],
		['ask.output.answer == "yes"', [["condition-free-string", '"yes"']]],
		['ask.output.answer.contains("y")', [["condition-free-string", '"y"']]],
		// One bet on the wording, one fault over the literals (combo's verdict, issue 17).
		['ask.output.answer in ["a", "b"]', [["condition-free-string", '"a", "b"']]],
		['scout.output == "done"', [["condition-type", "scout.output"]]],
		["scout.output.verdict", [["condition-type", ".verdict"]]],
		[
			"review.output.status == other.output.mode && other.output.mode == review.output.status",
			[
				["condition-type", "=="],
				["condition-type", "=="],
			],
		],
		["tests.output.failures", [["condition-type", "tests.output.failures"]]],
		['tests.output.failures == "3"', [["condition-type", "=="]]],
		["tests.ok && 1", [["condition-type", "1"]]],
		["!tests.output.failures", [["condition-type", "tests.output.failures"]]],
		[
			'input + "x" == "y"',
			[
				["condition-type", "input"],
				["condition-type", '"x"'],
			],
		],
		["tests.output.failures / input > 1", [["condition-type", "input"]]],
		["plan.output.tasks == plan.output.tasks", [["condition-type", "plan.output.tasks"]]],
		["review.output == review.output", [["condition-type", "review.output"]]],
		["tests.ok < true", [["condition-type", "<"]]],
		["1 in input", [["condition-type", "input"]]],
		["review.ok in []", [["condition-type", "[]"]]],
		['[1, "a"] == [1]', [["condition-type", '"a"']]],
		["size(tests.ok) > 1", [["condition-type", "tests.ok"]]],
		["has(input)", [["condition-syntax", "input"]]],
		['tests.output.failures.contains("1")', [["condition-type", "tests.output.failures"]]],
		["input.all(c, c)", [["condition-type", "input"]]],
		["plan.output.tasks.all(t, t.text)", [["condition-type", "t.text"]]],
		['plan.output.tasks.all(t, t.worker == "scuot")', [["condition-enum-value", '"scuot"']]],
	])("%s", (text, expected) => {
		expect(refusals(text)).toEqual(expected);
	});

	it("names the nearest for an unknown address or field", () => {
		const unknown = check('reveiw.ok && review.output.statu == "approved"').faults;
		expect(unknown.map((f) => [f.code, f.expected])).toEqual([
			["condition-unknown-address", ["review"]],
			["condition-unknown-address", ["status"]],
		]);
	});

	it("suggests the enum value nearest to a typo", () => {
		const [f] = check('review.output.status == "aproved"').faults;
		expect(f.expected).toEqual(["approved"]);
		expect(f.path).toBe("gate.when");
		expect(f.file).toBe("flow.md");
	});

	it("does not re-report a refused part", () => {
		expect(refusals("nothing.ok && (nothing.output + 1 > 2)")).toEqual([
			["condition-unknown-address", "nothing"],
			["condition-unknown-address", "nothing"],
		]);
		expect(refusals("scout.output.all(x, x.ok)")).toEqual([["condition-type", "scout.output"]]);
		expect(check("nothing.ok").type).toBeUndefined();
	});

	it("binds an all/exists variable only inside its body", () => {
		expect(refusals("plan.output.tasks.all(t, t.ok) || t.ok")).toEqual([
			["condition-unknown-address", "ok"],
			["condition-unknown-address", "t"],
		]);
	});
});
