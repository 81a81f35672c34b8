import { cliBin } from "../helpers/built-cli.ts";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadRoster } from "../../src/agents/index.ts";
import { drive } from "../../src/drive/index.ts";
import { scriptedHost } from "../helpers/host.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

async function run(script: string, maxTurns = 10) {
	const host = await scriptedHost(project, script);
	const worker = loadRoster(project.cwd, {}, project.env).get("worker");
	if (worker?.kind !== "agent") throw new Error("no worker");
	const out = await drive("Write three notes, one per turn.", {
		cwd: project.cwd,
		spawn: host.spawn,
		agent: worker,
		model: "scripted",
		maxTurns,
		logDir: join(project.cwd, "logs"),
	});
	return { ...out, open: host.open() };
}

const finish = (status: string, extra = "") =>
	`    - call: finish\n      args: { status: ${status}, summary: turn summary${extra} }\n`;

describe("the chain driver", () => {
	it("chains fresh turns through handoff documents until one is done, keeping every document", async () => {
		const out = await run(
			`turns:\n  turn1:\n${finish("partial", ", next_task: write note two")}  turn2:\n    - say: "{{task|lines:60}}"\n      call: finish\n      args: { status: partial, summary: turn summary, next_task: write note three }\n  turn3:\n${finish("done")}`,
		);
		expect(out.end).toBe("complete");
		expect(out.turns.map((t) => t.outcome)).toEqual(["handoff", "handoff", "handoff"]);
		expect(out.turns[1].kickoff).toContain("write note two");
		expect(readFileSync(join(project.cwd, "HANDOFF.md"), "utf8")).toContain("## Status\ndone");
		expect(readdirSync(join(project.cwd, ".pi/handoffs"))).toHaveLength(2);
		expect(existsSync(join(project.cwd, "logs/turn-2.handoff.md"))).toBe(true);
		expect(out.open).toBe(0);
	});

	it("recovers a turn that ended without a handoff, in the same session", async () => {
		const out = await run(`turns:\n  turn1:\n    - say: I did things but forgot\n  turn1/recover:\n${finish("done")}`);
		expect(out.end).toBe("complete");
		expect(out.turns[0].outcome).toBe("recovered");
	});

	it("stops with no-handoff when even the recovery turn writes none", async () => {
		const out = await run("turns:\n  turn1:\n    - say: forgot\n  turn1/recover:\n    - say: still forgot\n");
		expect(out.end).toBe("no-handoff");
	});

	it("recovers a crashing turn instead of stopping", async () => {
		const out = await run(`turns:\n  turn1:\n    - fail: the provider fell over\n  turn2:\n${finish("done")}`);
		expect(out.end).toBe("complete");
		expect(out.turns.map((t) => t.outcome)).toEqual(["crashed", "handoff"]);
		expect(out.turns[1].kickoff).toBe(out.turns[0].kickoff);
	});

	it("stops for a person on blocked, and at MAX_TURNS", async () => {
		expect((await run(`turns:\n  turn1:\n${finish("blocked", ", blocked: need credentials")}`)).end).toBe("blocked");
		const capped = await run(`turns:\n  "*":\n${finish("partial", ", next_task: more")}`, 2);
		expect(capped.end).toBe("max-turns");
		expect(capped.turns).toHaveLength(2);
	});

	it("runs from the CLI with its own exit code for blocked", () => {
		project.write("TASK.md", "Do the thing.\n");
		project.write("s.yaml", `turns:\n  turn1:\n${finish("blocked", ", blocked: need credentials")}`);
		const r = spawnSync(process.execPath, [cliBin(), "drive", "TASK.md", "--script", "s.yaml"], {
			cwd: project.cwd,
			env: project.env,
			encoding: "utf8",
			timeout: 60_000,
		});
		expect(r.status).toBe(4);
		expect(r.stderr).toContain("blocked: need credentials");
	});
});
