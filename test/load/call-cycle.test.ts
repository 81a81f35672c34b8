/**
 * A call cycle travels as data: the `call-cycle` fault carries its ring of flow names, and a caller that
 * judges a cyclic callee turns that ring to start at itself from the fault's `cycle`, never from its words.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadRoster } from "../../src/agents/index.ts";
import type { Fault } from "../../src/faults/index.ts";
import type { CheckedFlow } from "../../src/language/index.ts";
import { checkFlowText, type LoadOptions } from "../../src/load/index.ts";

const shipped = loadRoster(join(tmpdir(), "pi-flows-nowhere"), { user: false, project: false });
const flow = (name: string, callee: string) =>
	`---\nname: ${name}\ndescription: d\ninput: string\nnodes:\n  - id: to_${callee}\n    flow: ${callee}\n    input: input\n---\n`;

const dirs: string[] = [];
afterEach(() => {
	for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A folder of flows, each calling the next, judged as a catalogue would find them. */
function folder(files: Record<string, string>, cache?: Map<string, { value?: CheckedFlow; faults: Fault[] }>) {
	const dir = mkdtempSync(join(tmpdir(), "pi-flows-cycle-"));
	dirs.push(dir);
	for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, `${name}.md`), text);
	const file = (name: string) => join(dir, `${name}.md`);
	const options: LoadOptions = {
		flows: (name) => (name in files ? { file: file(name) } : undefined),
		flowNames: () => Object.keys(files),
		...(cache ? { cache } : {}),
	};
	return { file, judge: (name: string) => checkFlowText(files[name] as string, file(name), shipped, options) };
}

describe("a call cycle as data", () => {
	it("the fault carries the ring, from where it is seen", () => {
		const f = folder({ a: flow("a", "b"), b: flow("b", "c"), c: flow("c", "a") });
		const a = f.judge("a").faults;
		expect(a.map((x) => [x.code, x.cycle])).toEqual([["call-cycle", ["a", "b", "c", "a"]]]);
		const c = folder({ a: flow("a", "b"), b: flow("b", "c"), c: flow("c", "a") }).judge("c").faults;
		expect(c.map((x) => [x.code, x.cycle])).toEqual([["call-cycle", ["c", "a", "b", "c"]]]);
	});

	it("a fault that is no cycle carries none", () => {
		const f = folder({ a: flow("a", "nowhere") });
		expect(f.judge("a").faults.map((x) => [x.code, x.cycle])).toEqual([["unknown-flow", undefined]]);
	});

	it("the caller reads a callee's ring from its data, whatever its message says", () => {
		// The callee `b` was judged before (its judgement is cached): its cycle fault's message names no ring
		// at all, and its data says b → a → b. The caller `a` turns that ring to start at itself.
		const cache = new Map<string, { value?: CheckedFlow; faults: Fault[] }>();
		const f = folder({ a: flow("a", "b"), b: flow("b", "a") }, cache);
		const ring: Fault = {
			code: "call-cycle",
			file: f.file("b"),
			line: 7,
			column: 11,
			endLine: 7,
			endColumn: 12,
			offset: 0,
			endOffset: 1,
			path: "to_a.flow",
			message: "worded some other way: x → y",
			cycle: ["b", "a", "b"],
		};
		cache.set(f.file("b"), { faults: [ring] });
		const judged = f.judge("a").faults;
		expect(judged.map((x) => [x.code, x.cycle])).toEqual([["call-cycle", ["a", "b", "a"]]]);
		expect(judged[0]?.message).toContain("a → b → a");
	});
});
