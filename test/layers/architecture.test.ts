/**
 * docs/architecture.md is a claim about the tree, and a doc no longer true is a bug: each claim it makes
 * that the tree can answer is checked here. Every path it names exists; its folder table names every
 * top-level folder of src/; its picture has the stages its text counts, each at a place that exists, and a
 * stage's own files import no later stage, and the language's and the engine's no kind; every run starts at
 * the run table's door; the files it lists as testing `node.kind === "<kind>"` are the files that do; every
 * name its vocabulary gives is a name the code uses.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/agents/index.ts";

const DOC = readFileSync(join(PACKAGE_ROOT, "docs/architecture.md"), "utf8");
const SRC = join(PACKAGE_ROOT, "src");

function sources(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
		e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
	);
}

/** The doc's section under `## title`, up to the next `## `. */
function section(title: string): string {
	const start = DOC.indexOf(`\n## ${title}\n`);
	if (start < 0) throw new Error(`docs/architecture.md has no section "${title}"`);
	const end = DOC.indexOf("\n## ", start + 1);
	return DOC.slice(start, end < 0 ? undefined : end);
}

/** The code block of the stage picture. */
const PICTURE = DOC.slice(DOC.indexOf("```\n") + 4, DOC.indexOf("\n```", DOC.indexOf("```\n") + 4));

const NUMBERS: Record<string, number> = { four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10 };

describe("docs/architecture.md", () => {
	it("names only paths that exist", () => {
		const named = [...DOC.matchAll(/`((?:src|test|docs|fuzz|bench|agents|flows|grammar)\/[^`\s]*)`/g)]
			.map((m) => m[1] as string)
			.filter((p) => !p.includes("<") && !p.includes("*"));
		expect(named.length).toBeGreaterThan(40);
		expect(named.filter((p) => !existsSync(join(PACKAGE_ROOT, p.replace(/#.*$/, ""))))).toEqual([]);
	});

	it("lists every top-level folder of src/ in its folder table, and no other", () => {
		const table = section("Folders");
		const listed = new Set([...table.matchAll(/`src\/([a-z-]+)\/`/g)].map((m) => m[1] as string));
		const folders = readdirSync(SRC).filter((e) => statSync(join(SRC, e)).isDirectory());
		expect([...listed].sort()).toEqual(folders.sort());
	});

	it("draws as many stages as it counts, in the order it names, each at a place that exists", () => {
		const drawn = [...PICTURE.matchAll(/──([a-z]+)─*►/g)].map((m) => m[1]);
		expect(drawn).toEqual(["read", "build", "check", "render", "run", "record", "replay", "report"]);
		const counted = /in (\w+) stages/.exec(DOC)?.[1] ?? "";
		expect(NUMBERS[counted]).toBe(drawn.length);
		const order = /The stages in order: ([a-z, ]+)\./.exec(DOC)?.[1]?.split(/, /);
		expect(order).toEqual(drawn);
		const places = [...PICTURE.matchAll(/\b(src\/[\w/.-]+)/g)].map((m) => m[1] as string);
		expect(places).toHaveLength(drawn.length);
		for (const p of places) expect(existsSync(join(PACKAGE_ROOT, p)), p).toBe(true);
	});

	it("is right that a stage's own files import no later stage", () => {
		const stages = ["language/read", "language/build", "language/check", "language/render", "engine", "runs", "report"];
		const stageOf = (file: string) => stages.findIndex((s) => file.startsWith(`${s}/`));
		const later: string[] = [];
		for (const f of sources(SRC)) {
			const from = relative(SRC, f).split(sep).join("/");
			const a = stageOf(from);
			if (a < 0) continue;
			for (const m of readFileSync(f, "utf8").matchAll(/\bfrom\s*["'](\.{1,2}\/[^"']+)["']/g)) {
				const to = relative(SRC, resolve(dirname(f), m[1] as string))
					.split(sep)
					.join("/");
				if (stageOf(to) > a) later.push(`${from} → ${to}`);
			}
		}
		expect(later).toEqual([]);
	});

	it("is right that no file of the language or the engine imports a kind (type-only imports too)", () => {
		const kinds: string[] = [];
		for (const f of sources(SRC)) {
			const from = relative(SRC, f).split(sep).join("/");
			if (!/^(language|engine)\//.test(from)) continue;
			for (const m of readFileSync(f, "utf8").matchAll(/\b(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)) {
				const to = relative(SRC, resolve(dirname(f), m[1] as string))
					.split(sep)
					.join("/");
				if (to.startsWith("kinds/")) kinds.push(`${from} → ${to}`);
			}
		}
		expect(kinds).toEqual([]);
	});

	it("is right that every run starts at the run table's door: only `runFlow` there calls `runFlowWith`", () => {
		expect(section("Doors and layers").replace(/\s+/g, " ")).toContain(
			"`runFlow` of `src/kinds/run.ts` is the engine's `runFlowWith`",
		);
		const callers = ["src", "test", "bench", "fuzz", "scripts"]
			.flatMap((d) => sources(join(PACKAGE_ROOT, d)))
			.map((f) => relative(PACKAGE_ROOT, f).split(sep).join("/"))
			.filter((f) => /\brunFlowWith\b/.test(readFileSync(join(PACKAGE_ROOT, f), "utf8")));
		expect(callers.sort()).toEqual(["src/engine/run.ts", "src/kinds/run.ts", "test/layers/architecture.test.ts"]);
	});

	it("lists the files outside the kind folders that compare a node's kind with a kind's name", () => {
		const adding = section("Adding a node kind");
		const start = adding.indexOf('(`node.kind === "map"`)');
		const listed = [...adding.slice(start).matchAll(/^- `(src\/[^`]+)`$/gm)].map((m) => m[1] as string);
		const kinds = "agent|choice|parallel|map|loop|check|commit|ask|flow|swarm|wait";
		const test = new RegExp(`\\b(?:node|n)\\.kind (?:===|!==) "(?:${kinds})"`);
		const found = sources(SRC)
			.map((f) => relative(PACKAGE_ROOT, f).split(sep).join("/"))
			.filter((f) => !f.startsWith("src/kinds/") && test.test(readFileSync(join(PACKAGE_ROOT, f), "utf8")));
		expect(listed).toEqual(found.sort());
	});

	it("gives in its vocabulary only names the code uses", () => {
		const rows = section("Vocabulary")
			.split("\n")
			.filter(
				(l) => l.startsWith("| ") && !l.startsWith("| word") && !l.startsWith("| ---") && !l.startsWith("| shape"),
			);
		expect(rows.length).toBeGreaterThan(20);
		const code = sources(SRC)
			.map((f) => readFileSync(f, "utf8"))
			.join("\n");
		const missing: string[] = [];
		for (const row of rows) {
			const cells = row.split(" | ");
			for (const cell of [cells[0], cells.at(-1)]) {
				for (const [, name] of (cell ?? "").matchAll(/`([A-Za-z_][\w.]*)`/g)) {
					for (const part of (name as string).split("."))
						if (!new RegExp(`\\b${part}\\b`).test(code)) missing.push(`${name} (${cells[0]?.slice(2)})`);
				}
			}
		}
		expect(missing).toEqual([]);
	});

	it("names the doors that exist, and the kind tables they are handed", () => {
		const doors = section("Doors and layers");
		for (const door of ["src/language/index.ts", "src/engine/index.ts", "src/kinds/language.ts", "src/kinds/run.ts"]) {
			expect(doors).toContain(`\`${door}\``);
			expect(existsSync(join(PACKAGE_ROOT, door)), door).toBe(true);
		}
	});
});
