/**
 * The handoff protocol where nobody watches: every driver turn has the watermark (muted once the turn has
 * handed off), a checkpoint is HANDOFF.md before the turn goes on, kickoffs carry the task and the latest
 * document only, the switch and the reset cap apply, and a stopped turn is logged as stopped.
 */
import { cliBin } from "../helpers/built-cli.ts";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadRoster } from "../../src/agents/index.ts";
import { type DriveOptions, drive } from "../../src/drive/index.ts";
import { DEFAULT_POLICY, parseHandoff } from "../../src/handoff/index.ts";
import type { PiHost } from "../../src/pi/index.ts";
import type { Spawn } from "../../src/runtime/subagent.ts";
import { scriptedHost } from "../helpers/host.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

/** A spawn that keeps every turn's messages as text, to see what the model was sent. */
function recording(host: PiHost): { spawn: Spawn; seen: string[][] } {
	const seen: string[][] = [];
	const spawn: Spawn = async (request) => {
		const sub = await host.spawn(request);
		return {
			...sub,
			id: sub.id,
			agent: sub.agent,
			model: sub.model,
			close: () => sub.close(),
			ask: async (task, options) => {
				const r = await sub.ask(task, options);
				seen.push(r.messages.map((m) => JSON.stringify(m)));
				return r;
			},
		};
	};
	return { spawn, seen };
}

async function run(script: string, extra: Partial<DriveOptions> = {}) {
	const host = await scriptedHost(project, script);
	const worker = loadRoster(project.cwd, {}, project.env).get("worker");
	if (worker?.kind !== "agent") throw new Error("no worker");
	const rec = recording(host);
	const out = await drive("Write the notes.", {
		cwd: project.cwd,
		spawn: rec.spawn,
		agent: worker,
		model: "scripted",
		logDir: join(project.cwd, "logs"),
		...extra,
	});
	return { ...out, seen: rec.seen, calls: host.scripted?.calls() ?? 0, open: host.open() };
}

const BIG = `${"heron ".repeat(4000)}\n`;

describe("the watermark in driver turns", () => {
	it("steers the land-the-plane directive into a driver turn past the watermark, and not below it", async () => {
		project.write("big.txt", BIG);
		const script = (window: number) =>
			`contextWindow: ${window}\nturns:\n  turn1:\n    - call: read\n      args: { path: big.txt }\n    - call: finish\n      args: { status: done, summary: read it }\n`;
		const small = await run(script(8000));
		expect(small.end).toBe("complete");
		expect(small.seen[0].join("\n")).toContain("Time to hand over");
		const large = await run(script(128_000), { fresh: true });
		expect(large.end).toBe("complete");
		expect(large.seen[0].join("\n")).not.toContain("Time to hand over");
	});

	it("stays quiet after `finish` even when the finish itself crosses the watermark: no paid request after the work is recorded", async () => {
		const summary = "done ".repeat(5000);
		const out = await run(
			`contextWindow: 8000\nturns:\n  turn1:\n    - call: finish\n      args: { status: done, summary: "${summary}" }\n`,
		);
		expect(out.end).toBe("complete");
		expect(out.turns[0].outcome).toBe("handoff");
		// One request: the finish. A steer after it would have been a second, failing one.
		expect(out.calls).toBe(1);
	});
});

describe("driver handoff documents", () => {
	it("writes a checkpoint to HANDOFF.md before the turn goes on", async () => {
		// The bash call runs after the checkpoint returned, in the same turn: it sees the document on disk.
		const out = await run(
			'turns:\n  turn1:\n    - call: checkpoint\n      args: { status: in-progress, summary: half way there, reset: none }\n    - call: bash\n      args: { command: "grep -c \'half way there\' HANDOFF.md" }\n    - say: "{{result}}"\n      call: finish\n      args: { status: done, summary: all done }\n',
		);
		expect(out.end).toBe("complete");
		expect(out.seen[0].join("\n")).toMatch(/"text":"1\\n?"/);
	});

	it("seeds each turn with the task and the latest document only, however many checkpoints came before", async () => {
		const checkpoint = (n: number) =>
			`  turn${n}:\n    - call: checkpoint\n      args: { status: in-progress, summary: step ${n} saved, next_task: keep going }\n`;
		const out = await run(
			`turns:\n${[1, 2, 3, 4].map(checkpoint).join("")}  turn5:\n    - call: finish\n      args: { status: done, summary: all done }\n`,
		);
		expect(out.end).toBe("complete");
		expect(out.turns).toHaveLength(5);
		for (const turn of out.turns.slice(1)) {
			expect(turn.kickoff.match(/<handoff-document/g)).toHaveLength(1);
			expect(turn.kickoff).toContain("Write the notes.");
			expect(turn.kickoff).toContain(`step ${turn.n - 1} saved`);
			expect(turn.kickoff).not.toContain(`step ${turn.n - 2} saved`);
		}
		const sizes = out.turns.slice(1).map((t) => t.kickoff.length);
		console.info(
			`driver kickoff sizes after checkpoints 1-4: ${sizes.join(", ")} characters (first: ${out.turns[0].kickoff.length})`,
		);
		expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThan(10);
	});
});

