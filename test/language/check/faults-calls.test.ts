/**
 * `flow:` nodes: the callee is found by name, checked whole with its caller, and refused at the call when
 * it is missing, broken, leads back to the caller (even behind a choice that would never be taken), or
 * takes another input type. One mistake, one fault, at the call.
 */
import { describe, expect, it } from "vitest";
import { at, covered, flowFolder } from "../helpers.ts";

const flow = (name: string, nodes: string, input = "string", body = "") =>
	`---\nname: ${name}\ndescription: d\ninput: ${input}\nnodes:\n${nodes}---\n${body}`;
const call = (id: string, callee: string, input = "input") =>
	`  - id: ${id}\n    flow: ${callee}\n    input: ${input}\n`;
const look = flow("look", "  - id: scan\n    agent: scout\n    reads: [input]\n", "string", "\n## scan\nx\n");

describe("calls", () => {
	it("a call to a flow that checks is fine, and the callee is kept", () => {
		const folder = flowFolder({ t: flow("t", call("sub", "look")), look });
		const r = folder.judgeOne("t");
		expect(r.faults).toEqual([]);
		expect(r.value?.callees.get("sub")?.name.value).toBe("look");
	});

	it("unknown-flow: a `flow:` node naming nothing, with the nearest name", () => {
		const text = flow("t", call("sub", "lok"));
		const r = flowFolder({ t: text, look }).judgeOne("t");
		expect(r.faults.map(at)).toEqual(["unknown-flow 7:11"]);
		expect(covered(text, r.faults[0])).toBe("lok");
		expect(r.faults[0].expected).toEqual(["look"]);
	});

	it("broken-flow: the callee does not check; each call names its file and first fault", () => {
		const broken = flow("look", "  - id: scan\n    agent: scuot\n", "string", "\n## scan\nx\n");
		const folder = flowFolder({ t: flow("t", call("sub", "look") + call("again", "look")), look: broken });
		const r = folder.judgeOne("t");
		expect(r.faults.map(at)).toEqual(["broken-flow 7:11", "broken-flow 10:11"]);
		expect(r.faults[0].message).toContain(folder.file("look"));
		expect(r.faults[0].message).toContain("7:12: unknown-agent");
	});

	it("call-cycle: two files calling each other, from either side", () => {
		const folder = flowFolder({ a: flow("a", call("to_b", "b")), b: flow("b", call("to_a", "a")) });
		const a = folder.judgeOne("a");
		expect(a.faults.map(at)).toEqual(["call-cycle 7:11"]);
		expect(a.faults[0].message).toContain("a → b → a");
		const b = folder.judgeOne("b");
		expect(b.faults.map(at)).toEqual(["call-cycle 7:11"]);
		expect(b.faults[0].message).toContain("b → a → b");
	});

	it("call-cycle: a self-call behind a choice that is never taken", () => {
		const text = flow(
			"self",
			`  - id: gate\n    choice:\n      - when: input == "never"\n        do:\n${call("again", "self")
				.replace(/^/gm, "        ")
				.replace(/\n\s+$/, "\n")}    default: []\n`,
		);
		const r = flowFolder({ self: text }).judgeOne("self");
		expect(r.faults.map(at)).toEqual(["call-cycle 11:19"]);
		expect(covered(text, r.faults[0])).toBe("self");
		expect(r.faults[0].message).toContain("self → self");
	});

	it("call-cycle: a ring of three names the whole ring from where it is seen", () => {
		const folder = flowFolder({
			a: flow("a", call("to_b", "b")),
			b: flow("b", call("to_c", "c")),
			c: flow("c", call("to_a", "a")),
		});
		expect(folder.judgeOne("a").faults[0].message).toContain("a → b → c → a");
		expect(folder.judgeOne("c").faults[0].message).toContain("c → a → b → c");
	});

	it("a ring that does not pass through the caller makes the callee broken, not the caller cyclic", () => {
		const folder = flowFolder({
			top: flow("top", call("to_b", "b")),
			b: flow("b", call("to_c", "c")),
			c: flow("c", call("to_b", "b")),
		});
		const r = folder.judgeOne("top");
		expect(r.faults.map(at)).toEqual(["broken-flow 7:11"]);
		expect(r.faults[0].message).toContain("call-cycle");
	});

	it("flow-input-mismatch: a typed callee gets another type", () => {
		const typed = flow(
			"typed",
			"  - id: scan\n    agent: scout\n    reads: [input.goal]\n",
			"{ goal: string }",
			"\n## scan\nx\n",
		);
		const text = flow("t", call("sub", "typed"));
		const r = flowFolder({ t: text, typed }).judgeOne("t");
		expect(r.faults.map(at)).toEqual(["flow-input-mismatch 8:12"]);
		expect(covered(text, r.faults[0])).toBe("input");
	});

	it("a callee taking `string` accepts any value, and a typed callee its own type", () => {
		const typed = flow(
			"typed",
			"  - id: scan\n    agent: scout\n    reads: [input.goal]\n",
			"{ goal: string }",
			"\n## scan\nx\n",
		);
		const planner = "  - id: plan\n    agent: planner\n    output: { goal: string }\n";
		const folder = flowFolder({
			t: flow(
				"t",
				planner + call("sub", "typed", "plan.output") + call("loose", "look", "plan.output"),
				"string",
				"\n## plan\nx\n",
			),
			typed,
			look,
		});
		expect(folder.judgeOne("t").faults).toEqual([]);
	});
});
