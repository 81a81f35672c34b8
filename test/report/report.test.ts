import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import type { Io } from "../../src/cli/io.ts";
import { type RunData, readRun, reportHtml } from "../../src/report/index.ts";
import { type UsageFile, usageOf } from "../../src/runs/index.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { surveyRun } from "./fixture.ts";
import { type El, one, parseHtml, select, text } from "./html.ts";

let project: TempProject;
let runDir: string;
let data: RunData;
let html: string;
let doc: El;

beforeAll(async () => {
	project = tempProject();
	runDir = (await surveyRun(project)).runDir;
	const read = readRun(runDir);
	if (!read.ok) throw new Error(read.error);
	data = read.value;
	html = reportHtml(data);
	doc = parseHtml(html);
}, 60_000);
afterAll(() => project.cleanup());

const usageJson = () => JSON.parse(readFileSync(join(runDir, "usage.json"), "utf8")) as UsageFile;
const figure = (cell: El) => Number(text(cell).replace(/[,$]/g, ""));

describe("the graph", () => {
	it("draws one shape per node, with the state it ended in", () => {
		const graph = one(doc, "svg.graph");
		const shapes = select(graph, "rect.node");
		const states = Object.fromEntries(
			shapes.map((s) => [s.attrs["data-node"], s.attrs.class.split(" ").find((c) => c.startsWith("state-"))]),
		);
		expect(shapes).toHaveLength(7);
		expect(states).toEqual({
			plan: "state-done",
			work: "state-done",
			"work/act": "state-failed",
			pick: "state-done",
			polish: "state-done",
			"polish/review": "state-done",
			// Failed in life 1, done in life 2: a node counts as it last ended.
			wrap: "state-done",
		});
		expect(select(graph, "rect.block").map((s) => s.attrs["data-node"])).toEqual(["work", "polish"]);
		expect(text(graph)).toContain("3 visits · 1 failed");
		for (const state of ["done", "failed", "running when cut", "never reached"]) expect(text(graph)).toContain(state);
	});
});

describe("the timeline", () => {
	it("has one bar per visit, in the life it ran in", () => {
		const bars = select(one(doc, "svg.timeline"), "rect.bar").filter((b) => b.attrs["data-path"] !== undefined);
		const started = data.journal.filter((e) => e.type === "visit_start").map((e) => `${e.life} ${e.path}`);
		expect(bars.map((b) => `${b.attrs["data-life"]} ${b.attrs["data-path"]}`).sort()).toEqual(started.sort());
		expect(started).toHaveLength(11);
		for (const b of bars) expect(Number(b.attrs.width)).toBeGreaterThan(0);
		const wrap = bars.filter((b) => b.attrs["data-path"] === "wrap").map((b) => b.attrs.class);
		expect(wrap).toEqual([expect.stringContaining("state-failed"), expect.stringContaining("state-done")]);
	});

	it("puts the map's items that ran at once in two lanes, and marks where life 2 began", () => {
		const timeline = one(doc, "svg.timeline");
		const lanes = select(timeline, "g.lane").filter((l) => l.attrs["data-fan"] === "work");
		expect(lanes).toHaveLength(2);
		const laneOf = (path: string) =>
			lanes.findIndex((l) => select(l, "rect.bar").some((b) => b.attrs["data-path"] === path));
		expect(laneOf("work[1]/act")).not.toBe(laneOf("work[2]/act"));
		// Items 1 and 2 ran at the same time: their bars overlap on the time axis.
		const span = (path: string) => {
			const b = select(timeline, "rect.bar").find((r) => r.attrs["data-path"] === path) as El;
			return [Number(b.attrs.x), Number(b.attrs.x) + Number(b.attrs.width)];
		};
		const [a, b] = [span("work[1]/act"), span("work[2]/act")];
		expect(Math.min(a[1], b[1])).toBeGreaterThan(Math.max(a[0], b[0]));
		expect(select(timeline, "g.life").map((g) => g.attrs["data-life"])).toEqual(["1", "2"]);
		expect(select(timeline, "line.life-boundary")).toHaveLength(1);
		expect(text(timeline)).toContain("resumed");
	});
});

