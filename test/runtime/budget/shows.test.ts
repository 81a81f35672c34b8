/**
 * Issue 24: the budget and its spend are on the live view, in `usage.json` and in the report, by node and
 * by path; the warning fires when the warning level is crossed; `plan` shows the most turns in flight
 * (the largest overshoot a budget allows) next to the worst case.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadRoster } from "../../../src/agents/index.ts";
import { foldLive, startLive } from "../../../src/extension/live/fold.ts";
import { showLive, treeOf } from "../../../src/extension/live/render.ts";
import { resolveModels } from "../../../src/engine/index.ts";
import { catalogueOptions, checkFlowText } from "../../../src/load/index.ts";
import { overshootText } from "../../../src/language/render/index.ts";
import { readRun, reportHtml } from "../../../src/report/index.ts";
import type { FlowEvent } from "../../../src/runtime/events.ts";
import { runsHome, startRun, type UsageFile } from "../../../src/runs/index.ts";
import { scriptedHost } from "../../helpers/host.ts";
import { judge } from "../../helpers/flows.ts";
import { type TempProject, tempProject } from "../../helpers/project.ts";
import { flowOf } from "../../helpers/run.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

const FLOW = flowOf(
	"two",
	"  - id: a\n    agent: scout\n  - id: m\n    map: [x, y, z]\n    concurrency: 2\n    do:\n      - id: s\n        agent: scout\n  - id: b\n    agent: scout\n",
	{ a: "A.", s: "S.", b: "B." },
);
const SCRIPT = "turns:\n  '*':\n    - say: an answer that spends some tokens on each turn\n    - say: landed\n";

describe("where the budget shows", () => {
	it("usage.json, the report and the live view give the limit beside the spend, by node and by path; the warning comes at the crossing", async () => {
		const sources = { project: true };
		project.write(".pi/flows/two.md", FLOW);
		const flow = checkFlowText(
			FLOW,
			join(project.cwd, ".pi/flows/two.md"),
			loadRoster(project.cwd, sources, project.env),
			catalogueOptions(project.cwd, sources, project.env),
		).value;
		if (!flow) throw new Error("does not check");
		const host = await scriptedHost(project, SCRIPT);
		const models = resolveModels(flow, host.resolveModel, "scripted");
		if (!models.ok) throw new Error(models.errors.join());
		const events: FlowEvent[] = [];
		const live = startLive("two", 0);
		let t = 0;
		const out = await startRun(flow, "go", {
			runsHome: runsHome(project.cwd),
			spawn: host.spawn,
			models: models.models,
			cwd: project.cwd,
			scripts: new Map(),
			somebodyThere: false,
			budget: { tokens: 3000 },
			onEvent: (e) => {
				events.push(e);
				foldLive(live, e, (t += 10));
			},
		});
		if ("refused" in out) throw new Error(out.refused);
		expect(out.result.errorKind).toBe("budget");
		// The warning fires as the turn that crossed 80% ends: turns still start after it, none after the limit.
		const types = events.map((e) => e.type);
		const warned = types.indexOf("budget_warning");
		const exhausted = types.indexOf("budget_exhausted");
		expect(warned).toBeGreaterThanOrEqual(0);
		expect(types.slice(exhausted).includes("turn_start")).toBe(false);
		const spendAtWarning = [...events.slice(0, warned)].reverse().find((e) => e.type === "budget_spend");
		expect(spendAtWarning && spendAtWarning.type === "budget_spend" && spendAtWarning.tokens).toBeGreaterThanOrEqual(
			2400,
		);

		const usage = JSON.parse(readFileSync(join(out.runDir, "usage.json"), "utf8")) as UsageFile;
		expect(usage.budget?.limits).toEqual({ tokens: 3000 });
		expect(usage.budget?.spent.tokens).toBe(usage.total.totalTokens);
		expect(usage.budget?.spent.tokens).toBeGreaterThanOrEqual(3000);
		expect(Object.keys(usage.budget?.nodes ?? {})).toEqual(Object.keys(usage.nodes));
		expect(usage.budget?.nodes?.a).toBeCloseTo(usage.nodes.a.usage.totalTokens / 3000, 6);
		for (const v of usage.visits.filter((x) => x.kind === "agent"))
			expect(usage.budget?.paths?.[v.path]).toBeCloseTo(v.usage.totalTokens / 3000, 6);

		const read = readRun(out.runDir);
		if (!read.ok) throw new Error(read.error);
		const html = reportHtml(read.value);
		const spent = usage.total.totalTokens;
		expect(html).toContain(`${spent.toLocaleString("en-US")} of 3,000 tokens`);
		expect(html).toContain("<th>of budget</th>");
		expect(html).toContain(`data-col="budget">${Math.round((usage.budget?.nodes?.a ?? 0) * 100)}%</td>`);

		const header = showLive(live, treeOf(flow), t)[0];
		expect(header).toMatch(/ · budget \d+(\.\d)?k\/3k tokens$/);
	});
});

describe("plan's overshoot figure", () => {
	it("is the most turns in flight at once, per shape", () => {
		const width = (nodes: string) => {
			const sections = ["a", "b"].filter((id) => nodes.includes(`id: ${id}\n`)).map((id) => `## ${id}\n${id}.\n`);
			const c = judge(`---\nname: t\ndescription: d\ninput: string\nnodes:\n${nodes}---\n\n${sections.join("\n")}`);
			if (!c.value) throw new Error(JSON.stringify(c.faults));
			return c.value.bound.inFlight;
		};
		expect(width("  - id: a\n    agent: scout\n  - id: b\n    agent: scout\n")).toBe(1);
		expect(
			width("  - id: m\n    map: [p, q, r, s, t]\n    concurrency: 3\n    do:\n      - id: a\n        agent: scout\n"),
		).toBe(3);
		expect(
			width("  - id: m\n    map: [p, q]\n    concurrency: 4\n    do:\n      - id: a\n        agent: scout\n"),
		).toBe(2);
		expect(
			width(
				"  - id: p\n    parallel:\n      one:\n        - id: a\n          agent: scout\n      two:\n        - id: b\n          agent: scout\n",
			),
		).toBe(2);
		expect(
			width("  - id: a\n    swarm: [{ agent: scout, count: 3 }, { agent: reviewer, count: 2 }]\n    rounds: 2\n"),
		).toBe(5);
		expect(overshootText({ turns: 18, ms: 0, waits: false, inFlight: 3 })).toBe(
			"worst case ≤ 18 turns; at most 3 turns in flight at once, so a token or cost budget can be passed by what 3 turns spend (a turn budget never is)",
		);
		// Issue 33: one turn in flight is said in the singular, not "what 1 turn spend".
		expect(overshootText({ turns: 4, ms: 0, waits: false, inFlight: 1 })).toBe(
			"worst case ≤ 4 turns; one turn at a time, so a token or cost budget can be passed by what that turn spends (a turn budget never is)",
		);
	});
});
