/**
 * The one visit-path reader, on paths a real run wrote: a loop round holding a map's items, and a called
 * flow's node under its call. Every expectation is written out by hand.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
	addressOf,
	enclosing,
	instanceOf,
	loopRoundOf,
	mapItemOf,
	nodeOf,
	visitSteps,
} from "../../src/runtime/index.ts";
import { flowOf, runInline } from "../helpers/run.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

let project: TempProject;
let paths: string[];

beforeAll(async () => {
	project = tempProject();
	project.write(".pi/flows/look.md", flowOf("look", "  - id: scan\n    agent: scout\n", { scan: "Scan." }));
	const flow = flowOf(
		"paths",
		[
			"  - id: plan",
			"    agent: planner",
			"    output: { tasks: [string] }",
			"  - id: polish",
			"    loop: review.output.ok",
			"    max: 2",
			"    do:",
			"      - id: work",
			"        map-from: plan.output.tasks",
			"        max: 3",
			"        do:",
			"          - id: act",
			"            agent: scout",
			"            reads: [item]",
			"      - id: review",
			"        agent: reviewer",
			"        output: { ok: boolean }",
			"  - id: sub",
			"    flow: look",
			"    input: input",
			"",
		].join("\n"),
		{ plan: "Plan.", act: "Act.", review: "Review." },
	);
	const script = [
		"turns:",
		"  plan:",
		"    - call: submit",
		"      args: { tasks: [north, south] }",
		"  review:",
		"    - call: submit",
		"      args: { ok: false }",
		'  "polish#2/review":',
		"    - call: submit",
		"      args: { ok: true }",
		'  "*":',
		"    - say: done",
		"",
	].join("\n");
	const ran = await runInline(project, "paths", flow, script);
	if (!ran.result.ok) throw new Error(ran.result.error);
	paths = ran.events.flatMap((e) => (e.type === "node_start" ? [e.path] : []));
}, 60_000);
afterAll(() => project.cleanup());

describe("visit paths a run wrote", () => {
	it("are the paths the parser is read against", () => {
		for (const p of ["polish#2/work[2]/act", "polish#1/review", "sub/scan", "plan"]) expect(paths).toContain(p);
	});

	it("a map item inside a loop round", () => {
		expect(visitSteps("polish#2/work[2]/act")).toEqual([
			{ text: "polish#2", node: "polish", round: 2 },
			{ text: "work[2]", node: "work", item: 2 },
			{ text: "act", node: "act" },
		]);
		expect(addressOf("polish#2/work[2]/act")).toBe("polish/work/act");
		expect(nodeOf("polish#2/work[2]/act")).toBe("act");
		expect(mapItemOf("polish#2/work[2]/act")).toEqual({ map: "polish#2/work", item: 2 });
		expect(loopRoundOf("polish#2/work[2]/act")).toEqual({ loop: "polish", round: 2 });
		expect(enclosing("polish#2/work[2]/act")).toEqual(["polish#2/work[2]", "polish#2/work", "polish#2", "polish"]);
		expect(visitSteps("polish#2/work[2]/act").map(instanceOf)).toEqual(["#2", "[2]", ""]);
	});

	it("a loop round's own node", () => {
		expect(addressOf("polish#1/review")).toBe("polish/review");
		expect(nodeOf("polish#1/review")).toBe("review");
		expect(mapItemOf("polish#1/review")).toBeUndefined();
		expect(loopRoundOf("polish#1/review")).toEqual({ loop: "polish", round: 1 });
	});

	it("a called flow's node, and a top-level node", () => {
		expect(visitSteps("sub/scan")).toEqual([
			{ text: "sub", node: "sub" },
			{ text: "scan", node: "scan" },
		]);
		expect(addressOf("sub/scan")).toBe("sub/scan");
		expect(enclosing("sub/scan")).toEqual(["sub"]);
		expect(visitSteps("plan")).toEqual([{ text: "plan", node: "plan" }]);
		expect(nodeOf("plan")).toBe("plan");
		expect(enclosing("plan")).toEqual([]);
		expect(loopRoundOf("plan")).toBeUndefined();
	});

	it("every path the run wrote has an address made of its steps' node ids", () => {
		for (const p of paths)
			expect(addressOf(p)).toBe(
				visitSteps(p)
					.map((s) => s.node)
					.join("/"),
			);
		expect([...new Set(paths.map(addressOf))].sort()).toEqual(
			["plan", "polish", "polish/work", "polish/work/act", "polish/review", "sub", "sub/scan"].sort(),
		);
	});
});