describe("the tables and notes", () => {
	it("lists tokens, cost and time per node, with totals equal to usage.json", () => {
		const usage = usageJson();
		const table = one(doc, "table.usage");
		const rows = select(table, "tr.node-usage");
		expect(rows.map((r) => r.attrs["data-node"])).toEqual(Object.keys(usage.nodes));
		const total = one(table, "tr.total");
		const cell = (row: El, col: string) => figure(select(row, "td").find((c) => c.attrs["data-col"] === col) as El);
		for (const col of ["input", "output", "cacheRead", "cacheWrite", "totalTokens", "requests", "toolCalls"] as const) {
			expect(cell(total, col)).toBe(usage.total[col]);
			expect(rows.reduce((s, r) => s + cell(r, col), 0)).toBe(usage.total[col]);
		}
		expect(cell(total, "cost")).toBeCloseTo(usage.total.cost, 4);
		for (const row of rows)
			expect(cell(row, "totalTokens")).toBe(usage.nodes[row.attrs["data-node"]].usage.totalTokens);
		expect(select(one(doc, "table.lives"), "tr.life-row")).toHaveLength(2);
	});

	it("shows the question and its answer", () => {
		const row = one(doc, "tr.question");
		expect(row.attrs["data-path"]).toBe("pick");
		expect(text(row)).toContain("Ship <left> or right?");
		expect(text(one(row, "td.a"))).toBe("left");
	});

	it("renders each handoff document as HANDOFF.md holds it", () => {
		const article = one(doc, "article.handoff");
		expect(article.attrs["data-path"]).toBe("work[3]/act");
		const body = text(one(article, "pre"));
		expect(body).toContain("## Status\ndone");
		expect(body).toContain("## What was done\nEast surveyed; <b>two</b> roads found.");
		expect(body).toContain("## Key decisions\n- Walked, not drove: the roads are closed");
		expect(body).toContain("## Next task\nMap the roads.");
		expect(body).not.toContain("handoff-format");
	});

	it("says how the run ended, what failed, and the budget's warnings", () => {
		const section = select(doc, "section").find((s) => s.attrs.id === "outcome") as El;
		expect(text(one(section, "p.outcome"))).toBe("The run ended well.");
		expect(text(section)).toContain("life 1 failed at wrap");
		const faults = select(section, "tr.fault").map((r) => text(r));
		expect(faults).toEqual([
			expect.stringMatching(/^work\[2\]\/act.*absorbed by on-fail: continue.*the south scout lost its way/),
			expect.stringMatching(/^wrap.*failed.*the provider is down/),
		]);
		expect(select(section, "li.budget_warning").map(text)).toEqual([
			expect.stringContaining("4 of 40 turns"),
			expect.stringContaining("8 of 40 turns"),
		]);
		expect(text(one(doc, "span.badge"))).toBe("ended well");
	});
});

describe("safety", () => {
	it("escapes every string of the run", () => {
		expect(html).not.toMatch(/<script/i);
		expect(html).toContain("north looks fine &lt;script&gt;alert(&#39;north&#39;)&lt;/script&gt;");
		expect(html).toContain("East surveyed; &lt;b&gt;two&lt;/b&gt; roads found.");
		expect(html).toContain("Survey the &lt;land&gt;");
		const row = select(doc, "tr").find((r) => r.attrs["data-path"] === "work[1]/act") as El;
		expect(text(row)).toContain("north looks fine <script>alert('north')</script>");
	});

	it("makes no external reference: the SVG namespace is the only URL", () => {
		const urls = html.match(/https?:\/\/[^\s"'<>)]*/g) ?? [];
		expect(new Set(urls)).toEqual(new Set(["http://www.w3.org/2000/svg"]));
		expect(html).not.toMatch(/<(link|img|iframe|object|embed)\b/i);
		expect(html).not.toMatch(/\bsrc=/i);
		expect([...html.matchAll(/url\(([^)]*)\)/g)].map((m) => m[1])).toEqual(expect.arrayContaining(["#arrow"]));
		expect([...html.matchAll(/url\(([^)]*)\)/g)].every((m) => m[1].startsWith("#"))).toBe(true);
		expect(html).toContain("default-src 'none'");
	});

	it("is a pure function of the data", () => {
		expect(reportHtml(data)).toBe(html);
	});
});

