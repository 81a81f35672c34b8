/**
 * A node kind is one module (issue 15): the registry names every kind of the `FlowNode` union, and what
 * the builder, the JSON Schema, the checker, the plan, Mermaid and the report say about a kind comes from
 * its module. Nodes of every kind are taken from generated flows that check (the fuzzer's generator, whose
 * own kind list is the registry's), so each kind is tested on real nodes, not on a hand-made one.
 */
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { generateFlow, NODE_KINDS as FUZZ_KINDS } from "../../fuzz/flows.ts";
import { Rng } from "../../fuzz/rng.ts";
import { roster } from "../../fuzz/targets.ts";
import { PACKAGE_ROOT } from "../../src/agents/index.ts";
import { childrenOf, type FlowNode } from "../../src/language/ast.ts";
import type { CheckedFlow } from "../../src/language/check/index.ts";
import {
	type GraphKit,
	KEY_OWNER,
	KIND_KEYS,
	KIND_OF,
	KINDS,
	kindOf,
	LANGUAGE,
	type MermaidKit,
	NODE_KEYS,
	NODE_KINDS,
} from "../../src/kinds/language.ts";
import { catalogueOptions, checkFlowText } from "../../src/load/index.ts";
import { mermaidOf, planOf } from "../../src/language/render/index.ts";
import type { PlanNodeRow } from "../../src/language/render/plan.ts";
import { RUNNERS } from "../../src/kinds/run.ts";
import { frontmatterSchema } from "../../src/language/schema.ts";
import { graphSvg } from "../../src/report/graph.ts";

/** Compile-time: the registry and the run table name exactly the kinds of the union. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const registryCoversUnion: Same<keyof typeof KINDS, FlowNode["kind"]> = true;
const runnersCoverUnion: Same<keyof typeof RUNNERS, FlowNode["kind"]> = true;

/**
 * The keys each kind takes besides `id`, its kind key and `on-fail`, as docs/flows.md lists them, written
 * out by hand: the registry's tables must agree with the language, not with themselves.
 */
const KEYS_BY_KIND: Record<FlowNode["kind"], readonly string[]> = {
	agent: [
		"among",
		"reads",
		"output",
		"memory",
		"verdict",
		"retry",
		"timeout",
		"model",
		"thinking",
		"tools",
		"skills",
		"handoff",
		"pane",
		"openInHerdr",
		"reuse",
	],
	choice: ["default"],
	parallel: ["copies", "fail-fast", "join"],
	map: ["do", "max", "concurrency", "copies", "fail-fast", "ledger", "join"],
	loop: ["do", "max", "give-up", "carry", "ledger"],
	check: ["timeout", "reuse"],
	commit: [],
	ask: ["options", "confirm", "enough", "default", "reads", "timeout", "reuse"],
	flow: ["input"],
	swarm: ["rounds", "claims-from", "until", "reads", "timeout", "reuse"],
	wait: ["max"],
};

/** The shipped flows are the callees, and nothing of a project or of `~/.pi` is read (as fuzz/targets.ts). */
const nowhere = join(tmpdir(), "pi-flows-kinds-nowhere");
const shipped = catalogueOptions(nowhere, { user: false, project: false }, { PI_CODING_AGENT_DIR: join(nowhere, "a") });
const cache = new Map();

/** One checked flow holding each kind at its top, from the fuzzer's generator without slips. */
function samples(): Map<FlowNode["kind"], { node: FlowNode; flow: CheckedFlow }> {
	const found = new Map<FlowNode["kind"], { node: FlowNode; flow: CheckedFlow }>();
	for (let seed = 0; seed < 400 && found.size < NODE_KINDS.length; seed++) {
		const text = generateFlow(new Rng(seed), "gen", 1 + (seed % 12), 0).text;
		const judged = checkFlowText(text, "gen.md", roster, { ...shipped, cache });
		const flow = judged.value;
		if (!flow) continue;
		for (const node of flow.nodes) if (!found.has(node.kind)) found.set(node.kind, { node, flow });
	}
	return found;
}

const SAMPLES = samples();
const schema = frontmatterSchema(LANGUAGE);
const defs = schema.$defs as Record<string, { properties: Record<string, unknown>; required: string[] }>;

