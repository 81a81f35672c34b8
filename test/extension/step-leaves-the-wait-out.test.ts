/**
 * Issue 33, point 7: `/step` holds each visit for the person after its turn, and that wait is the person's
 * time, not the node's. The test holds the first choice itself (a promise it resolves), sees the live view
 * draw the node ended while it waits, and then finds the wait journaled as the visit's `held` and left out
 * of the visit's time in the journal, the report's timeline and its usage table.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ms, readRun, reportHtml, runModel } from "../../src/report/index.ts";
import type { JournalEntry } from "../../src/runs/index.ts";
import { all, one, parseHtml, select, text } from "../report/html.ts";
import { type Line, rpc, runFoldersIn, pairSandbox, type Sandbox } from "./helpers/pi-process.ts";

let box: Sandbox;
beforeEach(() => {
	box = pairSandbox("turns:\n  draft:\n    - say: DRAFT\n  review:\n    - say: REVIEWED\n");
});
afterEach(() => box.cleanup());

const frames = (lines: readonly Line[]) =>
	lines
		.filter((l) => l.type === "extension_ui_request" && l.method === "setWidget" && Array.isArray(l.widgetLines))
		.map((l) => (l.widgetLines as string[]).join("\n"));

describe("/step's wait for the person", () => {
	it("is journaled as the visit's held time and left out of the node's time everywhere it is shown", async () => {
		let release: () => void = () => {};
		const held = new Promise<void>((r) => {
			release = r;
		});
		let heldFrom = 0;
		let heldTo = 0;
		let frameWhileHeld: string | undefined;
		let selects = 0;
		const pi = rpc(box, {
			onUi: (r) => {
				if (r.method !== "select") return undefined;
				selects++;
				if (selects > 1) return { value: "continue" };
				// The first choice waits for the test: whatever the view drew last is what the person sees.
				heldFrom = Date.now();
				frameWhileHeld = frames(pi.lines).at(-1);
				void held.then(() => {
					heldTo = Date.now();
					pi.send({ type: "extension_ui_response", id: r.id, value: "continue" });
				});
				return undefined;
			},
		});
		try {
			const done = pi.prompt("/step pair write it --script pair.script.yaml");
			await pi.waitFor((l) => l.type === "extension_ui_request" && l.method === "select", "the first choice");
			// A wait the test controls, long beside a scripted turn; nothing below compares it to a clock.
			await new Promise((r) => setTimeout(r, 400));
			release();
			await done;
		} finally {
			await pi.close();
		}
		// While it waited, draft was drawn ended, with no turn under it.
		expect(frameWhileHeld).toMatch(/✓ draft · echo/);
		expect(frameWhileHeld).not.toMatch(/▸ draft/);
		expect(frameWhileHeld).toContain("draft ended: waiting for your choice");

		const [folder] = runFoldersIn(box.cwd);
		const journal = readFileSync(join(folder, "journal.jsonl"), "utf8")
			.trim()
			.split("\n")
			.map((l) => JSON.parse(l) as JournalEntry);
		const startOf = journal.find((e) => e.type === "visit_start" && e.path === "draft");
		const endOf = journal.find((e) => e.type === "visit_end" && e.path === "draft");
		if (startOf?.type !== "visit_start" || endOf?.type !== "visit_end") throw new Error("draft was not journaled");
		const waited = heldTo - heldFrom;
		// The visit was held at least as long as the test held its answer, and at most its whole span.
		const span = Date.parse(endOf.at) - Date.parse(startOf.at);
		expect(endOf.ended.held).toBeGreaterThanOrEqual(waited);
		expect(endOf.ended.held).toBeLessThanOrEqual(span + 1);
		// Its time is the span less the wait (the journal's times are whole milliseconds).
		expect(endOf.usage.ms).toBeLessThanOrEqual(span - waited + 2);
		// review was never held: its choice was answered at once, and it has no held time of its own.
		const review = journal.find((e) => e.type === "visit_end" && e.path === "review");
		expect(review?.type === "visit_end" && (review.ended.held ?? 0) < waited).toBe(true);

		const read = readRun(folder);
		if (!read.ok) throw new Error(read.error);
		const draft = runModel(read.value).visits.find((v) => v.path === "draft");
		expect(draft?.held).toBe(endOf.ended.held);
		const timeline = one(parseHtml(reportHtml(read.value)), "svg.timeline");
		// draft's bar says its own time, and draws its wait apart.
		const group = all(
			timeline,
			(e) => e.tag === "g" && select(e, "rect.bar").some((b) => b.attrs["data-path"] === "draft"),
		);
		const title = group.flatMap((g) => g.children.filter((c) => typeof c !== "string" && c.tag === "title"));
		expect(title.map((t) => (typeof t === "string" ? t : text({ ...t, tag: "span" })))).toEqual([
			expect.stringContaining(`${ms((draft?.end ?? 0) - (draft?.start ?? 0) - (endOf.ended.held ?? 0))}, from +`),
		]);
		const heldBars = select(timeline, "rect.held").filter((b) => b.attrs["data-path"] === "draft");
		expect(heldBars.map((b) => b.attrs["data-held"])).toEqual([String(endOf.ended.held)]);
		const usage = read.value.usage.visits.find((v) => v.path === "draft");
		expect(usage?.usage.ms).toBe(endOf.usage.ms);
	}, 90_000);
});
