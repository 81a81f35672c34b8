// Random input never crashes a parser: it yields a value or faults, and every range lies inside the text
// that was parsed, offset by its base, however odd the text.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkCondition } from "../../../src/language/check/condition.ts";
import { readFields, unknownName } from "../../../src/language/check/condition-env.ts";
import { evaluate } from "../../../src/engine/evaluate.ts";
import { parseAddress, parseCondition, parseDuration, readDuration } from "../../../src/language/syntax/index.ts";
import {
	BOOLEAN,
	enumOf,
	field,
	listOf,
	NUMBER,
	objectOf,
	STRING,
	TEXT,
	type Value,
} from "../../../src/language/types/index.ts";
import { parseTypeShorthand } from "../../../src/language/types/index.ts";
import { lineTable } from "../../../src/text/index.ts";
import { alone } from "./helpers.ts";
import { isMap, LineCounter, parseDocument } from "yaml";

const TOKENS = [
	"a",
	"plan",
	".",
	"ok",
	"output",
	"tasks",
	"ask-next",
	"size",
	"has",
	"all",
	"exists",
	"contains",
	"startsWith",
	"(",
	")",
	"[",
	"]",
	"{",
	"}",
	",",
	"?",
	":",
	"=",
	"==",
	"!=",
	"!",
	"<",
	"<=",
	">",
	">=",
	"&",
	"&&",
	"|",
	"||",
	"+",
	"-",
	"*",
	"/",
	"%",
	"in",
	"null",
	"true",
	"false",
	"if",
	"1",
	"0",
	"1.5e3",
	"-2",
	'"s"',
	"'t'",
	'"',
	"'",
	"\\",
	"\\n",
	" ",
	"  ",
	"\n",
	"\t",
	"é",
	"👋",
	"1h",
];

/** Token soup: close enough to the language to reach deep into the grammar and the diagnosis. */
const soup = fc.array(fc.constantFrom(...TOKENS), { maxLength: 14 }).map((parts) => parts.join(""));
const anything = fc.string({ unit: "grapheme", maxLength: 30 });
const durationish = fc
	.array(fc.constantFrom("0", "1", "9", "30", "h", "m", "s", "ms", "d", ".", "-", " ", "x", "H"), { maxLength: 8 })
	.map((p) => p.join(""));

const PREFIX = "---\nnodes:\n  - when: ";

/** Parses `text` placed inside a file after a prefix, and checks every range stays inside it. */
function inside(text: string, parse: typeof parseCondition) {
	const file = `${PREFIX}${text}\n---\n`;
	const table = lineTable(file);
	const base = PREFIX.length;
	const result = parse(text, { file: "f.md", base, table, path: "n.when" });
	expect(result.value === undefined).toBe(result.faults.length > 0);
	for (const f of result.faults) {
		expect(f.offset).toBeGreaterThanOrEqual(base);
		expect(f.endOffset).toBeLessThanOrEqual(base + text.length);
		expect(f.offset).toBeLessThanOrEqual(f.endOffset);
		expect(table.point(f.offset)).toEqual({ line: f.line, column: f.column, offset: f.offset });
	}
	if (result.value) {
		expect(result.value.range.start.offset).toBeGreaterThanOrEqual(base);
		expect(result.value.range.end.offset).toBeLessThanOrEqual(base + text.length);
	}
}