describe("one switch, one cap", () => {
	it("stops checkpoint resets at HANDOFF_MAX_RESETS: the next checkpoint only saves and the turn goes on", async () => {
		const out = await run(
			'turns:\n  turn1:\n    - call: checkpoint\n      args: { status: in-progress, summary: first save }\n  turn2:\n    - call: checkpoint\n      args: { status: in-progress, summary: second save }\n    - say: "{{result}}"\n      call: finish\n      args: { status: done, summary: all done }\n',
			{ handoff: { ...DEFAULT_POLICY, maxResets: 1 } },
		);
		expect(out.end).toBe("complete");
		expect(out.turns.map((t) => t.outcome)).toEqual(["handoff", "handoff"]);
		expect(out.seen[1].join("\n")).toContain("Automatic resets are used up");
	});

	it("refuses to drive with the protocol switched off, from env or from settings, before any turn", async () => {
		const off = await run("turns:\n  turn1:\n    - say: never\n", { handoff: { ...DEFAULT_POLICY, enabled: false } });
		expect(off.end).toBe("refused");
		expect(off.calls).toBe(0);
		project.write("TASK.md", "Do it.\n");
		project.write(".pi/settings.json", '{ "enable_handoff": false }\n');
		const r = spawnSync(process.execPath, [cliBin(), "drive", "TASK.md", "--script", "none.yaml", "--project"], {
			cwd: project.cwd,
			env: project.env,
			encoding: "utf8",
			timeout: 60_000,
		});
		expect(r.status).toBe(2);
		expect(r.stderr).toContain("enable_handoff in the project settings");
	});
});

describe("stops and faults", () => {
	it("logs a turn stopped by the caller as stopped, not crashed, and the drive continues on the next run", async () => {
		const stop = new AbortController();
		const script =
			'turns:\n  turn1:\n    - hang: true\n  "*":\n    - call: finish\n      args: { status: done, summary: all done }\n';
		const host = await scriptedHost(project, script);
		const worker = loadRoster(project.cwd, {}, project.env).get("worker");
		if (worker?.kind !== "agent") throw new Error("no worker");
		const options = {
			cwd: project.cwd,
			spawn: host.spawn,
			agent: worker,
			model: "scripted",
			logDir: join(project.cwd, "logs"),
		};
		setTimeout(() => stop.abort(), 300);
		const out = await drive("Write the notes.", { ...options, signal: stop.signal });
		expect(out.end).toBe("stopped");
		expect(out.turns[0].outcome).toBe("stopped");
		expect(out.turns[0].error).toBeUndefined();
		const again = await drive("Write the notes.", options);
		expect(again.resumed).toMatchObject({ recorded: 1, n: 2, previousEnd: "stopped" });
		expect(again.end).toBe("complete");
	});

	it("refuses a second driver on a drive another live driver is running", async () => {
		const stop = new AbortController();
		const host = await scriptedHost(project, "turns:\n  turn1:\n    - hang: true\n");
		const worker = loadRoster(project.cwd, {}, project.env).get("worker");
		if (worker?.kind !== "agent") throw new Error("no worker");
		const options = {
			cwd: project.cwd,
			spawn: host.spawn,
			agent: worker,
			model: "scripted",
			logDir: join(project.cwd, "logs"),
		};
		const first = drive("Write the notes.", { ...options, signal: stop.signal });
		await new Promise((r) => setTimeout(r, 300));
		const second = await drive("Write the notes.", options);
		expect(second.end).toBe("refused");
		expect(second.message).toMatch(/this drive is in use by pid \d+/);
		stop.abort();
		expect((await first).end).toBe("stopped");
	});

	it("says it cannot read a missing --script, with no stack", () => {
		project.write("TASK.md", "Do it.\n");
		const r = spawnSync(process.execPath, [cliBin(), "drive", "TASK.md", "--script", "missing.yaml"], {
			cwd: project.cwd,
			env: project.env,
			encoding: "utf8",
			timeout: 60_000,
		});
		expect(r.status).toBe(2);
		expect(r.stderr.trim()).toBe("pi-flows: cannot read the script missing.yaml: no such file");
	});

	it("the document on disk parses back to what the last turn handed off", async () => {
		await run(
			"turns:\n  turn1:\n    - call: finish\n      args: { status: done, summary: all done, artifacts: [a.txt] }\n",
		);
		expect(existsSync(join(project.cwd, "HANDOFF.md"))).toBe(true);
		const doc = parseHandoff(readFileSync(join(project.cwd, "HANDOFF.md"), "utf8")).value;
		expect(doc).toMatchObject({ status: "done", summary: "all done", artifacts: ["a.txt"], by: "finish" });
	});
});

describe("the watermark in delegated (subagent) turns", () => {
	it("steers the answer-only directive into a pool turn past the watermark", async () => {
		const { createPool } = await import("../../src/runtime/pool.ts");
		const { landThePlaneDirective } = await import("../../src/handoff/index.ts");
		project.write("big.txt", BIG);
		const host = await scriptedHost(
			project,
			'contextWindow: 8000\nturns:\n  "*":\n    - call: read\n      args: { path: big.txt }\n    - say: "{{task|lines:4}}"\n',
		);
		const worker = loadRoster(project.cwd, {}, project.env).get("worker");
		if (worker?.kind !== "agent") throw new Error("no worker");
		const directive = landThePlaneDirective({ canReset: false, answerOnly: true });
		const pool = createPool({
			cwd: project.cwd,
			spawn: host.spawn,
			model: "scripted",
			watermark: { threshold: DEFAULT_POLICY.watermark, directive },
		});
		try {
			const r = await pool.turn(worker, "Summarise big.txt.");
			expect(r.ok).toBe(true);
			expect(r.output).toContain("Time to hand over");
			expect(r.output).not.toContain("`finish`");
		} finally {
			await pool.closeAll();
		}
	});
});