describe("the registry of node kinds", () => {
	it("names every kind of the union once, in the builder's, the fuzzer's and the run's tables alike", () => {
		expect(registryCoversUnion && runnersCoverUnion).toBe(true);
		expect([...SAMPLES.keys()].sort()).toEqual([...NODE_KINDS].sort());
		expect(Object.keys(RUNNERS).sort()).toEqual([...NODE_KINDS].sort());
		for (const kind of NODE_KINDS) expect(KINDS[kind].kind).toBe(kind);
		expect(NODE_KEYS).toEqual(KEYS_BY_KIND);
		// The kinds in the language's order, as the hand-written table lists them.
		expect(NODE_KINDS).toEqual(Object.keys(KEYS_BY_KIND));
		// The language's order of kind keys: each literal, then its `-from` twin.
		expect(KIND_KEYS).toEqual([
			"agent",
			"agent-from",
			"choice",
			"parallel",
			"map",
			"map-from",
			"loop",
			"check",
			"commit",
			"ask",
			"ask-from",
			"flow",
			"swarm",
			"wait",
			"wait-from",
		]);
		for (const key of KIND_KEYS) expect(NODE_KINDS).toContain(KIND_OF[key]);
		expect(KIND_OF["agent-from"]).toBe("agent");
		expect(KIND_OF["map-from"]).toBe("map");
		expect(KIND_OF["ask-from"]).toBe("ask");
		// A key several kinds take is said to belong to the first kind that lists it.
		expect(KEY_OWNER.get("timeout")).toBe("agent nodes");
		expect(KEY_OWNER.get("give-up")).toBe("loop nodes");
	});

	it("the fuzzer's generator writes every kind key of the language", () => {
		const written = new Set<string>();
		for (let seed = 0; seed < 400; seed++) {
			const text = generateFlow(new Rng(seed), "gen", 1 + (seed % 12), 0).text;
			for (const m of text.matchAll(/^\s*(?:- )?([a-z][a-z-]*):/gm)) written.add(m[1] as string);
		}
		const kindKeys = [
			"agent",
			"agent-from",
			"choice",
			"parallel",
			"map",
			"map-from",
			"loop",
			"check",
			"commit",
			"ask",
			"ask-from",
			"flow",
			"swarm",
			"wait",
			"wait-from",
		];
		expect(kindKeys.filter((k) => !written.has(k))).toEqual([]);
		// The generator draws from its own list, which must be the language's kind keys.
		expect([...FUZZ_KINDS].sort()).toEqual([...kindKeys].sort());
	});

	for (const kind of [
		"agent",
		"choice",
		"parallel",
		"map",
		"loop",
		"check",
		"commit",
		"ask",
		"flow",
		"swarm",
		"wait",
	] as const) {
		it(`${kind}: its keys, schema, output type, plan row, Mermaid and report drawing come from its module`, () => {
			const module = KINDS[kind];
			const sample = SAMPLES.get(kind);
			if (!sample) throw new Error(`no generated flow holds a ${kind} node`);
			const { node, flow } = sample;
			// Keys and schema: one node definition per kind key, its properties the module's own schemas.
			expect(Object.keys(module.keys)).toEqual(KEYS_BY_KIND[kind]);
			for (const k of module.kindKeys) {
				const def = defs[`node-${k.key}`];
				expect(def, `schema entry for ${k.key}`).toBeDefined();
				expect(def.properties[k.key]).toBe(k.schema);
				expect(def.required).toEqual(["id", k.key, ...(k.requires ?? [])]);
				for (const [key, s] of Object.entries(module.keys))
					if (!(k.excludes ?? []).includes(key)) expect(def.properties[key]).toBe(s);
			}
			// Retry: only the kind with no refusal takes it.
			expect(module.noRetry === undefined).toBe(kind === "agent");
			// Output type: what the kind gives by itself is what the checker recorded.
			const own = kindOf(node).output(node);
			if (own) expect(flow.types.get(node.id.value)).toEqual(own);
			// Bodies: the module's are the AST's children.
			expect(
				kindOf(node)
					.bodies(node)
					.flatMap((b) => b.body),
			).toEqual(childrenOf(node));
			// Plan: the row of this node says what it runs, from the module.
			const row = planOf(flow, { file: "gen.md" }).find((r) => r.row === "node" && r.path === node.path) as PlanNodeRow;
			expect(row.what.trim()).not.toBe("");
			expect(row.what.startsWith(kind === "flow" ? "flow" : kind)).toBe(true);
			// Mermaid: the module draws the node (a box or a subgraph) and names it.
			const out: string[] = [];
			let n = 0;
			const kit: MermaidKit = {
				flow,
				indent: "",
				onFail: "",
				out,
				next: () => `n${++n}`,
				label: (...parts) => `"${parts.join("<br/>")}"`,
				seq: () => ({}),
				subgraph: (title, _indent, body) => {
					out.push(`subgraph ${title.join(" · ")}`);
					body("  ", "s");
					return "s";
				},
				box: (lines) => {
					out.push(`box ${[node.id.value, ...lines].join(" | ")}`);
					return "b";
				},
			};
			expect(kindOf(node).mermaid(node, kit)).not.toBe("");
			expect(out.join("\n")).toMatch(/\S/);
			expect(mermaidOf(flow)).toContain(node.id.value);
			// Report: the module lays the node out as a leaf with a detail line or a titled block.
			const drawn: string[] = [];
			const g: GraphKit<string> = {
				flow,
				address: node.path,
				onFail: "",
				facts: "",
				leaf: (detail) => `leaf ${detail}`,
				block: (line, notes, body) => `block ${line} ${notes.join(" ")} ${body}`,
				sequence: (nodes) => nodes.map((x) => x.id.value).join(","),
				side: (parts) => parts.join(" | "),
				branch: (label, body) => `${label}: ${body}`,
				nothing: () => "nothing",
			};
			drawn.push(kindOf(node).graph(node, g));
			expect(drawn[0]).toMatch(/^(leaf|block) \S/);
			expect(graphSvg(flow, new Map())).toContain(`data-node="${node.path}"`);
			// Dry runs: what the kind does is said, and docs/runs.md says it in the same words.
			expect(RUNNERS[kind].dry.trim()).not.toBe("");
		});
	}

	it("docs/flows.md teaches every kind, under Nodes", () => {
		const doc = readFileSync(join(PACKAGE_ROOT, "docs", "flows.md"), "utf8");
		for (const kind of NODE_KINDS) expect(doc).toContain(`### \`${KINDS[kind].kindKeys[0].key}\``);
	});

	it("docs/runs.md lists what each kind does in a dry run, in the run table's words", () => {
		const doc = readFileSync(join(PACKAGE_ROOT, "docs", "runs.md"), "utf8");
		for (const kind of NODE_KINDS) expect(doc).toContain(`| \`${kind}\` | ${RUNNERS[kind].dry} |`);
	});

	it("a kind's visits are a model's turns exactly when its run half spawns a subagent", () => {
		const spawns = (kind: string) =>
			/\bworld\.options\.spawn\(/.test(readFileSync(join(PACKAGE_ROOT, "src", "kinds", kind, "run.ts"), "utf8"));
		expect(NODE_KINDS.filter((k) => LANGUAGE.modelTurns.has(k))).toEqual(NODE_KINDS.filter(spawns));
		expect(NODE_KINDS.filter(spawns)).toContain("agent");
	});

	it("a runner says it reuses exactly when its run half goes through reuseOrRun", () => {
		const calls = (kind: string) =>
			/\breuseOrRun\(/.test(readFileSync(join(PACKAGE_ROOT, "src", "kinds", kind, "run.ts"), "utf8"));
		expect(NODE_KINDS.filter((k) => RUNNERS[k].reuses)).toEqual(NODE_KINDS.filter(calls));
		expect(NODE_KINDS.filter(calls)).toContain("agent");
	});

	it("loads neither the evaluator nor pi: the kind modules' imports stay in the language", () => {
		const seen = new Set<string>();
		const visit = (file: string) => {
			if (seen.has(file)) return;
			seen.add(file);
			const text = readFileSync(file, "utf8");
			// Value imports and re-exports only: `import type` is erased and loads nothing.
			for (const m of text.matchAll(/^(?:import|export) (?!type )([^;]*?) from "(\.[^"]+)";/gms)) {
				const names = m[1].match(/\{([^}]*)\}/)?.[1];
				if (names?.split(",").every((x) => !x.trim() || x.trim().startsWith("type "))) continue;
				visit(normalize(join(dirname(file), m[2])));
			}
		};
		visit(join(PACKAGE_ROOT, "src", "kinds", "language.ts"));
		const files = [...seen].map((f) => f.slice(PACKAGE_ROOT.length + 1));
		expect(files).toContain("src/kinds/agent/language.ts");
		expect(files).toContain("src/language/check/sequence.ts");
		expect(
			files.filter(
				(f) => f.startsWith("src/engine/") || /^src\/kinds\/(\w+\/)?run\.ts$/.test(f) || f.startsWith("src/pi/"),
			),
		).toEqual([]);
	});
});
