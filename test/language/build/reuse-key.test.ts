/**
 * `reuse:` on a node: `ignore-tree` or `never` on agents and swarms, `never` on checks and questions, a
 * wrong value a `key-type` fault at the value naming what it takes, and the key unknown on other kinds.
 */
import { describe, expect, it } from "vitest";
import { loadRoster } from "../../../src/agents/index.ts";
import { catalogueOptions, checkFlowText } from "../../../src/load/index.ts";
import { flowOf } from "../../helpers/run.ts";

const check = (nodes: string, sections: Record<string, string> = {}) => {
	const text = flowOf("r", nodes, sections);
	return checkFlowText(text, "/tmp/r.md", loadRoster("/tmp", { project: false }), catalogueOptions("/tmp", {}));
};

describe("reuse:", () => {
	it("takes ignore-tree or never on an agent, and keeps it on the node", () => {
		const ok = check(
			"  - id: a\n    agent: scout\n    reuse: ignore-tree\n  - id: b\n    agent: scout\n    reuse: never\n",
			{
				a: "A.",
				b: "B.",
			},
		);
		expect(ok.faults).toEqual([]);
		expect(ok.value?.nodes.map((n) => n.reuse?.value)).toEqual(["ignore-tree", "never"]);
	});

	it("is a key-type fault at the value for anything else, naming what the kind takes", () => {
		const bad = check("  - id: a\n    agent: scout\n    reuse: sometimes\n", { a: "A." });
		expect(bad.faults.map((f) => [f.code, f.line, f.column, f.expected])).toEqual([
			["key-type", 8, 12, ["ignore-tree", "never"]],
		]);
		const onCheck = check("  - id: t\n    check: t.sh\n    reuse: ignore-tree\n");
		expect(onCheck.faults.filter((f) => f.code === "key-type").map((f) => f.expected)).toEqual([["never"]]);
	});

	it("is no key of a block: its children are reused, not the block", () => {
		const onMap = check("  - id: m\n    map: [x]\n    reuse: never\n    do:\n      - id: a\n        agent: scout\n", {
			a: "A.",
		});
		expect(onMap.faults.map((f) => f.code)).toContain("unknown-key");
	});
});
