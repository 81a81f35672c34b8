/**
 * Secrets stay out (issue 21): a canary API key in the environment and one in pi's `auth.json` reach the
 * provider (a local OpenAI-compatible server, over HTTP, as a real provider is reached) and appear in
 * no run file, transcript, event, report or message, whether the turn succeeds or the provider refuses.
 */
import { cliBin } from "../helpers/built-cli.ts";
import { spawn } from "node:child_process";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TempProject } from "../helpers/project.ts";
import { cleanup, repo } from "./helpers.ts";

const ENV_KEY = "sk-canary-env-7f3a9c1e";
const AUTH_KEY = "sk-canary-auth-42d8b6f0";
const AMBIENT_KEY = "sk-ant-canary-ambient-5e1c";

let server: Server;
let port = 0;
const seen: string[] = [];
let refuse = false;

/** A chat-completions endpoint: streams one short answer, or refuses with 401 when `refuse` is set. */
function answer(req: IncomingMessage, res: ServerResponse): void {
	seen.push(String(req.headers.authorization ?? ""));
	req.resume();
	req.on("end", () => {
		if (refuse) {
			res.writeHead(401, { "content-type": "application/json" });
			res.end(JSON.stringify({ error: { message: "invalid api key", type: "invalid_request_error" } }));
			return;
		}
		res.writeHead(200, { "content-type": "text/event-stream" });
		const chunk = (o: unknown) => res.write(`data: ${JSON.stringify(o)}\n\n`);
		const base = { id: "c1", object: "chat.completion.chunk", created: 1, model: "m" };
		chunk({
			...base,
			choices: [{ index: 0, delta: { role: "assistant", content: "looked around" }, finish_reason: null }],
		});
		chunk({
			...base,
			choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
			usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
		});
		res.end("data: [DONE]\n\n");
	});
}

beforeAll(async () => {
	server = createServer(answer);
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
	cleanup();
	await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** The CLI run asynchronously, so this process's server can answer it. */
function cli(p: TempProject, env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number | null; out: string }> {
	return new Promise((resolve) => {
		const child = spawn(process.execPath, [cliBin(), ...args], { cwd: p.cwd, env });
		let out = "";
		child.stdout.on("data", (d) => (out += d));
		child.stderr.on("data", (d) => (out += d));
		child.once("exit", (code) => resolve({ code, out }));
	});
}

/** Every file under `dir`, with its text. */
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
		JSON.stringify({ providers: { "from-env": provider("$CANARY_KEY"), "from-auth": provider() } }),
	);
	p.write("~agent/auth.json", JSON.stringify({ "from-auth": { type: "api_key", key: AUTH_KEY } }));
	return { p, env: { ...p.env, CANARY_KEY: ENV_KEY, ANTHROPIC_API_KEY: AMBIENT_KEY, OPENAI_API_KEY: AMBIENT_KEY } };
}

describe("secrets stay out of everything a run writes or says", () => {
	it("keys from the environment and from auth.json reach the provider and nothing else, on success and on refusal", async () => {
		const { p, env } = project();
		const outputs: string[] = [];
		for (const model of ["from-env/m", "from-auth/m"]) {
			refuse = false;
			const ok = await cli(p, env, "run", "explore", "what is here?", "--model", model);
			expect(ok.code, ok.out).toBe(0);
			outputs.push(ok.out);
			refuse = true;
			const refused = await cli(p, env, "run", "explore", "what is here?", "--model", model);
			expect(refused.code).not.toBe(0);
			expect(refused.out).toContain("401");
			outputs.push(refused.out);
		}
		// The keys did travel: the test would prove nothing if they were never in the process.
		expect(seen.some((h) => h.includes(ENV_KEY))).toBe(true);
		expect(seen.some((h) => h.includes(AUTH_KEY))).toBe(true);
		const report = await cli(p, env, "report", "--out", "report.html");
		outputs.push(report.out);
		const written = [
			...filesUnder(join(p.cwd, ".pi", "runs")),
			{ file: "report.html", text: readFileSync(join(p.cwd, "report.html"), "utf8") },
		];
		expect(written.length).toBeGreaterThan(8);
		for (const { file, text } of [...written, ...outputs.map((text, i) => ({ file: `output ${i}`, text }))]) {
			for (const key of [ENV_KEY, AUTH_KEY, AMBIENT_KEY]) expect(text.includes(key), `${key} in ${file}`).toBe(false);
		}
	}, 240_000);
});
