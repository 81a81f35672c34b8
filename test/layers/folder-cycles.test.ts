/**
 * Top-level folders of src/ form layers: a folder may import a lower one, never the other way round. A
 * cycle between folders (flow → chain → flow) means neither can be read, tested or loaded without the
 * other, and is how a check-only entry ends up loading the evaluator. This walks every relative import
 * of src/**\/*.ts (type-only and re-exports too: they tie the folders just the same) and fails on any
 * cycle between top-level folders, naming the files that make each edge.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/agents/index.ts";

/**
 * Cycles that exist and are not fixed yet, each as its folders in order, with why. Empty: every cycle
 * found is a failure. A cycle fixed must leave this list (the test says so).
 */
const KNOWN: readonly { cycle: readonly string[]; why: string }[] = [];

const SRC = join(PACKAGE_ROOT, "src");

function sources(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
		e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
	);
}

/** Relative specifiers a file imports or re-exports, static or dynamic. */
function relativeSpecifiers(text: string): string[] {
	return [...text.matchAll(/\b(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)].map((m) => m[1]);
}

/** Folder → folder edges, each with the imports that make it (`src/a/x.ts → src/b/y.ts`). */
function folderEdges(files: ReadonlyMap<string, string>): Map<string, Map<string, string[]>> {
	const edges = new Map<string, Map<string, string[]>>();
	for (const [file, text] of files) {
		const from = file.split("/")[0];
		for (const spec of relativeSpecifiers(text)) {
			const target = relative(SRC, resolve(SRC, dirname(file), spec))
				.split(sep)
				.join("/");
			const to = target.split("/")[0];
			// src/index.ts (the library's door) sits above every folder; a file at src/'s top is no folder.
			if (!target.includes("/") || to === from || to.startsWith("..")) continue;
			const out = edges.get(from) ?? new Map<string, string[]>();
			edges.set(from, out);
			out.set(to, [...(out.get(to) ?? []), `src/${file} → src/${target}`]);
		}
	}
	return edges;
}

/** Every elementary cycle's folders, each turned to start at its smallest name (so each is found once). */
function folderCycles(edges: ReadonlyMap<string, ReadonlyMap<string, string[]>>): string[][] {
	const found = new Map<string, string[]>();
	const walk = (start: string, at: string, path: string[]) => {
		for (const next of edges.get(at)?.keys() ?? []) {
			if (next === start) {
				found.set(path.join(" → "), path);
				continue;
			}
			// Only folders after `start` in name order: each cycle is walked once, from its smallest folder.
			if (next > start && !path.includes(next)) walk(start, next, [...path, next]);
		}
	};
	for (const start of [...edges.keys()].sort()) walk(start, start, [start]);
	return [...found.values()];
}

const files = new Map(sources(SRC).map((f) => [relative(SRC, f).split(sep).join("/"), readFileSync(f, "utf8")]));
const edges = folderEdges(files);
const cycles = folderCycles(edges);
const key = (cycle: readonly string[]) => cycle.join(" → ");

describe("layers of src/", () => {
	it("no two top-level folders import each other, directly or round a ring", () => {
		const known = new Set(KNOWN.map((k) => key(k.cycle)));
		const shown = cycles
			.filter((c) => !known.has(key(c)))
			.map((c) => {
				const hops = c.map((from, i) => {
					const to = c[(i + 1) % c.length];
					const by = edges.get(from)?.get(to) ?? [];
					return `  ${from} → ${to}: ${by.slice(0, 3).join(", ")}${by.length > 3 ? ` and ${by.length - 3} more` : ""}`;
				});
				return `${key(c)} → ${c[0]}\n${hops.join("\n")}`;
			});
		expect(shown).toEqual([]);
	});

	it("every cycle listed as known still exists (a fixed one leaves the list)", () => {
		const now = new Set(cycles.map(key));
		expect(KNOWN.map((k) => key(k.cycle)).filter((k) => !now.has(k))).toEqual([]);
	});

	it("finds a cycle when there is one (the walk itself can fail)", () => {
		const made = folderEdges(
			new Map([
				["a/x.ts", 'import { y } from "../b/y.ts";'],
				["b/y.ts", 'export type { Z } from "../c/index.ts";'],
				["c/index.ts", 'const a = await import("../a/x.ts");'],
				["d/w.ts", 'import { x } from "../a/x.ts";\nimport "./local.ts";'],
			]),
		);
		expect(folderCycles(made)).toEqual([["a", "b", "c"]]);
		expect(made.get("d")?.get("a")).toEqual(["src/d/w.ts → src/a/x.ts"]);
	});
});
