/**
 * No circle of value imports over 4 files anywhere in src/. A circle means none of its modules can be
 * loaded, read or tested without all the others, and a binding read while the circle loads is one not yet
 * initialised (the kind table once stopped with "Cannot access 'mapKind' before initialization"). The
 * folder test (folder-cycles.test.ts) sees only top-level folders; this one runs Tarjan's strongly
 * connected components over every file's static value imports and re-exports (`import type` and
 * `{ type A }`-only lists tie no modules at run time, so they are left out), at every depth.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/agents/index.ts";

/** The largest circle allowed: a module with its one or two helpers is still read as one. */
const MOST = 4;

const SRC = join(PACKAGE_ROOT, "src");

function sources(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
		e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
	);
}

/**
 * The relative specifiers a file imports or re-exports as values: every static `import`/`export ... from`
 * and bare `import "./x.ts"`, less those whose names are all types.
 */
function valueSpecifiers(text: string): string[] {
	const out: string[] = [];
	for (const m of text.matchAll(
		/(?:^|\n)\s*(?:import|export)\s+(type\s+)?([^;]*?)\s*from\s*["'](\.{1,2}\/[^"']+)["']/g,
	)) {
		if (m[1]) continue;
		const names = m[2].trim();
		const list = /^\{([^}]*)\}$/.exec(names);
		const onlyTypes = list?.[1]
			.split(",")
			.map((n) => n.trim())
			.filter(Boolean)
			.every((n) => n.startsWith("type "));
		if (!onlyTypes) out.push(m[3]);
	}
	for (const m of text.matchAll(/(?:^|\n)\s*import\s*["'](\.{1,2}\/[^"']+)["']/g)) out.push(m[1]);
	return out;
}

/** Strongly connected components of a graph, by Tarjan's algorithm (iterative: src/ is deep). */
function stronglyConnected(graph: ReadonlyMap<string, readonly string[]>): string[][] {
	let next = 0;
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const found: string[][] = [];
	for (const root of graph.keys()) {
		if (index.has(root)) continue;
		const work: { v: string; i: number }[] = [{ v: root, i: 0 }];
		index.set(root, next);
		low.set(root, next++);
		stack.push(root);
		onStack.add(root);
		while (work.length > 0) {
			const top = work[work.length - 1];
			const edges = graph.get(top.v) ?? [];
			if (top.i < edges.length) {
				const w = edges[top.i++];
				if (!index.has(w)) {
					index.set(w, next);
					low.set(w, next++);
					stack.push(w);
					onStack.add(w);
					work.push({ v: w, i: 0 });
				} else if (onStack.has(w)) low.set(top.v, Math.min(low.get(top.v) as number, index.get(w) as number));
				continue;
			}
			work.pop();
			const parent = work[work.length - 1];
			if (parent) low.set(parent.v, Math.min(low.get(parent.v) as number, low.get(top.v) as number));
			if (low.get(top.v) === index.get(top.v)) {
				const component: string[] = [];
				let w: string;
				do {
					w = stack.pop() as string;
					onStack.delete(w);
					component.push(w);
				} while (w !== top.v);
				found.push(component.sort());
			}
		}
	}
	return found;
}

function importGraph(): Map<string, string[]> {
	const files = sources(SRC).map((f) => relative(SRC, f).split(sep).join("/"));
	const known = new Set(files);
	const graph = new Map<string, string[]>();
	for (const file of files) {
		const text = readFileSync(join(SRC, file), "utf8");
		const targets = valueSpecifiers(text)
			.map((spec) =>
				relative(SRC, resolve(SRC, dirname(file), spec))
					.split(sep)
					.join("/"),
			)
			.map((t) =>
				known.has(t) ? t : known.has(t.replace(/\.js$/, ".ts")) ? t.replace(/\.js$/, ".ts") : `${t}/index.ts`,
			)
			.filter((t) => known.has(t));
		graph.set(file, [...new Set(targets)]);
	}
	return graph;
}

describe("circles of value imports in src/", () => {
	it(`has none over ${MOST} files`, () => {
		const graph = importGraph();
		expect(graph.size).toBeGreaterThan(300);
		const large = stronglyConnected(graph)
			.filter((c) => c.length > MOST)
			.map((c) => `circle of ${c.length}: ${c.join(" ")}`);
		expect(large).toEqual([]);
	});

	it("finds a circle, and only value imports make one", () => {
		const g = new Map<string, string[]>([
			["a", ["b"]],
			["b", ["c"]],
			["c", ["a", "d"]],
			["d", []],
		]);
		expect(stronglyConnected(g).map((c) => c.join(""))).toEqual(["d", "abc"]);
		const text = [
			'import type { A } from "./a.ts";',
			'import { type B, type C } from "./b.ts";',
			'import { d, type E } from "./d.ts";',
			'export { f } from "./f.ts";',
			'export type { G } from "./g.ts";',
			'import "./h.ts";',
			"import {\n\tmany,\n\tlines,\n} from '../i.ts';",
		].join("\n");
		expect(valueSpecifiers(text).sort()).toEqual(["../i.ts", "./d.ts", "./f.ts", "./h.ts"]);
	});
});
