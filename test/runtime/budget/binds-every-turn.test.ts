/**
 * Issue 24: one budget binds every turn of the tree. Each path drives a run past a small token budget and
 * checks that no turn starts after the limit is crossed and that the overshoot is at most the turns that
 * were in flight at the crossing (see `expectBound`).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { budgetGauge, createPool, fanOut, swarm } from "../../../src/combinators/index.ts";
import { withChildTools } from "../../../src/extension/tool/index.ts";
import { runChildTools } from "../../../src/extension/tool/run-call.ts";
import { scriptedHost } from "../../helpers/host.ts";
import { type TempProject, tempProject } from "../../helpers/project.ts";
import { flowOf, runInline } from "../../helpers/run.ts";
import { agent, cleanupReal, real } from "../../combinators/helpers.ts";
import { expectBound, tracer } from "./helpers.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => {
	project.cleanup();
	cleanupReal();
});

const LONG = "a fairly long answer that spends a few tokens on every turn it is given";
/** A turn told to land (the budget ran out while it ran) makes one more request: the script answers it. */
const ANY = `turns:\n  '*':\n    - say: ${LONG}\n    - say: landed\n`;
const BUDGET = 2500;

async function budgeted(name: string, flow: string, script: string, budget = BUDGET) {
	const t = tracer();
	const host = await scriptedHost(project, script);
	const ran = await runInline(project, name, flow, script, "x", {
		spawn: t.wrap(host.spawn),
		budget: { tokens: budget },
		onEvent: t.onEvent,
	});
	return { ran, t };
}

