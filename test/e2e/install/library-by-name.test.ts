/**
 * pi-flows as a library, installed from the tarball into an empty project with npm: `import ... from
 * "pi-flows"` resolves to the built code, a small TypeScript program type-checks against the shipped
 * `.d.ts`, and it runs: the roster, a flow checked, a real spawn on pi running a chain on the scripted model.
 * The installed `pi-flows` command answers `--help` and `check`, and a part that cannot load costs only its
 * own command.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, installForLibrary, node, pack, repo, scratch } from "../../helpers/packed.ts";

const box = scratch("library");
const project = join(box.dir, "project");
const installed = join(project, "node_modules/pi-flows");

beforeAll(() => {
	installForLibrary(pack(join(box.dir, "pack")), project);
}, 300_000);
afterAll(() => box.cleanup());

const PROGRAM = `import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentDef, type WorkflowResult, catalogueOptions, chain, checkFlowFile, loadRoster, openHost, readScript } from "pi-flows";

const cwd = process.cwd();
const roster = loadRoster(cwd);
const scout = roster.get("scout");
if (!scout || scout.kind === "broken") throw new Error("no scout in the shipped roster");
const explore = join(cwd, "node_modules/pi-flows/flows/explore.md");
const checked = checkFlowFile(explore, roster, catalogueOptions(cwd));
const script = readScript('turns:\\n  "*":\\n    - say: HELLO FROM A LIBRARY\\n', "inline.yaml");
if (!script.value) throw new Error("the script does not read");
const host = await openHost({ cwd, agentDir: mkdtempSync(join(tmpdir(), "agent-")), script: script.value });
const steps: AgentDef[] = [scout];
const result: WorkflowResult = await chain({ steps, input: "say hello", cwd, spawn: host.spawn, model: "scripted/scripted", timeoutMs: 60_000 });
console.log(JSON.stringify({ agents: roster.names().length, checked: checked.faults.length === 0 && checked.value !== undefined, ok: result.ok, output: result.output, open: host.open() }));
`;

/** tsc (the repository's) on one file of the project, with a consumer's ordinary strict settings. */
function typecheck(file: string) {
	const config = join(project, `tsconfig.${file}.json`);
	const compilerOptions = {
		target: "ES2023",
		module: "NodeNext",
		moduleResolution: "NodeNext",
		strict: true,
		noEmit: true,
		skipLibCheck: true,
		types: ["node"],
		typeRoots: [join(repo, "node_modules/@types")],
	};
	writeFileSync(config, JSON.stringify({ compilerOptions, files: [file] }));
	return spawnSync(node, [join(repo, "node_modules/typescript/bin/tsc"), "-p", config], {
		cwd: project,
		encoding: "utf8",
	});
}

