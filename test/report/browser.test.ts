/**
 * The report in a real browser: Debian's headless Chromium loads the page from disk (with the network
 * features that could phone home switched off), its rendered DOM is read back, and a screenshot is
 * decoded to prove the graph and the timeline were painted, not just written.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readRun, reportHtml } from "../../src/report/index.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { surveyRun } from "./fixture.ts";
import { one, parseHtml, select } from "./html.ts";
import { countNear, readPng } from "./png.ts";

const CHROMIUM = "/usr/bin/chromium";
const run = promisify(execFile);
const present = existsSync(CHROMIUM);
const WIDTH = 1400;
const HEIGHT = 2600;

if (!present)
	console.warn(`test/report/browser.test.ts: skipped, ${CHROMIUM} is missing (apt-get install -y chromium)`);

let project: TempProject;
let page: string;
let shots: string;

/** One Chromium invocation in a fresh profile, which is removed afterwards. */
async function chromium(...args: string[]): Promise<string> {
	const profile = mkdtempSync(join(tmpdir(), "pi-flows-chromium-"));
	try {
		const { stdout } = await run(
			CHROMIUM,
			[
				"--headless",
				"--no-sandbox",
				"--disable-gpu",
				"--disable-quic",
				"--no-first-run",
				"--disable-background-networking",
				"--disable-component-update",
				"--disable-sync",
				`--user-data-dir=${profile}`,
				`--window-size=${WIDTH},${HEIGHT}`,
				...args,
			],
			{ timeout: 60_000, maxBuffer: 32 * 1024 * 1024 },
		);
		return stdout;
	} finally {
		rmSync(profile, { recursive: true, force: true });
	}
}

describe.skipIf(!present)(
	`the report in headless Chromium${present ? "" : ` (skipped: ${CHROMIUM} is missing)`}`,
	() => {
		beforeAll(async () => {
			project = tempProject();
			const { runDir } = await surveyRun(project);
			const read = readRun(runDir);
			if (!read.ok) throw new Error(read.error);
			page = join(runDir, "report.html");
			writeFileSync(page, reportHtml(read.value));
			shots = mkdtempSync(join(tmpdir(), "pi-flows-shots-"));
		}, 60_000);
		afterAll(() => {
			project?.cleanup();
			if (shots) rmSync(shots, { recursive: true, force: true });
		});

		it("renders the graph and the timeline with sized shapes", async () => {
			const dom = parseHtml(await chromium("--dump-dom", `file://${page}`));
			const graph = one(dom, "svg.graph");
			expect(Number(graph.attrs.width)).toBeGreaterThan(100);
			expect(Number(graph.attrs.height)).toBeGreaterThan(100);
			const nodes = select(graph, "rect.node");
			expect(nodes).toHaveLength(7);
			for (const n of nodes) {
				expect(Number(n.attrs.width)).toBeGreaterThan(0);
				expect(Number(n.attrs.height)).toBeGreaterThan(0);
			}
			const timeline = one(dom, "svg.timeline");
			expect(Number(timeline.attrs.width)).toBeGreaterThan(100);
			const bars = select(timeline, "rect.bar").filter((b) => b.attrs["data-path"]);
			expect(bars).toHaveLength(11);
			for (const b of bars) expect(Number(b.attrs.width)).toBeGreaterThan(0);
		}, 90_000);

		it("paints them: the screenshot has the states' colours, which only the graph and the timeline use", async () => {
			const shot = join(shots, "report.png");
			await chromium(`--screenshot=${shot}`, `file://${page}`);
			const blankPage = join(shots, "blank.html");
			writeFileSync(blankPage, "<!doctype html><title>blank</title>");
			const blankShot = join(shots, "blank.png");
			await chromium(`--screenshot=${blankShot}`, `file://${blankPage}`);
			const bytes = readFileSync(shot);
			const png = readPng(bytes);
			expect([png.width, png.height]).toEqual([WIDTH, HEIGHT]);
			expect(bytes.length).toBeGreaterThan(5 * readFileSync(blankShot).length);
			// The failed node's fill (graph), and done and failed bars (timeline): each a solid area of pixels.
			expect(countNear(png, "#ffe1de")).toBeGreaterThan(1500);
			expect(countNear(png, "#2da44e")).toBeGreaterThan(1500);
			expect(countNear(png, "#e5534b")).toBeGreaterThan(300);
		}, 120_000);
	},
);
