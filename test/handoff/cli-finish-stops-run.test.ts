import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseHandoff } from "../../src/handoff/index.ts";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../..");
const piPackage = join(repo, "node_modules/@earendil-works/pi-coding-agent");
const piBin = join(
	piPackage,
	(JSON.parse(readFileSync(join(piPackage, "package.json"), "utf8")) as { bin: { pi: string } }).bin.pi,
);
const node = join(repo, "node_modules/.bin/node");
const extension = join(here, "fixtures/faux-handoff-extension.ts");

let root: string;
let cwd: string;
let agentDir: string;
beforeEach(() => {
	root = mkdtempSync(join(tmpdir(), "pi-flows-cli-"));
	cwd = join(root, "project");
	agentDir = join(root, "agent");
	mkdirSync(cwd);
	mkdirSync(agentDir);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const baseArgs = () => [piBin, "--offline", "--no-session", "-ne", "-e", extension, "--model", "faux/faux-1"];

function env(extra: Record<string, string>) {
	const {
		HANDOFF_ENABLED: _a,
		HANDOFF_WATERMARK: _b,
		HANDOFF_MAX_RESETS: _c,
		HANDOFF_CHECKPOINT_RESET: _d,
		...base
	} = process.env;
	return { ...base, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1", ...extra };
}

function pi(args: string[], extra: Record<string, string> = {}) {
	return spawnSync(node, [...baseArgs(), ...args], { cwd, env: env(extra), encoding: "utf8", timeout: 60_000 });
}

type JsonEvent = {
	type: string;
	message?: { role?: string; content?: { type: string; text?: string }[] };
	result?: { summary?: string };
};

const lines = (text: string) =>
	text
		.split("\n")
		.filter((l) => l.trim().startsWith("{"))
		.map((l) => JSON.parse(l) as JsonEvent);

describe("the real pi CLI", () => {
	it("finish writes HANDOFF.md and the run stops: one model answer, no victory lap", () => {
		const run = pi(["--mode", "json", "Prove the handoff works."]);
		expect(run.status, run.stderr).toBe(0);
		expect(run.stdout).not.toContain("VICTORY LAP");
		const events = lines(run.stdout);
		expect(events.filter((e) => e.type === "message_end" && e.message?.role === "assistant")).toHaveLength(1);
		expect(events.at(-1)?.type).toBe("agent_settled");
		const path = join(cwd, "HANDOFF.md");
		expect(existsSync(path)).toBe(true);
		const doc = parseHandoff(readFileSync(path, "utf8")).value;
		expect(doc).toMatchObject({
			status: "done",
			summary: "Wrote the CLI proof.",
			by: "finish",
			artifacts: ["HANDOFF.md"],
		});
	});

	it("/handoff status in print mode reports every layer on stderr (pi keeps stdout), and HANDOFF_ENABLED wins", () => {
		const run = pi(["-p", "/handoff status"], { HANDOFF_ENABLED: "off" });
		expect(run.status, run.stderr).toBe(0);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain("Handoff protocol: off (from env)");
		expect(run.stderr).toMatch(/1\. env HANDOFF_ENABLED: set = false .*<- wins/);
		expect(run.stderr).toContain("Tools: finish not active, checkpoint not active");
	});

	it("in RPC mode, a compact checkpoint resets the context to the document and the agent resumes from it", async () => {
		writeFileSync(
			join(agentDir, "settings.json"),
			JSON.stringify({ compaction: { enabled: false, keepRecentTokens: 1 } }),
		);
		const child = spawn(node, [...baseArgs(), "--mode", "rpc"], {
			cwd,
			env: env({ HANDOFF_TEST_SCRIPT: "checkpoint" }),
		});
		const events: JsonEvent[] = [];
		let buffer = "";
		let stderr = "";
		child.stderr.on("data", (chunk: Buffer) => {
			stderr += chunk.toString();
		});
		const done = new Promise<void>((resolveDone, reject) => {
			const timer = setTimeout(() => reject(new Error(`timed out; stderr: ${stderr}`)), 30_000);
			child.stdout.on("data", (chunk: Buffer) => {
				buffer += chunk.toString();
				let nl = buffer.indexOf("\n");
				while (nl >= 0) {
					const line = buffer.slice(0, nl);
					buffer = buffer.slice(nl + 1);
					nl = buffer.indexOf("\n");
					if (!line.trim().startsWith("{")) continue;
					const event = JSON.parse(line) as JsonEvent;
					events.push(event);
					if (event.type === "agent_settled" && events.filter((e) => e.type === "agent_settled").length === 2) {
						clearTimeout(timer);
						resolveDone();
					}
				}
			});
		});
		child.stdin.write(
			`${JSON.stringify({ id: "1", type: "prompt", message: `Start. ${"FILLER-FILLER ".repeat(300)}` })}\n`,
		);
		try {
			await done;
		} finally {
			child.stdin.end();
			child.kill();
		}
		const compaction = events.find((e) => e.type === "compaction_end");
		expect(compaction?.result?.summary).toContain("Milestone one is done.");
		const answers = events.filter((e) => e.type === "message_end" && e.message?.role === "assistant");
		expect(answers).toHaveLength(2);
		expect(answers[1].message?.content?.[0]?.text).toBe("RESUMED-FROM-DOCUMENT");
	});
});
