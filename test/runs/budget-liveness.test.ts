import { cliBin } from "../helpers/built-cli.ts";
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { journalState, readJournal } from "../../src/runs/index.ts";
import { flowOf, runInline } from "../helpers/run.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

const three = flowOf(
	"three",
	"  - id: a\n    agent: scout\n  - id: b\n    agent: scout\n  - id: c\n    agent: scout\n    on-fail: continue\n",
	{ a: "A.", b: "B.", c: "C." },
);

describe("budgets bind the whole tree", () => {
	it("stops starting turns at the limit: the run ends with kind `budget`, never absorbed by on-fail", async () => {
		const ran = await runInline(
			project,
			"three",
			three,
			"turns:\n  '*':\n    - say: a fairly long answer to spend tokens on\n",
			"x",
			{ budget: { turns: 2 } },
		);
		expect(ran.result).toMatchObject({ ok: false, errorKind: "budget", failedAt: "c" });
		expect(ran.calls).toBe(2);
		expect(ran.events.some((e) => e.type === "budget_warning")).toBe(true);
		expect(ran.events.some((e) => e.type === "budget_exhausted")).toBe(true);
	});

	it("counts tokens across parallel branches", async () => {
		const par = flowOf(
			"par",
			"  - id: m\n    map: [a, b, c, d]\n    concurrency: 4\n    do:\n      - id: s\n        agent: scout\n  - id: after\n    agent: scout\n",
			{ s: "S.", after: "After." },
		);
		const ran = await runInline(project, "par", par, "turns:\n  '*':\n    - say: ok\n", "x", {
			budget: { tokens: 3000 },
		});
		expect(ran.result).toMatchObject({ ok: false, errorKind: "budget", failedAt: "after" });
		expect(ran.result.usage.totalTokens).toBeGreaterThanOrEqual(3000);
	});

	it("allows a run within its budget", async () => {
		const ran = await runInline(project, "three", three, "turns:\n  '*':\n    - say: ok\n", "x", {
			budget: { turns: 3, tokens: 1_000_000 },
		});
		expect(ran.result.ok).toBe(true);
	});
});

describe("liveness", () => {
	it("aborts a turn with no sign of life as kind `idle`", async () => {
		const one = flowOf("one", "  - id: a\n    agent: scout\n", { a: "A." });
		const ran = await runInline(project, "one", one, "turns:\n  a:\n    - hang: true\n", "x", { idleTimeoutMs: 120 });
		expect(ran.result).toMatchObject({ ok: false, errorKind: "idle" });
		expect(ran.open).toBe(0);
	});

	it("stops on SIGINT without waiting for the turn in flight, closing every session and leaving the run resumable", async () => {
		project.write(
			".pi/flows/slow.md",
			flowOf("slow", "  - id: a\n    agent: scout\n  - id: b\n    agent: scout\n", { a: "A.", b: "B." }),
		);
		project.write("s.yaml", "turns:\n  a:\n    - say: quick\n  b:\n    - delay: 4000\n      say: slow but fine\n");
		const child = spawn(process.execPath, [cliBin(), "run", "slow", "go", "--script", "s.yaml", "--project"], {
			cwd: project.cwd,
			env: project.env,
			stdio: "ignore",
		});
		const runsDir = join(project.cwd, ".pi/runs");
		const journal = () => {
			const dir = existsSync(runsDir) ? readdirSync(runsDir)[0] : undefined;
			return dir ? join(runsDir, dir, "journal.jsonl") : undefined;
		};
		await until(() => {
			const j = journal();
			return !!j && existsSync(j) && readFileSync(j, "utf8").includes('"path":"b"');
		});
		child.kill("SIGINT");
		const code = await new Promise<number | null>((r) => child.once("exit", r));
		expect(code).toBe(1);
		const read = readJournal(journal() as string);
		if (!read.ok) throw new Error(read.error);
		const state = journalState(read.entries);
		expect(state.end).toMatchObject({ ok: false, errorKind: "stopped" });
		expect(state.replay.ended("a")?.ok).toBe(true);
		expect(state.replay.ended("b")).toBeUndefined();
		expect(existsSync(join(runsDir, readdirSync(runsDir)[0], "lock.json"))).toBe(false);
	}, 30_000);
});

async function until(test: () => boolean, ms = 20_000): Promise<void> {
	const start = Date.now();
	while (!test()) {
		if (Date.now() - start > ms) throw new Error("timed out waiting");
		await new Promise((r) => setTimeout(r, 20));
	}
}
