/**
 * The handoff protocol inside flows: a turn starts with its own tools only; once its context crosses the
 * watermark it is offered `finish` (done, partial, blocked) and `checkpoint`, partial work continues in a
 * fresh session seeded with the document (where the tools are there from the start), and the document is
 * a value later nodes read as `<node>.handoff`.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { flowOf, runInline } from "../helpers/run.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
	project.write("big.txt", `${"heron ".repeat(1500)}\n`);
});

/** A first step that fills the context past a 0.3 watermark of an 8,000-token window. */
const FILL = "    - call: read\n      args: { path: big.txt }\n";
const FULL = "contextWindow: 8000\n";
afterEach(() => project.cleanup());

const twoNodes = flowOf(
	"h",
	"  - id: work\n    agent: worker\n    handoff: { watermark: 0.3 }\n  - id: after\n    agent: synthesiser\n    reads: [work.handoff.status, work.handoff.next_task, work]\n",
	{ work: "Do the work.", after: "Report." },
);

describe("finish and checkpoint inside flows", () => {
	it("ends the turn on `finish done` with no further model call, and the document is a value", async () => {
		const ran = await runInline(
			project,
			"h",
			twoNodes,
			`${FULL}turns:\n  work:\n${FILL}    - call: finish\n      args: { status: done, summary: wrote it, artifacts: [a.txt] }\n    - say: never asked\n  after:\n    - say: "{{task}}"\n`,
		);
		expect(ran.result.ok).toBe(true);
		expect(ran.calls).toBe(3);
		const work = ran.result.visits.find((v) => v.path === "work");
		expect(work?.output).toBe("wrote it");
		expect(ran.result.output).toContain("## work.handoff.status\n\ndone");
	});

	it("continues a `partial` finish in a fresh session seeded with the document", async () => {
		const ran = await runInline(
			project,
			"h",
			twoNodes,
			`${FULL}turns:\n  work:\n${FILL}    - call: finish\n      args: { status: partial, summary: half done, next_task: do the second half }\n    - say: "fresh context: {{messages}} messages; tools {{tools}}; {{task|lines:40}}"\n  after:\n    - say: ok\n`,
		);
		expect(ran.result.ok).toBe(true);
		const work = ran.result.visits.find((v) => v.path === "work")?.output as string;
		expect(work).toContain("## Handoff from the previous session");
		expect(work).toContain("do the second half");
		// The continuation was told to end with `finish`, so it has the tools from its first request.
		expect(work).toMatch(/tools [^;]*\bfinish\b[^;]*\bcheckpoint\b/);
		expect(ran.spawns).toBe(3);
	});

	it("fails `unfinished` with the last document when continuations run out", async () => {
		const flow = flowOf("u", "  - id: work\n    agent: worker\n    handoff: { continuations: 1, watermark: 0.3 }\n", {
			work: "Work.",
		});
		const ran = await runInline(
			project,
			"u",
			flow,
			`${FULL}turns:\n  work:\n${FILL}    - call: finish\n      args: { status: partial, summary: not yet, next_task: more }\n    - call: finish\n      args: { status: partial, summary: still not, next_task: more }\n`,
		);
		expect(ran.result).toMatchObject({ ok: false, errorKind: "unfinished", failedAt: "work" });
		expect(ran.spawns).toBe(2);
	});

	it("stops the run on `blocked`, never absorbed by on-fail: continue, with the blocker shown", async () => {
		const flow = flowOf(
			"b",
			"  - id: work\n    agent: worker\n    on-fail: continue\n    handoff: { watermark: 0.3 }\n  - id: after\n    agent: scout\n",
			{ work: "Work.", after: "After." },
		);
		const ran = await runInline(
			project,
			"b",
			flow,
			`${FULL}turns:\n  work:\n${FILL}    - call: finish\n      args: { status: blocked, summary: stuck, blocked: the API key is missing }\n  after:\n    - say: never\n`,
		);
		expect(ran.result).toMatchObject({
			ok: false,
			errorKind: "blocked",
			error: "work: blocked: the API key is missing",
		});
		expect(ran.calls).toBe(2);
	});

	it("resets the context on a checkpoint: the node goes on from the document, at no model cost", async () => {
		const flow = flowOf("c", "  - id: work\n    agent: worker\n    handoff: { watermark: 0.3 }\n", { work: "Work." });
		const ran = await runInline(
			project,
			"c",
			flow,
			'contextWindow: 8000\nturns:\n  work:\n    - call: read\n      args: { path: big.txt }\n    - call: checkpoint\n      args: { status: in-progress, summary: read the big file, next_task: write the summary }\n    - say: "after the reset: {{messages}} messages"\n',
		);
		expect(ran.result.ok).toBe(true);
		expect(ran.result.output).toBe("after the reset: 2 messages");
		expect(ran.calls).toBe(3);
	});
});

