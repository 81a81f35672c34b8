/**
 * Whatever text arrives, the reader, builder and checker answer instead of throwing: a CheckedFlow, or at
 * least one fault; every fault's range inside the file; faults in file order; and each fault's line and
 * column the ones its offset has. The inputs are valid flows (the corpus and generated ones) broken by
 * the edits people make: lines deleted, duplicated or swapped, stray characters, wrong indentation, and
 * values replaced by other YAML.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../../src/agents/index.ts";
import { lineTable } from "../../../src/text/index.ts";
import { generateFlow } from "../generate.ts";
import { judge } from "../helpers.ts";

/** 10,000 per run (about 17 s on two cores); `FUZZ_RUNS=100000` looks harder. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);

const fixtures = [
	join(PACKAGE_ROOT, "flows"),
	join(PACKAGE_ROOT, "test", "fixtures", "combo"),
	join(PACKAGE_ROOT, "test", "fixtures", "render"),
].flatMap((dir) =>
	readdirSync(dir)
		.filter((f) => f.endsWith(".md"))
		.map((f) => readFileSync(join(dir, f), "utf8")),
);

/** YAML values people write by mistake, and a few that stress the parser. */
const VALUES = [
	"[]",
	"{}",
	"null",
	"~",
	'"x',
	"'",
	"- a",
	"1e999",
	"&a",
	"*a",
	"!!str x",
	"|",
	">-",
	": :",
	"\t",
	"🦜",
	"0s",
	"-1",
	"true",
	"[a, [b",
	"{ a: }",
	"a.b.c",
	"x == ",
	"`",
	"#",
	"---",
	"## x",
	"\r",
];

/** One edit to a text's lines. */
type Edit =
	| { kind: "delete"; at: number }
	| { kind: "duplicate"; at: number }
	| { kind: "swap"; at: number; with: number }
	| { kind: "insert"; at: number; col: number; text: string }
	| { kind: "indent"; at: number; by: number }
	| { kind: "value"; at: number; value: string };

const edit: fc.Arbitrary<Edit> = fc.oneof(
	fc.record({ kind: fc.constant("delete" as const), at: fc.nat() }),
	fc.record({ kind: fc.constant("duplicate" as const), at: fc.nat() }),
	fc.record({ kind: fc.constant("swap" as const), at: fc.nat(), with: fc.nat() }),
	fc.record({
		kind: fc.constant("insert" as const),
		at: fc.nat(),
		col: fc.nat(),
		text: fc.string({ minLength: 1, maxLength: 3, unit: "binary" }),
	}),
	fc.record({ kind: fc.constant("indent" as const), at: fc.nat(), by: fc.integer({ min: -4, max: 4 }) }),
	fc.record({
		kind: fc.constant("value" as const),
		at: fc.nat(),
		value: fc.oneof(fc.constantFrom(...VALUES), fc.string({ maxLength: 8 })),
	}),
);

function apply(text: string, e: Edit): string {
	const lines = text.split("\n");
	const i = e.at % lines.length;
	switch (e.kind) {
		case "delete":
			lines.splice(i, 1);
			break;
		case "duplicate":
			lines.splice(i, 0, lines[i]);
			break;
		case "swap": {
			const j = e.with % lines.length;
			[lines[i], lines[j]] = [lines[j], lines[i]];
			break;
		}
		case "insert": {
			const col = e.col % (lines[i].length + 1);
			lines[i] = lines[i].slice(0, col) + e.text + lines[i].slice(col);
			break;
		}
		case "indent":
			lines[i] = e.by >= 0 ? " ".repeat(e.by) + lines[i] : lines[i].replace(new RegExp(`^ {0,${-e.by}}`), "");
			break;
		case "value": {
			const colon = lines[i].indexOf(": ");
			lines[i] = colon >= 0 ? `${lines[i].slice(0, colon + 2)}${e.value}` : `${lines[i]}${e.value}`;
			break;
		}
	}
	return lines.join("\n");
}

/** A valid flow: mostly small generated ones (cheap, and every shape), sometimes one of the corpus. */
const base = fc.oneof(
	{
		arbitrary: fc.tuple(fc.nat(), fc.integer({ min: 1, max: 6 })).map(([seed, size]) => generateFlow(seed, size)),
		weight: 3,
	},
	{ arbitrary: fc.constantFrom(...fixtures), weight: 1 },
);

/** What every answer of the checker must be, whatever the text. */
function wellFormed(text: string): void {
	const r = judge(text, "gen");
	expect(r.value !== undefined || r.faults.length > 0, "a CheckedFlow or at least one fault").toBe(true);
	if (r.value) expect(r.faults).toEqual([]);
	const table = lineTable(text);
	let previous = 0;
	for (const f of r.faults) {
		expect(
			0 <= f.offset && f.offset <= f.endOffset && f.endOffset <= text.length,
			`${f.code} ${f.offset}-${f.endOffset} in ${text.length}`,
		).toBe(true);
		expect(f.offset, `${f.code} sorted`).toBeGreaterThanOrEqual(previous);
		previous = f.offset;
		expect(table.point(f.offset), `${f.code} start`).toMatchObject({ line: f.line, column: f.column });
		expect(table.point(f.endOffset), `${f.code} end`).toMatchObject({ line: f.endLine, column: f.endColumn });
	}
}

describe("the reader never throws", () => {
	it("every generated flow checks, so the mutations start from valid files", () => {
		for (let seed = 0; seed < 50; seed++) expect(judge(generateFlow(seed, 1 + (seed % 10)), "gen").faults).toEqual([]);
	});

	it(
		`answers ${RUNS} mutated flows with a CheckedFlow or positioned, sorted faults`,
		() => {
			fc.assert(
				fc.property(base, fc.array(edit, { minLength: 1, maxLength: 4 }), (text, edits) => {
					wellFormed(edits.reduce(apply, text));
				}),
				{ numRuns: RUNS },
			);
		},
		// Generous: the test asserts answers, not speed, and must pass beside another heavy process (about 17 s idle).
		30_000 + RUNS * 30,
	);

	it("answers arbitrary text too", () => {
		fc.assert(
			fc.property(fc.string({ maxLength: 200, unit: "binary" }), (text) => {
				wellFormed(text);
				wellFormed(`---\n${text}\n---\n`);
			}),
			{ numRuns: 500 },
		);
	});
});