describe("parsers never throw", () => {
	it("parseCondition on token soup", () => {
		fc.assert(
			fc.property(soup, (text) => inside(text, parseCondition)),
			{ numRuns: 3_000 },
		);
	});

	it("parseCondition on any text", () => {
		fc.assert(
			fc.property(anything, (text) => inside(text, parseCondition)),
			{ numRuns: 1_500 },
		);
	});

	it("parseAddress", () => {
		fc.assert(
			fc.property(fc.oneof(soup, anything), (text) => inside(text, parseAddress)),
			{ numRuns: 1_500 },
		);
	});

	it("parseDuration and readDuration", () => {
		fc.assert(
			fc.property(fc.oneof(durationish, anything), (text) => {
				const ms = parseDuration(text);
				if (ms !== undefined) expect(Number.isSafeInteger(ms) && ms > 0).toBe(true);
				const table = lineTable(`timeout: ${text}\n`);
				const { faults, value } = readDuration(text, { file: "f.md", base: 9, table, path: "timeout" });
				expect(value).toBe(ms);
				for (const f of faults) {
					expect(f.offset).toBeGreaterThanOrEqual(9);
					expect(f.endOffset).toBeLessThanOrEqual(9 + text.length);
				}
			}),
			{ numRuns: 1_500 },
		);
	});

	it("parseTypeShorthand on random flow YAML", () => {
		const piece = fc.constantFrom(
			...["{", "}", "[", "]", ", ", ": ", "a", "b?", "string", "number", "x | y", "|", "Question", "1", "null", " "],
			...["json-schema", "type", "items", "properties", "required", "enum", "object", "array"],
		);
		fc.assert(
			fc.property(fc.array(piece, { maxLength: 12 }), (parts) => {
				const yaml = `output: ${parts.join("")}\n`;
				const doc = parseDocument(yaml, { lineCounter: new LineCounter() });
				if (doc.errors.length) return;
				const file = `---\n${yaml}---\n`;
				const node = isMap(doc.contents) ? doc.contents.get("output", true) : null;
				const at = { file: "f.md", table: lineTable(file), yamlBase: 4, path: "n.output" };
				const { value, faults } = parseTypeShorthand(node, at);
				expect(value === undefined).toBe(faults.length > 0);
				for (const f of faults) {
					expect(f.offset).toBeGreaterThanOrEqual(4);
					expect(f.endOffset).toBeLessThanOrEqual(4 + yaml.length);
				}
			}),
			{ numRuns: 1_000 },
		);
	});

	it("checkCondition and evaluate are total on whatever parses", () => {
		const leaf = fc.constantFrom(
			"a.n",
			"a.s",
			"a.e",
			"a.list",
			"a.text",
			"b",
			"1",
			"0",
			"2.5",
			'"x"',
			"'y'",
			"true",
			"[1, 2]",
			"[]",
		);
		const expr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
			e: fc.oneof(
				{ depthSize: "small" },
				leaf,
				fc
					.tuple(tie("e"), fc.constantFrom("&&", "||", "==", "!=", "<", ">=", "in", "+", "-", "*", "/", "%"), tie("e"))
					.map(([l, op, r]) => `(${l} ${op} ${r})`),
				tie("e").map((e) => `!${e}`),
				tie("e").map((e) => `size(${e})`),
				fc
					.tuple(tie("e"), fc.constantFrom("contains", "startsWith", "endsWith"), tie("e"))
					.map(([t, m, a]) => `${t}.${m}(${a})`),
				fc
					.tuple(fc.constantFrom("all", "exists"), tie("e"))
					.map(([m, body]) => `a.list.${m}(v, ${body.replaceAll("a.n", "v")})`),
			),
		})).e;
		const a = objectOf([
			field("n", NUMBER),
			field("s", STRING),
			field("e", enumOf(["x", "z"])),
			field("list", listOf(NUMBER)),
			field("text", TEXT),
		]);
		const env = {
			file: "f.md",
			path: "p",
			resolve(segments: Parameters<typeof unknownName>[1][]) {
				if (segments[0].name === "a") return readFields(this, a, segments, 1);
				if (segments[0].name === "b") return { type: BOOLEAN };
				return { fault: unknownName(this, segments[0], ["a", "b"]) };
			},
		};
		const values: Record<string, Value> = { a: { n: 0, s: "x", e: "z", list: [0, 1], text: "t" }, b: true };
		fc.assert(
			fc.property(expr, (text) => {
				const { value } = parseCondition(text, alone(text));
				expect(value).toBeDefined();
				if (!value) return;
				const checked = checkCondition(value, env);
				for (const f of checked.faults) expect(f.endOffset).toBeLessThanOrEqual(text.length);
				const outcome = evaluate(value, (segments) => {
					let v: Value | undefined = values[segments[0]];
					for (const name of segments.slice(1))
						v = v && typeof v === "object" && !Array.isArray(v) ? v[name] : undefined;
					return v === undefined ? { ok: false, reason: "absent" } : { ok: true, value: v };
				});
				expect(typeof outcome.ok).toBe("boolean");
				// What the checker passes evaluates to a boolean or an error, never to another kind of value.
				if (checked.faults.length === 0 && outcome.ok) expect(typeof outcome.value).toBe("boolean");
			}),
			{ numRuns: 1_000 },
		);
	});
});
