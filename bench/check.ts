/**
 * How much checking costs over merely parsing: the same files, side by side in one run, several rounds.
 * "Parse" is what any tool must do to read a flow file at all (remark's Markdown parse with frontmatter,
 * then yaml's parseDocument of the frontmatter); "check" is read → build → check with the shipped agents
 * (`checkFlowText`), which includes that parse. The target is a median ratio of at most 3×. The corpus is the
 * shipped flows, combo-format flows (test/fixtures/combo, less the one whose callees are there too) and
 * generated flows of 200 to 400 nodes nested in loops, maps, choices and parallels.
 *
 *   node bench/check.ts            (npm run bench:check)
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import remarkFrontmatter from "remark-frontmatter";
import remarkParse from "remark-parse";
import { unified } from "unified";
import { parseDocument } from "yaml";
import { loadRoster, PACKAGE_ROOT } from "../src/agents/index.ts";
import type { Fault } from "../src/faults/index.ts";
import type { CheckedFlow } from "../src/language/check/index.ts";
import { catalogueOptions, checkFlowText, type LoadOptions } from "../src/load/index.ts";
import { generateFlow } from "../test/language/generate.ts";

const ROUNDS = 15;
const WARMUP = 3;
const TARGET = 3;

interface Entry {
	label: string;
	name: string;
	text: string;
}

const fromDir = (dir: string, prefix: string, skip: readonly string[] = []): Entry[] =>
	readdirSync(dir)
		.filter((f) => f.endsWith(".md") && !skip.includes(f))
		.map((f) => ({ label: `${prefix}${f}`, name: f.slice(0, -3), text: readFileSync(join(dir, f), "utf8") }));

const corpus: Entry[] = [
	...fromDir(join(PACKAGE_ROOT, "flows"), "flows/"),
	...fromDir(join(PACKAGE_ROOT, "test", "fixtures", "combo"), "combo/", ["build-attended.md"]),
	...[200, 250, 300, 400].map((size, i) => ({
		label: `generated, ${size} nodes`,
		name: "gen",
		text: generateFlow(1000 + i, size),
	})),
];

const nowhere = mkdtempSync(join(tmpdir(), "pi-flows-bench-"));
const roster = loadRoster(nowhere, { user: false, project: false });
// Callees are found among the shipped flows and judged once for the whole bench: each file's time is then
// its own check, not its callees' again, and its parse is compared with its own check alone.
const options: LoadOptions = {
	...catalogueOptions(nowhere, { user: false, project: false }),
	cache: new Map<string, { value?: CheckedFlow; faults: Fault[] }>(),
};
const markdown = unified().use(remarkParse).use(remarkFrontmatter, ["yaml"]);

function parseOnly(text: string): number {
	const root = markdown.parse(text);
	const first = root.children[0];
	const doc = parseDocument(first?.type === "yaml" ? first.value : "", { uniqueKeys: true });
	return root.children.length + doc.errors.length;
}

function checkOnly(e: Entry): number {
	const r = checkFlowText(e.text, `${e.name}.md`, roster, options);
	if (r.faults.length)
		throw new Error(
			`${e.label} does not check: ${r.faults[0].code} ${r.faults[0].line}:${r.faults[0].column} ${r.faults[0].message}`,
		);
	return r.faults.length;
}

/** Milliseconds of `f` over `reps` repetitions, per repetition. */
function time(f: () => unknown, reps: number): number {
	const start = performance.now();
	for (let i = 0; i < reps; i++) f();
	return (performance.now() - start) / reps;
}

const median = (xs: number[]) => {
	const s = [...xs].sort((a, b) => a - b);
	return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// Small files are timed over several repetitions so the clock's resolution does not decide their ratio.
const reps = (e: Entry) => Math.max(1, Math.round(20_000 / e.text.length));
const perFile = corpus.map(() => ({ parse: [] as number[], check: [] as number[] }));
const totals = { parse: [] as number[], check: [] as number[], ratio: [] as number[] };
for (let round = 0; round < WARMUP + ROUNDS; round++) {
	let parse = 0;
	let check = 0;
	corpus.forEach((e, i) => {
		const timeParse = () => time(() => parseOnly(e.text), reps(e));
		const timeCheck = () => time(() => checkOnly(e), reps(e));
		// Alternate the order each round so neither side always runs on a warmer cache.
		let p: number;
		let c: number;
		if (round % 2) {
			p = timeParse();
			c = timeCheck();
		} else {
			c = timeCheck();
			p = timeParse();
		}
		if (round < WARMUP) return;
		perFile[i].parse.push(p);
		perFile[i].check.push(c);
		parse += p;
		check += c;
	});
	if (round >= WARMUP) {
		totals.parse.push(parse);
		totals.check.push(check);
		totals.ratio.push(check / parse);
	}
}

const nodes = (text: string) => (text.match(/^\s*- id:/gm) ?? []).length;
const rows = corpus.map((e, i) => {
	const p = median(perFile[i].parse);
	const c = median(perFile[i].check);
	return [
		e.label,
		String(nodes(e.text)),
		String(e.text.split("\n").length),
		p.toFixed(2),
		c.toFixed(2),
		`${(c / p).toFixed(2)}×`,
	];
});
const ratio = median(totals.ratio);
rows.push([
	`all (median of ${ROUNDS} rounds)`,
	"",
	"",
	median(totals.parse).toFixed(2),
	median(totals.check).toFixed(2),
	`${ratio.toFixed(2)}×`,
]);
const header = ["file", "nodes", "lines", "parse ms", "check ms", "check/parse"];
const widths = header.map((h, k) => Math.max(h.length, ...rows.map((r) => r[k].length)));
const line = (r: string[]) =>
	r.map((cell, k) => (k === 0 ? cell.padEnd(widths[k]) : cell.padStart(widths[k]))).join("  ");
console.log(line(header));
console.log(widths.map((w) => "-".repeat(w)).join("  "));
for (const r of rows) console.log(line(r));
console.log(
	`\ntarget ≤ ${TARGET}×: ${ratio <= TARGET ? "met" : "NOT met"} (median ratio ${ratio.toFixed(2)}×, node ${process.version})`,
);
process.exitCode = ratio <= TARGET ? 0 : 1;
