import { readdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FlowNode } from "../../src/language/ast.ts";
import type { CheckedFlow } from "../../src/language/index.ts";
import { graphSvg, type NodeSummary, parallelAddresses, strandOf } from "../../src/report/index.ts";
import { judge } from "../helpers/flows.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { FLOWS, shippedFlow } from "../flows/shipped.ts";
import { type El, one, parseHtml, select, text } from "./html.ts";

/** Every node address as the runtime writes it: a branch name after its parallel, a callee's nodes under their call. */
function addresses(flow: CheckedFlow, prefix = ""): string[] {
	const out: string[] = [];
	const walk = (nodes: readonly FlowNode[], at: string) => {
		for (const n of nodes) {
			const a = at ? `${at}/${n.id.value}` : n.id.value;
			out.push(a);
			if (n.kind === "parallel") for (const b of n.branches) walk(b.body, `${a}/${b.name.value}`);
			if (n.kind === "map" || n.kind === "loop") walk(n.body, a);
			if (n.kind === "choice") for (const body of [...n.cases.map((c) => c.body), n.otherwise]) walk(body, a);
			if (n.kind === "flow") {
				const callee = flow.callees.get(n.id.value);
				if (callee) out.push(...addresses(callee, a));
			}
		}
	};
	walk(flow.nodes, prefix);
	return out;
}

const graphOf = (flow: CheckedFlow, nodes: Map<string, NodeSummary> = new Map()): El =>
	one(parseHtml(graphSvg(flow, nodes)), "svg.graph");

let project: TempProject;
beforeAll(() => {
	project = tempProject();
});
afterAll(() => project.cleanup());

describe("the graph of every shipped flow", () => {
	const names = readdirSync(FLOWS)
		.filter((f) => f.endsWith(".md"))
		.map((f) => f.slice(0, -3));

	it.each(names)("%s: one shape per node, callees included, none reached before a run", (name) => {
		const flow = shippedFlow(project, name);
		const shapes = select(graphOf(flow), "rect.node");
		expect(shapes.map((s) => s.attrs["data-node"])).toEqual(addresses(flow));
		for (const s of shapes) {
			expect(s.attrs["data-state"]).toBe("never");
			expect(Number(s.attrs.width)).toBeGreaterThan(0);
		}
	});

	it("draws a call around its callee, and a choice's cases side by side", () => {
		const graph = graphOf(shippedFlow(project, "build-attended"));
		const nodes = select(graph, "rect.node").map((s) => s.attrs["data-node"]);
		expect(nodes).toEqual(
			expect.arrayContaining(["spec", "spec/ask", "spec/ask/gate/answer", "gate/work/deliver/work/pair/code"]),
		);
		expect(select(graph, "rect.branch").length).toBeGreaterThanOrEqual(4);
		expect(text(graph)).toContain("build: when go.output.yes");
		expect(text(graph)).toContain("nothing");
	});
});

describe("a flow with parallel branches", () => {
	const flow = judge(
		`---
name: t
description: d
input: string
nodes:
  - id: both
    parallel:
      left: [{ id: a, agent: scout }]
      right: [{ id: b, agent: reviewer }, { id: c, agent: scout }]
  - id: after
    agent: synthesiser
    reads: [both]
---

## a

A.

## b

B.

## c

C.

## after

After.
`,
	).value as CheckedFlow;

	it("keys each branch's nodes under the branch name, and colours them from the run", () => {
		expect(flow).toBeDefined();
		const summary = (state: NodeSummary["state"]): NodeSummary => ({
			state,
			visits: state === "never" ? 0 : 1,
			failed: state === "failed" ? 1 : 0,
			cut: state === "cut" ? 1 : 0,
		});
		const graph = graphOf(
			flow,
			new Map([
				["both", summary("failed")],
				["both/left/a", summary("done")],
				["both/right/b", summary("failed")],
				["both/right/c", summary("cut")],
			]),
		);
		const states = Object.fromEntries(
			select(graph, "rect.node").map((s) => [s.attrs["data-node"], s.attrs["data-state"]]),
		);
		expect(states).toEqual({
			both: "failed",
			"both/left/a": "done",
			"both/right/b": "failed",
			"both/right/c": "cut",
			after: "never",
		});
		expect(select(graph, "rect.branch")).toHaveLength(2);
		// Branches stand side by side: the right one starts to the right of the left one's end.
		const [left, right] = select(graph, "rect.branch").map((r) => [
			Number(r.attrs.x),
			Number(r.attrs.x) + Number(r.attrs.width),
		]);
		expect(right[0]).toBeGreaterThan(left[1]);
		// Sequences go down with an arrow between neighbours: b → c inside a branch, both → after outside.
		expect(select(graph, "line.edge")).toHaveLength(2);
	});

	it("puts each branch, and each map item, in its own strand", () => {
		const parallels = parallelAddresses(flow);
		expect([...parallels]).toEqual(["both"]);
		expect(strandOf("both/right/c", parallels)).toEqual({
			strand: "both/right",
			fan: "both",
			member: "right",
			depth: 0,
		});
		expect(strandOf("both", parallels)).toEqual({ strand: "", fan: "", member: "", depth: 0 });
		expect(strandOf("deliver#1/work[2]/code", parallels)).toEqual({
			strand: "deliver#1/work[2]",
			fan: "deliver#1/work",
			member: "[2]",
			depth: 0,
		});
		expect(strandOf("deliver#1/work", parallels)).toEqual({ strand: "", fan: "", member: "", depth: 1 });
		expect(strandOf("polish#2/review", parallels)).toEqual({ strand: "", fan: "", member: "", depth: 1 });
	});
});
