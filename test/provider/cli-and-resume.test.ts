/**
 * Issue 16 where users stand: `pi-flows run` as a subprocess against the provider server (a `models.json`
 * provider in its agent dir), `pi-flows provider` serving a YAML script, and usage.json equal to the bill
 * across a stopped and resumed run.
 */
import { cliBin } from "../helpers/built-cli.ts";
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolveModels } from "../../src/engine/index.ts";
import { openHost } from "../../src/pi/index.ts";
import type { Answer, WireRequest } from "../../src/provider/index.ts";
import { resumeRun, startRun } from "../../src/runs/index.ts";
import { tempProject } from "../helpers/project.ts";
import { FAST, checkIn, itemOf, mapFlow, serverBill, usageJson, type Wire, wireProject } from "../helpers/wire.ts";

let wire: Wire | undefined;
const children: ChildProcess[] = [];
afterEach(async () => {
	for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
	await wire?.close();
	wire = undefined;
});

/** Runs the CLI without blocking this process's event loop (the server lives here). */
function cli(
	args: string[],
	cwd: string,
	env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
	return new Promise((resolve) => {
		const child = spawn(process.execPath, [cliBin(), ...args], { cwd, env });
		children.push(child);
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (d) => (stdout += d));
		child.stderr.on("data", (d) => (stderr += d));
		child.on("close", (code) => resolve({ code, stdout, stderr }));
	});
}

const submit = (req: WireRequest): Answer => ({
	tools: [{ name: "submit", args: { item: itemOf(req.lastUser), note: "seen" } }],
});