describe("a run cut mid-visit", () => {
	it("shows the visit that was running as cut, the nodes after it as never reached, and says the run did not end", () => {
		const cutAt = (list: { type: string; path?: string }[], type: string) =>
			list.findIndex((e) => e.type === type && e.path === "polish#2/review") + 1;
		const events = data.events.slice(0, cutAt(data.events, "node_start"));
		const journal = data.journal.slice(0, cutAt(data.journal, "visit_start"));
		const { result: _gone, ...rest } = data;
		const cut = parseHtml(reportHtml({ ...rest, events, journal }));
		const states = Object.fromEntries(
			select(one(cut, "svg.graph"), "rect.node").map((s) => [s.attrs["data-node"], s.attrs["data-state"]]),
		);
		expect(states).toMatchObject({
			plan: "done",
			"work/act": "failed",
			polish: "cut",
			"polish/review": "cut",
			wrap: "never",
		});
		const bar = select(one(cut, "svg.timeline"), "rect.bar").find(
			(b) => b.attrs["data-path"] === "polish#2/review",
		) as El;
		expect(bar.attrs.class).toContain("state-cut");
		expect(Number(bar.attrs.width)).toBeGreaterThan(0);
		expect(text(one(cut, "span.badge"))).toBe("did not end");
		expect(text(one(cut, "p.outcome"))).toContain("did not end");
	});
});

describe("a run whose last life failed", () => {
	it("says where and why, once", () => {
		const endOfLife1 = <T extends { type: string; life?: number }>(list: T[]) =>
			list.slice(0, list.findIndex((e) => e.type === "run_end" && e.life === 1) + 1);
		const failed = parseHtml(
			reportHtml({
				...data,
				events: endOfLife1(data.events),
				journal: endOfLife1(data.journal),
				result: { ok: false, error: "wrap: provider: the provider is down", errorKind: "provider", failedAt: "wrap" },
			}),
		);
		expect(text(one(failed, "p.outcome"))).toBe("The run failed at wrap (provider): provider: the provider is down");
		expect(text(one(failed, "span.badge"))).toBe("failed");
		expect(
			select(one(failed, "svg.graph"), "rect.node").find((n) => n.attrs["data-node"] === "wrap")?.attrs["data-state"],
		).toBe("failed");
	});
});

describe("a folder without events.jsonl or usage.json", () => {
	it("draws the timeline from the journal and rebuilds the usage, saying so", () => {
		const bare = parseHtml(reportHtml({ ...data, events: [], usage: usageOf(data.journal), usageFromFile: false }));
		const bars = select(one(bare, "svg.timeline"), "rect.bar").filter((b) => b.attrs["data-path"] !== undefined);
		expect(bars).toHaveLength(11);
		expect(text(select(bare, "p.note").find((p) => text(p).includes("usage.json is missing")) as El)).toContain(
			"rebuilt from the journal",
		);
		expect(text(one(one(bare, "table.usage"), "tr.total"))).toContain(
			usageJson().total.totalTokens.toLocaleString("en-US"),
		);
	});
});

describe("pi-flows report", () => {
	const io = (lines: { out: string[]; err: string[] }): Io => ({
		cwd: project.cwd,
		env: project.env,
		agentDir: project.agentDir,
		stdout: (t) => lines.out.push(t),
		stderr: (t) => lines.err.push(t),
	});

	it("writes <run>/report.html, or the file --out names, and prints where", async () => {
		const lines = { out: [] as string[], err: [] as string[] };
		expect(await main(["report", runDir], io(lines))).toBe(0);
		expect(readFileSync(join(runDir, "report.html"), "utf8")).toBe(html);
		mkdirSync(join(project.cwd, "out"), { recursive: true });
		expect(await main(["report", runDir, "--out", "out/r.html"], io(lines))).toBe(0);
		expect(existsSync(join(project.cwd, "out/r.html"))).toBe(true);
		expect(lines.out).toEqual([expect.stringContaining("report.html"), "out/r.html"]);
		// No run named: the newest run folder of the project.
		expect(await main(["report", "--out", "out/newest.html"], io(lines))).toBe(0);
		expect(readFileSync(join(project.cwd, "out/newest.html"), "utf8")).toBe(html);
	});

	it("refuses a folder that holds no run", async () => {
		const lines = { out: [] as string[], err: [] as string[] };
		expect(await main(["report", project.cwd], io(lines))).toBe(2);
		expect(lines.err.join("\n")).toContain("no readable snapshot");
	});
});