describe("every turn of a flow counts as it ends", () => {
	it("agent nodes in a row", async () => {
		const flow = flowOf(
			"row",
			"  - id: a\n    agent: scout\n  - id: b\n    agent: scout\n  - id: c\n    agent: scout\n  - id: d\n    agent: scout\n  - id: e\n    agent: scout\n",
			{ a: "A.", b: "B.", c: "C.", d: "D.", e: "E." },
		);
		const { ran, t } = await budgeted("row", flow, ANY);
		expect(ran.result.errorKind).toBe("budget");
		expect(expectBound(t.log, BUDGET).started).toBeLessThan(5);
	});

	it("map branches, several in flight", async () => {
		const flow = flowOf(
			"m",
			"  - id: m\n    map: [a, b, c, d, e, f, g, h]\n    concurrency: 3\n    do:\n      - id: s\n        agent: scout\n",
			{ s: "S." },
		);
		const { ran, t } = await budgeted(
			"m",
			flow,
			`turns:\n  '*':\n    - delay: 30\n      say: ${LONG}\n    - say: landed\n`,
		);
		expect(ran.result.errorKind).toBe("budget");
		expect(expectBound(t.log, BUDGET).started).toBeLessThan(8);
	});

	it("parallel branches", async () => {
		const branch = (id: string) =>
			`      ${id}:\n        - id: ${id}1\n          agent: scout\n        - id: ${id}2\n          agent: scout\n        - id: ${id}3\n          agent: scout\n`;
		const flow = flowOf("p", `  - id: p\n    parallel:\n${branch("l")}${branch("r")}`, {
			l1: "L.",
			l2: "L.",
			l3: "L.",
			r1: "R.",
			r2: "R.",
			r3: "R.",
		});
		const { ran, t } = await budgeted("p", flow, ANY);
		expect(ran.result.errorKind).toBe("budget");
		expect(expectBound(t.log, BUDGET).started).toBeLessThan(6);
	});

	it("a called flow's turns, inside the call", async () => {
		project.write(
			".pi/flows/inner.md",
			flowOf("inner", "  - id: i1\n    agent: scout\n  - id: i2\n    agent: scout\n  - id: i3\n    agent: scout\n", {
				i1: "1.",
				i2: "2.",
				i3: "3.",
			}),
		);
		const flow = flowOf(
			"outer",
			"  - id: one\n    flow: inner\n    input: input\n  - id: two\n    flow: inner\n    input: input\n",
			{},
		);
		// A budget the first call's three turns cross, whatever a turn costs between 400 and 1,200 tokens.
		const { ran, t } = await budgeted("outer", flow, ANY, 1200);
		expect(ran.result).toMatchObject({ ok: false, errorKind: "budget" });
		expect(ran.result.failedAt).toMatch(/^one\//);
		expect(expectBound(t.log, 1200).started).toBeLessThan(6);
	});

	it("swarm members, as each member's turn ends (not when the swarm does)", async () => {
		const flow = flowOf("sw", "  - id: s\n    swarm: [{ agent: scout, count: 3 }]\n    rounds: 4\n", { s: "Survey." });
		const { t } = await budgeted("sw", flow, ANY);
		const bound = expectBound(t.log, BUDGET);
		// 3 members × 4 rounds would be 12 turns; the round after the crossing never starts.
		expect(bound.started).toBeLessThanOrEqual(6);
		expect(bound.inFlight).toBeLessThanOrEqual(3);
	});

	it("handoff continuations and context resets", async () => {
		const flow = flowOf("h", "  - id: work\n    agent: worker\n    handoff: { continuations: 6, watermark: 0.3 }\n", {
			work: "Work.",
		});
		// The first session reads past its watermark, where the handoff tools are offered; continuations have them.
		project.write("big.txt", `${"heron ".repeat(1500)}\n`);
		const fill = "    - call: read\n      args: { path: big.txt }\n";
		const partial = "    - call: finish\n      args: { status: partial, summary: some done, next_task: more }\n";
		const reset = "    - call: checkpoint\n      args: { status: in-progress, summary: half, next_task: go on }\n";
		const script = `contextWindow: 8000\nturns:\n  work:\n${fill}${(partial + reset).repeat(4)}    - say: done\n`;
		const { ran, t } = await budgeted("h", flow, script);
		expect(ran.result.errorKind).toBe("budget");
		expectBound(t.log, BUDGET);
	});

	it("retries (`retry:`)", async () => {
		const flow = flowOf("r", "  - id: a\n    agent: scout\n    retry: 6\n", { a: "A." });
		const { ran, t } = await budgeted(
			"r",
			flow,
			`turns:\n  a:\n${"    - fail: overloaded\n".repeat(6)}    - say: ok\n`,
			1500,
		);
		expect(ran.result.errorKind).toBe("budget");
		expect(expectBound(t.log, 1500).started).toBeLessThan(7);
	});

	it("the `subagent` tool called by an agent inside the flow", async () => {
		// The boss holds its scouts' tools: a child never has more than its parent (extension/tool/tool-cap.ts).
		project.write(
			"~agent/agents/boss.md",
			"---\nname: boss\ndescription: delegates\ntools: read, grep, find, ls, subagent\n---\nYou delegate.\n",
		);
		const flow = flowOf("d", "  - id: lead\n    agent: boss\n", { lead: "Get it done." });
		const tasks = Array.from({ length: 6 }, (_, i) => `{ agent: scout, task: part ${i + 1} }`).join(", ");
		const script = `turns:\n  lead:\n    - call: subagent\n      args: { tasks: [${tasks}], concurrency: 1 }\n    - say: all done\n  '*':\n    - say: ${LONG}\n`;
		const t = tracer();
		const host = await scriptedHost(project, script);
		const traced = { ...host, spawn: t.wrap(host.spawn) };
		const childTools = runChildTools(
			{ cwd: project.cwd, model: undefined, modelRegistry: undefined as never },
			{},
			traced,
			"scripted",
		);
		const ran = await runInline(project, "d", flow, script, "x", {
			spawn: withChildTools(host.spawn, childTools),
			budget: { tokens: BUDGET },
			onEvent: t.onEvent,
		});
		const at = t.log.findIndex((e) => e.type === "exhausted");
		expect(at).toBeGreaterThanOrEqual(0);
		// The children are traced (the lead is not): none starts after the crossing, and not all six ran.
		expect(t.log.slice(at + 1).filter((e) => e.type === "start")).toEqual([]);
		const children = t.log.filter((e) => e.type === "start").length;
		expect(children).toBeGreaterThan(0);
		expect(children).toBeLessThan(6);
		expect(ran.result.usage.totalTokens).toBeGreaterThanOrEqual(BUDGET);
	});
});

describe("the library's combinators, given a budget", () => {
	it("fanOut and swarm share one gauge; each refuses turns past it with kind `budget`", async () => {
		const r = await real(ANY);
		const events: string[] = [];
		// These agents have a one-line prompt: a turn is some 40 tokens here.
		const t = tracer();
		const gauge = budgetGauge({ tokens: 100 }, undefined, {
			warned: () => events.push("warned"),
			counted: (used) => t.onEvent({ type: "budget_spend", ...used }),
			exhausted: () => {
				events.push("exhausted");
				t.onEvent({ type: "budget_exhausted", reason: "spent" });
			},
		});
		const spawn = t.wrap(r.options.spawn);
		const fanned = await fanOut({
			...r.options,
			spawn,
			budget: gauge,
			agent: agent("scout"),
			tasks: ["1", "2", "3", "4", "5", "6"],
			concurrency: 2,
		});
		expect(fanned.results.some((x) => x.errorKind === "budget")).toBe(true);
		const swarmed = await swarm({
			...r.options,
			spawn,
			budget: gauge,
			members: [{ agent: agent("member"), count: 2 }],
			goal: "g",
			rounds: 3,
		});
		expect(swarmed.members.every((m) => m.answer.errorKind === "budget")).toBe(true);
		expect(events).toEqual(["warned", "exhausted"]);
		// Everything the swarm tried came after the crossing: none of it started.
		const pool = createPool({ ...r.options, spawn, budget: gauge });
		expect((await pool.turn(agent("scout"), "t")).errorKind).toBe("budget");
		await pool.closeAll();
		expect(gauge.used().tokens).toBeGreaterThanOrEqual(100);
		expectBound(t.log, 100);
	});
});