describe("pi-flows installed with npm", () => {
	it("type-checks a program that imports it by name against the shipped types, then runs it", () => {
		writeFileSync(join(project, "main.ts"), PROGRAM);
		const tsc = typecheck("main.ts");
		expect(tsc.stdout + tsc.stderr).toBe("");
		expect(tsc.status).toBe(0);
		// A type error is caught: the types are real, not `any`.
		writeFileSync(join(project, "wrong.ts"), 'import { chain } from "pi-flows";\nchain({ steps: [], input: 42 });\n');
		const wrong = typecheck("wrong.ts");
		expect(wrong.status).not.toBe(0);
		expect(wrong.stdout).toMatch(/wrong\.ts\(2,\d+\): error TS2322/);

		const ran = spawnSync(node, ["main.ts"], { cwd: project, env: cleanEnv(), encoding: "utf8", timeout: 120_000 });
		expect(ran.status, ran.stderr).toBe(0);
		expect(JSON.parse(ran.stdout.trim().split("\n").at(-1) ?? "")).toEqual({
			agents: 9,
			checked: true,
			ok: true,
			output: "HELLO FROM A LIBRARY",
			open: 0,
		});
	}, 180_000);

	it("its command answers --help for every command and checks a shipped flow", () => {
		const bin = join(installed, "bin/pi-flows.js");
		const help = spawnSync(node, [bin, "--help"], { cwd: project, env: cleanEnv(), encoding: "utf8" });
		expect(help.status).toBe(0);
		expect(help.stdout).toMatch(/^usage: pi-flows <command>/);
		const commands = [...help.stdout.matchAll(/^ {2}([a-z]+) /gm)].map((m) => m[1]);
		expect(commands.length).toBeGreaterThan(10);
		for (const command of commands) {
			const one = spawnSync(node, [bin, command, "--help"], { cwd: project, env: cleanEnv(), encoding: "utf8" });
			expect(one.status, command).toBe(0);
			expect(one.stdout, command).toMatch(new RegExp(`^usage: pi-flows ${command}`));
		}
		// Every shipped flow, so each grammar (rebuilt from the recipes the build wrote) is used.
		const check = spawnSync(node, [bin, "check", join(installed, "flows")], {
			cwd: project,
			env: cleanEnv(),
			encoding: "utf8",
		});
		expect(check.stderr).toMatch(/^\d+ flow file\(s\) checked, 0 with faults$/m);
		expect(check.status).toBe(0);
	}, 120_000);

	it("its mcp command answers tools/list from the installed package (the SDK bundled in its own chunk)", async () => {
		const client = new Client({ name: "install-test", version: "1.0.0" });
		await client.connect(
			new StdioClientTransport({
				command: node,
				args: [join(installed, "bin/pi-flows.js"), "mcp"],
				cwd: project,
				env: cleanEnv({ PI_CODING_AGENT_DIR: join(box.dir, "agent") }) as Record<string, string>,
				stderr: "pipe",
			}),
		);
		try {
			const names = (await client.listTools()).tools.map((t) => t.name);
			expect(names).toEqual(expect.arrayContaining(["explore", "chain", "flow_check", "run_result"]));
		} finally {
			await client.close();
		}
	}, 60_000);

	it("the extension registers its commands and tools without loading the flow layer or the evaluator", () => {
		// A stand-in for pi's API that records registrations; a loader hook records every file Node loads.
		writeFileSync(
			join(project, "hook.mjs"),
			'import { registerHooks } from "node:module";\nglobalThis.loaded = [];\nregisterHooks({ load(url, context, next) { globalThis.loaded.push(url); return next(url, context); } });\n',
		);
		writeFileSync(
			join(project, "load-extension.mjs"),
			[
				'import piFlows from "pi-flows/extension";',
				"const registered = [];",
				'const pi = new Proxy({}, { get: (_, key) => (...args) => { if (key === "registerCommand") registered.push(`/${args[0]}`); if (key === "registerTool") registered.push(args[0].name); } });',
				"piFlows(pi);",
				'console.log(JSON.stringify({ registered: registered.sort(), loaded: globalThis.loaded.filter((u) => u.includes("/pi-flows/")) }));',
			].join("\n"),
		);
		const out = spawnSync(node, ["--import", "./hook.mjs", "load-extension.mjs"], {
			cwd: project,
			env: cleanEnv(),
			encoding: "utf8",
		});
		expect(out.status, out.stderr).toBe(0);
		const { registered, loaded } = JSON.parse(out.stdout) as { registered: string[]; loaded: string[] };
		expect(registered).toEqual(
			["/cut", "/flows", "/handoff", "/next", "/run", "/step", "checkpoint", "finish", "subagent"].sort(),
		);
		// What was loaded holds none of the flow layer: no flow reader, checker or evaluator, no grammar engine.
		const code = loaded.map((u) => readFileSync(new URL(u), "utf8")).join("\n");
		expect(loaded.length).toBeLessThanOrEqual(4);
		for (const marker of [
			"function runFlow(",
			"function checkFlowFile(",
			"function loadRoster(",
			"remark-frontmatter",
			"makeRecipe",
		])
			expect(code, marker).not.toContain(marker);
	}, 60_000);

	it("a part that cannot load (the language server's chunk removed) fails that command with a clear message; check still works", () => {
		const chunks = join(installed, "dist/chunks/cli");
		for (const f of readdirSync(chunks).filter((f) => f.startsWith("lsp-"))) rmSync(join(chunks, f));
		const bin = join(installed, "bin/pi-flows.js");
		const lsp = spawnSync(node, [bin, "lsp"], { cwd: project, env: cleanEnv(), encoding: "utf8", input: "" });
		expect(lsp.status).toBe(70);
		expect(lsp.stderr).toMatch(
			/^pi-flows lsp: this command's code cannot be loaded \(.*\); the other commands are unaffected/,
		);
		const check = spawnSync(node, [bin, "check", join(installed, "flows/explore.md")], {
			cwd: project,
			env: cleanEnv(),
			encoding: "utf8",
		});
		expect(check.status).toBe(0);
		execFileSync(node, [bin, "schema"], { cwd: project, env: cleanEnv() });
	}, 120_000);
});
