/**
 * Hole 12 (issue 28): `pi-flows provider --agent-dir` replaced `models.json` whole, dropping every provider
 * the person had configured there (their base URLs and keys), with no copy. Now it merges: every other
 * provider is kept, the old file is copied beside it first, and a file it cannot read is left alone.
 */
import { cliBin } from "../helpers/built-cli.ts";
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type TempProject, tempProject } from "../helpers/project.ts";

const projects: TempProject[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
	for (const c of children.splice(0)) c.kill("SIGTERM");
});
afterAll(() => {
	for (const p of projects) p.cleanup();
});

const CONFIGURED = {
	providers: {
		"anthropic-proxy": { baseUrl: "https://proxy.example/v1", api: "anthropic-messages", apiKey: "$PROXY_KEY" },
		local: { baseUrl: "http://127.0.0.1:11434/v1", api: "openai-completions", models: [{ id: "qwen" }] },
	},
};

/** Starts the provider on `dir` and resolves once it has written the file (it prints its address then). */
function provider(p: TempProject, dir: string): Promise<{ code: number | null; stderr: string }> {
	return new Promise((resolve) => {
		const child = spawn(process.execPath, [cliBin(), "provider", "--agent-dir", dir], {
			cwd: p.cwd,
			env: p.env,
		});
		children.push(child);
		let stderr = "";
		child.stderr.on("data", (d) => {
			stderr += d;
			if (stderr.includes("Ctrl-C stops")) resolve({ code: null, stderr });
		});
		child.once("exit", (code) => resolve({ code, stderr }));
	});
}

describe("`pi-flows provider --agent-dir` adds to models.json", () => {
	it("keeps every configured provider and copies the old file first", async () => {
		const p = tempProject();
		projects.push(p);
		const file = p.write("~agent/models.json", `${JSON.stringify(CONFIGURED, null, 2)}\n`);
		const r = await provider(p, p.agentDir);
		expect(r.stderr).toContain("keeping anthropic-proxy, local");
		const now = JSON.parse(readFileSync(file, "utf8"));
		expect(Object.keys(now.providers).sort()).toEqual(["anthropic-proxy", "local", "wire", "wire-anthropic"]);
		expect(now.providers["anthropic-proxy"]).toEqual(CONFIGURED.providers["anthropic-proxy"]);
		const copies = readdirSync(p.agentDir).filter((f) => /^models\.json\..*\.bak$/.test(f));
		expect(copies).toHaveLength(1);
		expect(JSON.parse(readFileSync(join(p.agentDir, copies[0]), "utf8"))).toEqual(CONFIGURED);
		expect(statSync(file).mode & 0o777).toBe(statSync(join(p.agentDir, copies[0])).mode & 0o777);
	}, 60_000);

	it("refuses a models.json that is not JSON, and leaves it as it was", async () => {
		const p = tempProject();
		projects.push(p);
		const file = p.write("~agent/models.json", '{ "providers": { "mine": ');
		const r = await provider(p, p.agentDir);
		expect(r.code).toBe(2);
		expect(r.stderr).toContain("is not valid JSON");
		expect(readFileSync(file, "utf8")).toBe('{ "providers": { "mine": ');
	}, 60_000);
});
