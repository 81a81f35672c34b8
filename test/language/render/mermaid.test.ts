/**
 * The Mermaid graph: subgraphs for blocks, a dotted arrow back for a loop's `until`, conditions on a
 * choice's arrows, numbered ids, and labels whose markup is written as Mermaid's entity codes.
 */
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../../src/agents/index.ts";
import { checkFlowFile } from "../../../src/load/index.ts";
import { escapeLabel, mermaidOf } from "../../../src/language/render/index.ts";
import { flowFolder, head, judge, shipped } from "../helpers.ts";

const small = checkFlowFile(`${PACKAGE_ROOT}/test/fixtures/render/small.md`, shipped).value;
if (!small) throw new Error("test/fixtures/render/small.md must check");

describe("mermaid", () => {
	it("draws a loop with its until on a dotted arrow back, and a choice with its conditions on arrows", () => {
		expect(mermaidOf(small)).toBe(`flowchart TD
  n1["plan<br/>planner"]
  subgraph n2["fix · loop · max 2"]
    n3["code<br/>coder"]
    n4["review<br/>reviewer<br/>on-fail: continue"]
    n3 --> n4
    n4 -.->|"until review.output.approved #38;#38; size(fix.ledger) == 0"| n3
  end
  subgraph n5["gate · choice"]
    n6{"gate"}
    n7["tests<br/>check"]
    n6 -->|"ready: plan.output.status == #34;ready#34;"| n7
    n8["more<br/>ask"]
    n6 -->|"fix.output.converged"| n8
    n6 -->|"default"| n9(["nothing"])
  end
  n1 --> n2
  n2 --> n5
`);
	});

	it("titles a map with its max and concurrency, and a parallel's branches as subgraphs", () => {
		const text =
			head(
				"  - id: plan\n    agent: planner\n    output: { tasks: [string] }\n  - id: work\n    map-from: plan.output.tasks\n    max: 4\n    concurrency: 2\n    do:\n      - id: act\n        agent: scout\n  - id: both\n    parallel:\n      docs:\n        - id: d\n          agent: scout\n      tests:\n        - id: t2\n          agent: reviewer\n",
			) + "\n## plan\nx\n\n## act\nx\n\n## d\nx\n\n## t2\nx\n";
		const graph = mermaidOf(judge(text).value as never);
		expect(graph).toContain('subgraph n2["work · map · max 4 · concurrency 2"]');
		expect(graph).toContain(
			'subgraph n4["both · parallel"]\n    subgraph n5["docs"]\n      n6["d<br/>scout"]\n    end\n    subgraph n7["tests"]',
		);
		expect(graph).toContain("  n1 --> n2\n  n2 --> n4\n");
	});

	it("shows a call's callee and input in its box", () => {
		const sub = "---\nname: sub\ndescription: d\ninput: string\nnodes:\n  - id: s\n    agent: scout\n---\n\n## s\nx\n";
		const r = flowFolder({ t: head("  - id: end\n    flow: sub\n    input: input\n"), sub }).judgeOne("t");
		expect(r.faults).toEqual([]);
		expect(mermaidOf(r.value as never)).toBe('flowchart TD\n  n1["end<br/>flow sub<br/>input: input"]\n');
	});

	it("escapes markup as entity codes, so no label ends early or reads as HTML", () => {
		expect(escapeLabel(`a && "b" <c> #1 | d`)).toBe("a #38;#38; #34;b#34; #60;c#62; #35;1 #124; d");
	});
});