describe("the handoff tools appear with the watermark", () => {
	it("starts a turn with its own tools only, and declares finish and checkpoint once the watermark fires", async () => {
		const flow = flowOf("t", "  - id: work\n    agent: worker\n    handoff: { watermark: 0.3 }\n", { work: "Work." });
		const ran = await runInline(
			project,
			"t",
			flow,
			`${FULL}turns:\n  work:\n    - say: "before: {{tools}}"\n      call: read\n      args: { path: big.txt }\n    - say: "after: {{tools}}"\n`,
		);
		expect(ran.result.ok).toBe(true);
		const work = ran.result.visits.find((v) => v.path === "work");
		expect(work?.output).toMatch(/^after: .*\bread\b.*\bfinish, checkpoint$/);
	});

	it("refuses a `finish` called before the watermark: the tool is not declared yet", async () => {
		const flow = flowOf("n", "  - id: work\n    agent: worker\n", { work: "Work." });
		const ran = await runInline(
			project,
			"n",
			flow,
			'turns:\n  work:\n    - call: finish\n      args: { status: done, summary: x }\n    - say: "tools: {{tools}} | {{result}}"\n',
		);
		expect(ran.result.ok).toBe(true);
		expect(ran.result.output).toMatch(/Tool finish not found|not available|unknown tool/i);
		expect(ran.result.output).toMatch(/^tools: [^|]*\bread\b/);
		expect(ran.result.output).not.toMatch(/^tools: [^|]*\b(finish|checkpoint)\b/);
	});

	it("offers a typed turn only `submit` until the watermark, and lands it through finish after", async () => {
		const flow = flowOf(
			"s",
			"  - id: work\n    agent: worker\n    output: { n: number }\n    handoff: { watermark: 0.3 }\n",
			{ work: "Work." },
		);
		const ran = await runInline(
			project,
			"s",
			flow,
			`${FULL}turns:\n  work:\n    - call: read\n      args: { path: big.txt }\n    - call: finish\n      args: { status: partial, summary: read it, next_task: count }\n    - call: submit\n      args: { n: 3 }\n`,
		);
		expect(ran.result.ok).toBe(true);
		expect(ran.result.visits.find((v) => v.path === "work")?.output).toEqual({ n: 3 });
		expect(ran.spawns).toBe(2);
	});
});

describe("the watermark inside flows", () => {
	it("steers the land-the-plane directive once the context passes the node's watermark", async () => {
		project.write("big.txt", `${"heron ".repeat(1500)}\n`);
		const flow = flowOf("w", "  - id: work\n    agent: worker\n    handoff: { watermark: 0.3 }\n", { work: "Work." });
		const ran = await runInline(
			project,
			"w",
			flow,
			'contextWindow: 8000\nturns:\n  work:\n    - call: read\n      args: { path: big.txt }\n    - say: "{{task|lines:3}}"\n',
		);
		expect(ran.result.ok).toBe(true);
		expect(ran.result.output).toContain("Time to hand over");
	});

	it("stays quiet below the watermark", async () => {
		project.write("small.txt", "heron\n");
		const flow = flowOf("w", "  - id: work\n    agent: worker\n", { work: "Work." });
		const ran = await runInline(
			project,
			"w",
			flow,
			'contextWindow: 128000\nturns:\n  work:\n    - call: read\n      args: { path: small.txt }\n    - say: "{{task|lines:3}}"\n',
		);
		expect(ran.result.output).not.toContain("Time to hand over");
	});
});
