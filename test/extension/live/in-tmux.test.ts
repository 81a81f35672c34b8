/**
 * Interactive pi, driven through tmux like a person would: `/run` draws the live view above the editor
 * (the node tree with its glyphs, the running turn with agent, model and clock, how to stop) and the
 * answer lands in the conversation. Skipped, saying so, where tmux is not installed; CI installs it.
 */
import { spawnSync } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agent } from "../helpers/flows.ts";
import { node, type Sandbox, sandbox } from "../helpers/pi-process.ts";

const hasTmux = spawnSync("tmux", ["-V"], { encoding: "utf8" }).status === 0;
if (!hasTmux)
	process.emitWarning(
		"pi-flows: tmux is not installed, so the interactive live-view test is skipped (apt-get install tmux)",
	);
const SLOW = `---
name: slow
description: two turns that take their time
input: string
nodes:
  - id: greet
    agent: echo
    reads: [input]
  - id: second
    agent: echo
    reads: [greet]
---

## greet

Greet the person under \`input\`.

## second

Say it again, from \`greet\`.
`;

let box: Sandbox;
const socket = `pi-flows-test-${process.pid}`;
const tmux = (...args: string[]) => spawnSync("tmux", ["-L", socket, "-f", "/dev/null", ...args], { encoding: "utf8" });
const screen = () => tmux("capture-pane", "-p", "-t", "pi").stdout;

async function until(check: (text: string) => boolean, what: string, timeoutMs = 20_000): Promise<string> {
	const start = Date.now();
	for (;;) {
		const text = screen();
		if (check(text)) return text;
		if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}; the screen:\n${text}`);
		await new Promise((r) => setTimeout(r, 150));
	}
}

beforeEach(() => {
	box = sandbox();
	box.write("~agent/agents/echo.md", agent("echo"));
	box.write("~agent/flows/slow.md", SLOW);
	box.write(
		"slow.script.yaml",
		"turns:\n  greet:\n    - say: FIRST ANSWER\n      delay: 2500\n  second:\n    - say: FINAL ANSWER FROM TMUX\n      delay: 2500\n",
	);
});
afterEach(() => {
	tmux("kill-server");
	box.cleanup();
});

describe("interactive pi in tmux", () => {
	it.skipIf(!hasTmux)(
		`shows the live view above the editor while /run goes, then the answer${hasTmux ? "" : " (skipped: tmux is not installed)"}`,
		async () => {
			const env = Object.entries(box.env())
				.filter(([k]) => /^(PI_|PATH$|HOME$|TERM$|LANG$)/.test(k))
				.map(([k, v]) => `${k}=${v}`);
			const command = ["env", ...env, "TERM=xterm-256color", node, ...box.args()]
				.map((a) => `'${a.replace(/'/g, "'\\''")}'`)
				.join(" ");
			expect(tmux("new-session", "-d", "-s", "pi", "-x", "160", "-y", "50", "-c", box.cwd, command).status).toBe(0);
			await until((t) => t.includes("[Extensions]") && t.includes(box.cwd), "pi to start");
			tmux("send-keys", "-t", "pi", "-l", "/run slow hello there --script slow.script.yaml");
			tmux("send-keys", "-t", "pi", "Enter");
			const live = await until((t) => t.includes("▸ greet · echo · scripted/scripted"), "the live view");
			expect(live).toMatch(/● slow · \d+s · 0 turns/);
			expect(live).toMatch(/● greet · echo · \d+s/);
			expect(live).toMatch(/○ second · echo/);
			expect(live).toContain("esc stops the run");
			const later = await until((t) => t.includes("✓ greet · echo"), "the first node to end");
			expect(later).toMatch(/● second · echo/);
			const done = await until(
				(t) => t.includes("FINAL ANSWER FROM TMUX") && t.includes("ok · .pi/runs/"),
				"the answer",
			);
			expect(done).toContain("◆ slow");
			expect(done).toContain("Result of the slow flow, asked: hello there");
			expect(done).not.toContain("esc stops the run");
		},
	);
});
