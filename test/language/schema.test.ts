/**
 * The frontmatter's JSON Schema: generated from the kind modules' keys, so every key of the language is
 * in it; every shipped flow (and every flow of the test corpus) validates; an unknown key is rejected at
 * flow and at node level, as the checker rejects it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/agents/index.ts";
import { KIND_KEYS, LANGUAGE, NODE_KEYS } from "../../src/kinds/language.ts";
import { FLOW_KEYS } from "../../src/language/build/index.ts";
import { readFlow } from "../../src/language/read/index.ts";
import { frontmatterSchema } from "../../src/language/schema.ts";
import { durationLength } from "../../src/language/syntax/index.ts";
import { head } from "./helpers.ts";
import { validate } from "./json-schema-lite.ts";

const schema = frontmatterSchema(LANGUAGE);
const defs = schema.$defs as Record<string, { properties?: Record<string, { description?: string }> }>;
const nodeDefs = Object.entries(defs).filter(([name]) => name.startsWith("node-"));

/** The frontmatter of a flow text as plain data. */
function frontmatter(text: string, file = "t.md"): unknown {
	const read = readFlow(text, file);
	if (!read.value) throw new Error(`${file} does not read: ${read.faults[0]?.message}`);
	return read.value.yaml.toJS();
}

const mdFiles = (dir: string) =>
	readdirSync(dir)
		.filter((f) => f.endsWith(".md"))
		.map((f) => join(dir, f));

describe("the schema cannot drift from the key tables", () => {
	it("has every flow key, with a description", () => {
		const props = schema.properties as Record<string, { description?: string }>;
		for (const key of FLOW_KEYS) expect(props[key]?.description, key).toBeTruthy();
		expect(Object.keys(props).sort()).toEqual([...FLOW_KEYS].sort());
	});

	it("has a node definition per kind key, holding the key, and every key of its kind with a description", () => {
		for (const kindKey of KIND_KEYS) {
			const def = defs[`node-${kindKey}`];
			expect(def?.properties?.[kindKey]?.description, kindKey).toBeTruthy();
		}
		const written = new Set(nodeDefs.flatMap(([, def]) => Object.keys(def.properties ?? {})));
		for (const [kind, keys] of Object.entries(NODE_KEYS))
			for (const key of keys) expect(written.has(key), `${kind}.${key}`).toBe(true);
		for (const [name, def] of nodeDefs)
			for (const [key, p] of Object.entries(def.properties ?? {})) expect(p.description, `${name}.${key}`).toBeTruthy();
	});
});

describe("the schema accepts the flows that check", () => {
	const files = [
		...mdFiles(join(PACKAGE_ROOT, "flows")),
		...mdFiles(join(PACKAGE_ROOT, "test", "fixtures", "combo")),
		join(PACKAGE_ROOT, "test", "fixtures", "render", "small.md"),
	];
	for (const file of files) {
		it(file.slice(PACKAGE_ROOT.length + 1), () => {
			expect(validate(schema, frontmatter(readFileSync(file, "utf8"), file))).toEqual([]);
		});
	}
});

describe("the schema rejects what the checker rejects by shape", () => {
	const ok = head("  - id: look\n    agent: scout\n    reads: [input]\n    timeout: 1h30m\n");
	const rejects = (text: string) => expect(validate(schema, frontmatter(text)).length).toBeGreaterThan(0);

	it("a well-formed flow validates", () => {
		expect(validate(schema, frontmatter(ok))).toEqual([]);
	});

	it("an unknown key at flow level", () => rejects(ok.replace("input: string", "input: string\nmodle: a/b")));
	it("an unknown key at node level", () => rejects(ok.replace("reads: [input]", "raeds: [input]")));
	it("a key of another kind", () => rejects(ok.replace("reads: [input]", "reads: [input]\n    max: 2")));
	it("twin keys", () => rejects(ok.replace("agent: scout", "agent: scout\n    agent-from: plan.output.worker")));
	it("a map-from without max", () =>
		rejects(head("  - id: m\n    map-from: plan.output.x\n    do:\n      - id: a\n        agent: scout\n")));
	it("a duration out of order", () => rejects(ok.replace("1h30m", "30m1h")));
	it("a verdict with an output", () => rejects(ok.replace("reads: [input]", "verdict: l\n    output: string")));
	it("a reserved id", () => rejects(ok.replace("id: look", "id: input")));
	it("both nodes and chain", () => rejects(ok.replace("input: string", 'input: string\nchain: "@scout"')));
	it("an ask with one option", () => rejects(head("  - id: go\n    ask: Which?\n    options: [only]\n")));

	it("accepts the duration forms the language reads, and refuses the rest", () => {
		const duration = { $ref: "#/$defs/duration", $defs: defs };
		for (const d of ["90s", "10m", "1h30m", "2h15m30s", "500ms", "1d", "1m30s500ms"])
			expect(validate(duration, d), d).toEqual([]);
		for (const d of ["", "0s", "1.5h", "30m1h", "1h1h", "10", "10 m", "01m", "1mss"])
			expect(validate(duration, d).length, d).toBeGreaterThan(0);
	});

	it("says yes to a duration exactly when the duration parser reads its form (its length, at most 24d, is the checker's)", () => {
		const duration = { $ref: "#/$defs/duration", $defs: defs };
		const text = fc.string({ unit: fc.constantFrom(..."0123456789dhms"), maxLength: 9 });
		fc.assert(
			fc.property(text, (d) => (validate(duration, d).length === 0) === Number.isSafeInteger(durationLength(d))),
			{ numRuns: 3000 },
		);
	});
});