describe("pi-flows run as a subprocess over HTTP", () => {
	it("retries a 429 and a cut stream below the flow, prints them, and writes usage.json equal to the bill", async () => {
		const faults = new Map<string, Answer>([
			["item-1", { fault: "429", retryAfter: 0.05 }],
			[
				"item-2",
				{ fault: "cut", reply: { text: "A partial answer cut before it is whole, sent slowly enough to cut." } },
			],
		]);
		wire = await wireProject({
			script: (req) => {
				const f = faults.get(itemOf(req.lastUser));
				faults.delete(itemOf(req.lastUser));
				return f ?? submit(req);
			},
		});
		const p = wire.project;
		p.write(".pi/flows/look.md", mapFlow("look", 3, 3));
		const r = await cli(
			["run", "look", "x", "--model", "wire/wire-1", "--project", "--runs-dir", "runs", "--retries", "4", "--json"],
			p.cwd,
			p.env,
		);
		expect(r.code, r.stderr).toBe(0);
		expect(r.stderr).toMatch(/↻ look\[1\]\/find · 429: request sent again in \d+\.\ds \(attempt 2\)/);
		expect(r.stderr).toMatch(/↻ look\[2\]\/find · cut: request sent again/);
		const out = JSON.parse(r.stdout) as { runDir: string; usage: { retries: number } };
		expect(out.usage.retries).toBe(2);
		const usage = usageJson(join(p.cwd, out.runDir));
		expect(usage.total.retries).toBe(2);
		const { input, output, cacheRead, cacheWrite, cost } = usage.total;
		expect({ input, output, cacheRead, cacheWrite, cost: Number(cost.toFixed(12)) }).toEqual(serverBill(wire.server));
		// The report lists the retries.
		const rep = await cli(["report", out.runDir, "--out", "report.html"], p.cwd, p.env);
		expect(rep.code, rep.stderr).toBe(0);
		const html = readFileSync(join(p.cwd, "report.html"), "utf8");
		expect(html).toContain("2 model requests were sent again after a transport fault");
		expect(html).toMatch(/<td>look\[1\]\/find<\/td><td class="num">1<\/td><td>429<\/td>/);
	}, 60_000);

	it("pi-flows provider serves a YAML script that the run meets", async () => {
		const p = tempProject();
		try {
			p.write(
				"provider.yaml",
				`rules:\n  - when: item-2\n    faults: [{ fault: "503", retryAfter: 0.05 }]\n    reply: { tools: [{ name: submit, args: { item: item-2, note: scripted } }] }\ndefault: { tools: [{ name: submit, args: { item: any, note: default } }] }\n`,
			);
			const server = spawn(process.execPath, [cliBin(), "provider", "provider.yaml", "--agent-dir", p.agentDir], {
				cwd: p.cwd,
				env: p.env,
			});
			children.push(server);
			let serverErr = "";
			server.stderr.on("data", (d) => (serverErr += d));
			const first = await new Promise<string>((resolve) => {
				let buf = "";
				server.stdout.on("data", (d) => {
					buf += d;
					if (buf.includes("\n")) resolve(buf.split("\n")[0]);
				});
			});
			expect(JSON.parse(first).url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
			p.write(".pi/flows/look.md", mapFlow("look", 2, 2));
			const r = await cli(
				["run", "look", "x", "--model", "wire-anthropic/wire-1", "--project", "--runs-dir", "runs", "--json"],
				p.cwd,
				p.env,
			);
			expect(r.code, r.stderr).toBe(0);
			expect(JSON.parse(r.stdout).output.map((e: { output: unknown }) => e.output)).toEqual([
				{ item: "any", note: "default" },
				{ item: "item-2", note: "scripted" },
			]);
			expect(r.stderr).toMatch(/↻ look\[2\]\/find · 503/);
			const closed = new Promise((resolve) => server.on("close", resolve));
			server.kill("SIGINT");
			await closed;
			expect(serverErr).toMatch(/3 request\(s\), billed/);
		} finally {
			p.cleanup();
		}
	}, 60_000);
});

describe("usage equals billing through a stop and a resume", () => {
	it("sums both lives in usage.json, a cut in the second life included, to what the server billed", async () => {
		let cut = true;
		wire = await wireProject({
			script: (req) => {
				if (req.lastUser.includes("Step c") && cut) {
					cut = false;
					return { fault: "cut", reply: { text: "Step c's answer, cut halfway through by the network." } };
				}
				return { text: `done: ${req.lastUser.slice(0, 20)}` };
			},
		});
		const p = wire.project;
		const text = `---\nname: steps\ndescription: four steps\ninput: string\nnodes:\n${["a", "b", "c", "d"].map((id) => `  - id: ${id}\n    agent: scout\n`).join("")}---\n\n${["a", "b", "c", "d"].map((id) => `## ${id}\n\nStep ${id}.\n`).join("\n")}`;
		const flow = checkIn(p, "steps", text);
		const host = await openHost({ cwd: p.cwd, agentDir: p.agentDir, transport: FAST });
		const models = resolveModels(flow, host.resolveModel, "wire-anthropic/wire-1");
		if (!models.ok) throw new Error(models.errors.join());
		const stop = new AbortController();
		const first = await startRun(flow, "go", {
			runsHome: join(p.cwd, "runs"),
			spawn: host.spawn,
			models: models.models,
			cwd: p.cwd,
			scripts: new Map(),
			somebodyThere: true,
			model: "wire-anthropic/wire-1",
			signal: stop.signal,
			onEvent: (e) => {
				if (e.type === "node_end" && e.path === "b") stop.abort();
			},
		});
		if ("refused" in first) throw new Error(first.refused);
		expect(first.result.ok).toBe(false);
		const host2 = await openHost({ cwd: p.cwd, agentDir: p.agentDir, transport: FAST });
		const second = await resumeRun({
			runDir: first.runDir,
			cwd: p.cwd,
			spawn: host2.spawn,
			models: (f) => {
				const m = resolveModels(f, host2.resolveModel, "wire-anthropic/wire-1");
				return m.ok ? m.models : m.errors;
			},
			somebodyThere: true,
			inDoubt: "stop",
		});
		if ("refused" in second) throw new Error(second.refused);
		expect(second.result.ok, second.result.error).toBe(true);
		const usage = usageJson(first.runDir);
		expect(usage.lives).toHaveLength(2);
		expect(usage.total.retries).toBe(1);
		const { input, output, cacheRead, cacheWrite, cost } = usage.total;
		expect({ input, output, cacheRead, cacheWrite, cost: Number(cost.toFixed(12)) }).toEqual(serverBill(wire.server));
		// The cut attempt billed its input (Anthropic reports it first), and that is in the total too.
		expect(wire.server.ledger.find((e) => e.outcome === "cut")?.billed.cacheWrite ?? 0).toBeGreaterThan(0);
	}, 60_000);
});
