/**
 * The cursor reader on half-written frontmatter: each case is a flow text with `|` where the cursor is, and
 * what the reader must say about it. Block and flow styles, compact lists, comments and unparsable text.
 */
import { describe, expect, it } from "vitest";
import { cursorAt } from "../../src/lsp/cursor.ts";

function at(marked: string) {
	const offset = marked.indexOf("|");
	const text = marked.replace("|", "");
	const before = text.slice(0, offset).split("\n");
	return cursorAt(text, before.length - 1, before[before.length - 1].length);
}

const pick = (marked: string) => {
	const c = at(marked);
	return (
		c && {
			at: c.at,
			role: c.role,
			key: c.key,
			list: c.list,
			ids: c.nodes.map((n) => n.id ?? "?"),
			prev: c.nodes[c.nodes.length - 1]?.prevId,
		}
	);
};

describe("the cursor reader", () => {
	it.each([
		[
			"a top-level key",
			"---\nname: x\nmo|\nnodes:\n---\n",
			{ at: "key", role: "top", key: undefined, list: false, ids: [], prev: undefined },
		],
		[
			"a node's value",
			"---\nnodes:\n  - id: a\n    agent: sc|\n---\n",
			{ at: "value", role: "node", key: "agent", list: false, ids: ["a"], prev: undefined },
		],
		[
			"a compact list's node",
			"---\nnodes:\n- id: a\n  agent: x\n- id: b\n  reads: [in|\n",
			{ at: "value", role: "node", key: "reads", list: true, ids: ["b"], prev: "a" },
		],
		[
			"a block list item of reads",
			"---\nnodes:\n  - id: a\n    reads:\n      # the question\n      - inp|\n",
			{ at: "value", role: "node", key: "reads", list: true, ids: ["a"], prev: undefined },
		],
		[
			"a new item of a body",
			"---\nnodes:\n  - id: l\n    loop: x\n    do:\n      - id: a\n        agent: x\n      - |\n",
			{ at: "key", role: "node", key: undefined, list: false, ids: ["l", "?"], prev: "a" },
		],
		[
			"a choice case's condition",
			"---\nnodes:\n  - id: c\n    choice:\n      - when: a.|\n",
			{ at: "value", role: "case", key: "when", list: false, ids: ["c"], prev: undefined },
		],
		[
			"a case's keys",
			"---\nnodes:\n  - id: c\n    choice:\n      - when: x\n        |\n",
			{ at: "key", role: "case", key: undefined, list: false, ids: ["c"], prev: undefined },
		],
		[
			"a parallel branch's node",
			"---\nnodes:\n  - id: p\n    parallel:\n      left:\n        - id: a\n          agent: |\n",
			{ at: "value", role: "node", key: "agent", list: false, ids: ["p", "a"], prev: undefined },
		],
		[
			"a swarm member in a block list",
			"---\nnodes:\n  - id: s\n    swarm:\n      - agent: |\n",
			{ at: "value", role: "member", key: "agent", list: false, ids: ["s"], prev: undefined },
		],
		[
			"a swarm member in flow style",
			"---\nnodes:\n  - id: s\n    swarm: [{ agent: scout, count: 2 }, { agent: |\n",
			{ at: "value", role: "member", key: "agent", list: false, ids: ["s"], prev: undefined },
		],
		[
			"a carry's next",
			"---\nnodes:\n  - id: l\n    carry: { first: a, next: l.|\n",
			{ at: "value", role: "carry", key: "next", list: false, ids: ["l"], prev: undefined },
		],
		[
			"a carry's keys in a block",
			"---\nnodes:\n  - id: l\n    carry:\n      |\n",
			{ at: "key", role: "carry", key: undefined, list: false, ids: ["l"], prev: undefined },
		],
		[
			"among in flow style",
			"---\nnodes:\n  - id: a\n    agent-from: p.output.who\n    among: [scout, |]\n",
			{ at: "value", role: "node", key: "among", list: true, ids: ["a"], prev: undefined },
		],
		[
			"a key inside an inline node",
			"---\nnodes: [{ id: a, agent: x }, { id: b, |\n",
			{ at: "key", role: "node", key: undefined, list: false, ids: ["b"], prev: "a" },
		],
	] as const)("reads %s", (_name, marked, expected) => {
		expect(pick(marked)).toEqual(expected);
	});

	it("says nothing outside the frontmatter", () => {
		expect(at("---\nname: x\n---\n## a|\n")).toBeUndefined();
		expect(at("no frontmatter|\n")).toBeUndefined();
	});
});
