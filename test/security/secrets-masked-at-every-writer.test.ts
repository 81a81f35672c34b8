/**
 * Hole 10 (issue 28): a provider error that echoes the key (`Incorrect API key provided: sk-…`, as OpenAI's
 * 401 does) landed verbatim in the journal, events, transcripts, result.json, report.html and stderr, and a
 * check script that prints `env` put `ANTHROPIC_API_KEY` into the journal and into the next agent's prompt.
 * pi-flows knows every key it resolved; each writer now masks them all.
 */
import { cliBin } from "../helpers/built-cli.ts";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TempProject } from "../helpers/project.ts";
import { cleanup, repo } from "./helpers.ts";

const ENV_KEY = "sk-canary-env-91b2c7d4e5";
const AUTH_KEY = "sk-canary-auth-3e8f0a6b12";
const MODELS_KEY = "sk-canary-models-77aa01bc";
const AMBIENT = "sk-ant-canary-ambient-2f9d";
const TOKEN = "ghp_canaryTokenValue0123456789";

let server: Server;
let port = 0;

/** A chat-completions endpoint that refuses every request and, as OpenAI does, echoes the key it was sent. */
function refuse(req: IncomingMessage, res: ServerResponse): void {
	const key = String(req.headers.authorization ?? "").replace(/^Bearer /, "");
	req.resume();
	req.on("end", () => {
		res.writeHead(401, { "content-type": "application/json" });
		res.end(
			JSON.stringify({ error: { message: `Incorrect API key provided: ${key}.`, type: "invalid_request_error" } }),
		);
	});
}

beforeAll(async () => {
	server = createServer(refuse);
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
	cleanup();
	await new Promise<void>((resolve) => server.close(() => resolve()));
});

function cli(p: TempProject, env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number | null; out: string }> {
	return new Promise((resolve) => {
		const child = spawn(process.execPath, [cliBin(), ...args], { cwd: p.cwd, env });
		let out = "";
		child.stdout.on("data", (d) => (out += d));
		child.stderr.on("data", (d) => (out += d));
		child.once("exit", (code) => resolve({ code, out }));
	});
}

function filesUnder(dir: string): { file: string; text: string }[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		return statSync(path).isDirectory() ? filesUnder(path) : [{ file: path, text: readFileSync(path, "utf8") }];
	});
}

function project(): { p: TempProject; env: NodeJS.ProcessEnv } {
	const p = repo();
	const provider = (apiKey?: string) => ({
		baseUrl: `http://127.0.0.1:${port}/v1`,
		api: "openai-completions",
		...(apiKey ? { apiKey } : {}),
		models: [{ id: "m", contextWindow: 32000, maxTokens: 1000 }],
	});
	p.write(
		"~agent/models.json",
		JSON.stringify({
			providers: { "from-env": provider("$CANARY_KEY"), "from-auth": provider(), "from-models": provider(MODELS_KEY) },
		}),
	);
	p.write("~agent/auth.json", JSON.stringify({ "from-auth": { type: "api_key", key: AUTH_KEY } }));
	return { p, env: { ...p.env, CANARY_KEY: ENV_KEY, ANTHROPIC_API_KEY: AMBIENT, GITHUB_TOKEN: TOKEN } };
}

const KEYS = [ENV_KEY, AUTH_KEY, MODELS_KEY, AMBIENT, TOKEN];

function expectNoKey(texts: { file: string; text: string }[]): void {
	for (const { file, text } of texts)
		for (const key of KEYS) expect(text.includes(key), `${key} in ${file}:\n${text.slice(0, 2000)}`).toBe(false);
}

describe("every writer masks the secrets pi-flows knows", () => {
	it("a 401 that echoes the key reaches no journal, event, transcript, result, report or stderr", async () => {
		const { p, env } = project();
		const models = ["from-env/m", "from-auth/m", "from-models/m"];
		const runs = await Promise.all(models.map((m) => cli(p, env, "run", "explore", "what is here?", "--model", m)));
		const outputs = runs.map((r, i) => {
			expect(r.code).not.toBe(0);
			// The provider's words arrive (the person needs them), the key inside them does not.
			expect(r.out).toContain("Incorrect API key provided: ***");
			return { file: `output of ${models[i]}`, text: r.out };
		});
		const report = await cli(p, env, "report", "--out", "report.html");
		outputs.push({ file: "report's output", text: report.out });
		const written = [
			...filesUnder(join(p.cwd, ".pi", "runs")),
			{ file: "report.html", text: readFileSync(join(p.cwd, "report.html"), "utf8") },
		];
		expect(written.map((w) => w.text).join("\n")).toContain("Incorrect API key provided: ***");
		expectNoKey([...written, ...outputs]);
	}, 240_000);

	it("a check script that prints `env` reaches neither the journal nor the next agent's prompt with a key in it", async () => {
		const { p, env } = project();
		p.write(
			".pi/flows/envcheck.md",
			`---
name: envcheck
description: runs a check that prints its environment, then an auditor reads it
input: string
nodes:
  - id: tests
    check: .pi/checks/env.sh
  - id: audit
    agent: auditor
    reads: [tests]
---
## audit
Judge the tests.
`,
		);
		p.write(".pi/checks/env.sh", "env\n");
		p.write("s.yaml", "turns:\n  audit:\n    - say: judged\n");
		const r = await cli(p, env, "run", "envcheck", "go", "--script", "s.yaml", "--project");
		expect(r.code, r.out).toBe(0);
		const written = filesUnder(join(p.cwd, ".pi", "runs"));
		const journal = written.find((w) => w.file.endsWith("journal.jsonl"))?.text ?? "";
		// The script did print the environment (so the test can fail), with the keys masked.
		expect(journal).toContain("ANTHROPIC_API_KEY=***");
		const prompts = written.filter((w) => w.file.includes("transcripts")).map((w) => w.text);
		expect(prompts.join("\n")).toContain("GITHUB_TOKEN=***");
		expectNoKey([...written, { file: "output", text: r.out }]);
	}, 240_000);
});
