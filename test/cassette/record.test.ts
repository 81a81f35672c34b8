/**
 * A run's record made into a cassette and its test, without a CLI: every agent visit's turns from its
 * transcript (a reused visit's from the run it was taken from), the person's answers, the files read, what
 * came out; a run that has not ended is refused; a visit whose turns are gone is named; the files a visit
 * read are fingerprinted (not one the run wrote), and each check's result is kept by its visit.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type RunToRecord, recordRun, testText } from "../../src/cassette/index.ts";
import { digestOf } from "../../src/identity/index.ts";
import type { JournalEntry, Snapshot } from "../../src/runs/index.ts";

const repo = mkdtempSync(join(tmpdir(), "pi-flows-record-"));
writeFileSync(join(repo, "notes.md"), "herons wait; key AKIAABCDEFGHIJKLMNOP\n");
afterAll(() => rmSync(repo, { recursive: true, force: true }));

const snapshot = {
	version: 1,
	createdAt: "x",
	flow: { name: "two", file: join(repo, "two.md"), text: "" },
	callees: [],
	agents: [],
	scripts: {},
	input: "q",
	settings: { cwd: repo, model: "wire/wire-1", somebodyThere: true },
} as unknown as Snapshot;

const usage = {
	input: 1,
	output: 1,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 2,
	cost: 0,
	requests: 1,
	toolCalls: 0,
	ms: 1,
};
const end = (path: string, kind: string, ended: Record<string, unknown>): JournalEntry =>
	({ type: "visit_end", life: 1, path, node: path, kind, ended, usage, at: "t" }) as unknown as JournalEntry;
const messages = (text: string, read?: string) => [
	{ role: "system", content: "", sections: { cwd: `<cwd>\n${repo}\n</cwd>` } },
	{ role: "user", content: [{ type: "text", text: "task" }] },
	...(read
		? [
				{ role: "assistant", content: [{ type: "toolCall", id: "1", name: "read", arguments: { path: read } }] },
				{ role: "toolResult", toolName: "read", content: [{ type: "text", text: "herons wait" }] },
			]
		: []),
	{ role: "assistant", content: [{ type: "text", text }], stopReason: "stop" },
];

function run(entries: JournalEntry[], transcript: RunToRecord["transcript"]): RunToRecord {
	return { run: "r2", backend: "folder", snapshot, entries, transcript, repo };
}

describe("recordRun", () => {
	it("refuses a run that has not ended", async () => {
		expect(await recordRun(run([end("look", "agent", { ok: true, output: "x" })], () => []))).toEqual({
			error: "the run r2 has not ended; record a finished run (or resume it first)",
		});
	});

	it("records each agent visit, a reused one from the run it came from, and what the test expects", async () => {
		const asked: string[] = [];
		const entries = [
			end("look", "agent", {
				ok: true,
				output: "seen",
				reuse: {
					outcome: "reused",
					from: "/runs/r1",
					path: "look",
					life: 1,
					saved: usage,
					transcript: { run: "/runs/r1", path: "look", life: 1 },
				},
			}),
			{ type: "asked", path: "go", question: "go?", answer: { kind: "answer", value: "yes" } } as JournalEntry,
			end("go", "ask", { ok: true, output: "yes" }),
			end("answer", "agent", { ok: true, output: { gist: "wait" } }),
			end("gone", "agent", { ok: true, output: "z" }),
			{ type: "run_end", life: 1, ok: true, output: { gist: "wait" }, at: "t" } as JournalEntry,
		];
		const recorded = await recordRun(
			run(entries, (w) => {
				asked.push(`${w.run ?? "here"}:${w.path}`);
				if (w.path === "look") return messages("seen", "notes.md");
				if (w.path === "answer") return messages("wait");
				return undefined;
			}),
		);
		if ("error" in recorded) throw new Error(recorded.error);
		expect(asked).toEqual(["/runs/r1:look", "here:answer", "here:gone"]);
		expect([...recorded.cassette.visits.keys()]).toEqual(["look", "answer"]);
		expect(recorded.missing).toEqual(["gone"]);
		expect(recorded.cassette.model).toBe("wire/wire-1");
		expect(recorded.test.answers).toEqual({ go: "yes" });
		expect(recorded.test.files).toEqual({ "notes.md": "herons wait; key [redacted: aws-access-key]\n" });
		expect(recorded.cassette.redacted).toEqual([{ visit: "look", where: "the file notes.md", kind: "aws-access-key" }]);
		expect(recorded.test.expect).toEqual({
			ok: true,
			visited: ["look", "go", "answer", "gone"],
			outputs: { look: "seen", go: "yes", answer: { gist: "wait" }, gone: "z" },
			output: { gist: "wait" },
		});
		const text = testText(recorded.test, "two", join(repo, "two.r.cassette.yaml"), " head");
		expect(text).toContain("cassette: two.r.cassette.yaml");
		expect(testText(recorded.test, "two", join(repo, "two.r.cassette.yaml"), " head")).toBe(text);
	});

	it("fingerprints the project files a visit read, leaving out one the run wrote; keeps each check by visit", async () => {
		writeFileSync(join(repo, "plan.md"), "step one\n");
		const read = (path: string) => ({
			role: "assistant",
			content: [{ type: "toolCall", id: path, name: "read", arguments: { path } }],
		});
		const result = { role: "toolResult", toolName: "read", content: [{ type: "text", text: "x" }] };
		const entries = [
			end("fix", "agent", { ok: true, output: "done", effect: { before: "a", after: "b", files: ["notes.md"] } }),
			{ type: "fact", life: 1, path: "fix#1/tests", key: "script", value: ".pi/checks/t.sh", at: "t" } as JournalEntry,
			end("fix#1/tests", "check", { ok: true, output: { passed: false, report: "1 failing" } }),
			end("fix#2/tests", "check", { ok: true, output: { passed: true, report: "" } }),
			{ type: "run_end", life: 1, ok: true, output: "done", at: "t" } as JournalEntry,
		];
		const recorded = await recordRun(
			run(entries, () => [
				...messages("x").slice(0, 2),
				read("plan.md"),
				result,
				read("notes.md"),
				result,
				{ role: "assistant", content: [{ type: "text", text: "done" }], stopReason: "stop" },
			]),
		);
		if ("error" in recorded) throw new Error(recorded.error);
		expect(recorded.cassette.visits.get("fix")?.tree).toEqual({ "plan.md": digestOf("step one\n") });
		expect(Object.keys(recorded.test.files)).toEqual(["notes.md", "plan.md"]);
		expect(recorded.test.checks).toEqual({
			"fix#1/tests": { script: ".pi/checks/t.sh", passed: false, report: "1 failing" },
			"fix#2/tests": { passed: true },
		});
	});

	it("reads a DBOS run's turns from its journal, by the life its visit ended in", async () => {
		const turns = [{ asked: { system: "s", tools: [], schemas: "x", messages: ["user a"] }, answer: { say: "ok" } }];
		const entries = [
			{ type: "turns", life: 1, path: "look", turns: [{ ...turns[0], answer: { fail: "503" } }] } as JournalEntry,
			{ type: "turns", life: 2, path: "look", turns } as JournalEntry,
			{ ...end("look", "agent", { ok: true, output: "ok" }), life: 2 } as JournalEntry,
			{ type: "run_end", life: 2, ok: true, output: "ok", at: "t" } as JournalEntry,
		];
		const recorded = await recordRun({ ...run(entries, undefined), backend: "dbos" });
		if ("error" in recorded) throw new Error(recorded.error);
		expect(recorded.cassette.visits.get("look")?.turns).toEqual(turns);
	});
});
