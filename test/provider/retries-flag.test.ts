/**
 * Issue 16: `--retries N` (and `--retry-wait D`) bound a run's transport retries on every surface that
 * launches one, read the same way: `pi-flows chain` as a subprocess and `/run` in a real pi process, both
 * against the provider server. A server that answers 503 to everything sees exactly N requests.
 */
import { cliBin } from "../helpers/built-cli.ts";
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readTransportFlags } from "../../src/launch/index.ts";
import { startProviderServer, type ProviderServer } from "../../src/provider/index.ts";
import { readCommandLine } from "../../src/extension/args.ts";
import { sequence } from "../extension/helpers/flows.ts";
import { contentOf, flowResults, rpc, sandbox } from "../extension/helpers/pi-process.ts";
import type { Wire } from "../helpers/wire.ts";
import { wireProject } from "../helpers/wire.ts";

let wire: Wire | undefined;
let server: ProviderServer | undefined;
const children: ChildProcess[] = [];
afterEach(async () => {
	for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
	await wire?.close();
	await server?.close();
	wire = undefined;
	server = undefined;
});

function cli(args: string[], cwd: string, env: NodeJS.ProcessEnv) {
	return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
		const child = spawn(process.execPath, [cliBin(), ...args], { cwd, env });
		children.push(child);
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (d) => (stdout += d));
		child.stderr.on("data", (d) => (stderr += d));
		child.on("close", (code) => resolve({ code, stdout, stderr }));
	});
}

describe("--retries is read one way", () => {
	it("takes a whole number of tries above 0 and a duration, and says what is wrong otherwise", () => {
		expect(readTransportFlags("3", "30s")).toEqual({ ok: true, value: { attempts: 3, totalWaitMs: 30_000 } });
		expect(readTransportFlags(undefined, undefined)).toEqual({ ok: true });
		expect(readTransportFlags("0", undefined)).toMatchObject({
			ok: false,
			error: expect.stringContaining("--retries"),
		});
		expect(readTransportFlags("2.5", undefined)).toMatchObject({ ok: false });
		expect(readTransportFlags(undefined, "soon")).toMatchObject({ ok: false, error: expect.stringContaining("5m") });
	});

	it("is a flag of /run, at either end of the line", () => {
		const line = readCommandLine("--retries 2 explore what is here --retry-wait 10s");
		expect(line).toMatchObject({
			ok: true,
			value: { name: "explore", input: "what is here", flags: { "--retries": "2", "--retry-wait": "10s" } },
		});
	});
});

describe("pi-flows chain --retries", () => {
	it("sends each request at most N times, then fails the step with kind provider", async () => {
		wire = await wireProject({ script: () => ({ fault: "503" }) });
		const p = wire.project;
		const r = await cli(["chain", "@scout", "look around", "--model", "wire/wire-1", "--retries", "2"], p.cwd, p.env);
		expect(r.code, r.stderr).toBe(1);
		expect(wire.server.requests).toHaveLength(2);
		expect(r.stderr).toMatch(/503/);
		expect(r.stderr).toMatch(/request sent again/);
	}, 60_000);

	it("refuses a bad value before anything runs", async () => {
		wire = await wireProject({ script: () => ({ text: "never" }) });
		const p = wire.project;
		const r = await cli(["chain", "@scout", "look", "--model", "wire/wire-1", "--retries", "0"], p.cwd, p.env);
		expect(r.code).toBe(2);
		expect(r.stderr).toContain("--retries takes a whole number of tries above 0, not `0`");
		expect(wire.server.requests).toHaveLength(0);
	}, 60_000);
});

describe("/run --retries in a real pi process", () => {
	it("bounds the run's transport retries as `pi-flows run --retries` does", async () => {
		server = await startProviderServer({ script: () => ({ fault: "503" }) });
		const box = sandbox(["echo"]);
		try {
			writeFileSync(join(box.agentDir, "models.json"), JSON.stringify(server.modelsJson()));
			box.write("~agent/flows/hello.md", sequence("hello", [{ id: "greet", agent: "echo" }]));
			const pi = rpc(box);
			try {
				await pi.prompt("/run hello say hello --model wire/wire-1 --retries 2");
				const [result] = flowResults(pi.lines);
				expect(contentOf(result)).toMatch(/503/);
				expect(server.requests).toHaveLength(2);
				await pi.prompt("/run hello say hello --retries none");
				expect(pi.lines.map((l) => JSON.stringify(l)).join("\n")).toContain(
					"--retries takes a whole number of tries above 0",
				);
				expect(server.requests).toHaveLength(2);
			} finally {
				await pi.close();
			}
		} finally {
			box.cleanup();
		}
	}, 90_000);
});
