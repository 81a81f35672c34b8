/**
 * pi-flows installed the way a pi user installs it: the packed tarball, `pi install` into a fresh agent
 * folder (peers omitted: pi supplies its own packages), listed as `npm:pi-flows` exactly as
 * `pi install npm:pi-flows` leaves it, and the real `pi --mode rpc` started on it. Offline: the tarball
 * carries its dependencies, so npm never asks the registry.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, node, pack, piCli, scratch, tarballFiles } from "../../helpers/packed.ts";
import { piRpc } from "../../helpers/pi-rpc.ts";

const box = scratch("pi-install");
const agentDir = join(box.dir, "agent");
const project = join(box.dir, "project");
let tarball: string;

beforeAll(() => {
	tarball = pack(join(box.dir, "pack"));
	mkdirSync(agentDir, { recursive: true });
	mkdirSync(project, { recursive: true });
}, 300_000);
afterAll(() => box.cleanup());

const piEnv = () => cleanEnv({ PI_CODING_AGENT_DIR: agentDir });

describe("the packed tarball", () => {
	it("ships the build, the shipped agents, flows and grammars, and no tests, benches or fixtures", () => {
		const files = tarballFiles(tarball);
		for (const f of [
			"dist/cli.js",
			"dist/extension.js",
			"extension.ts",
			"dist/index.js",
			"dist/types/index.d.ts",
			"bin/pi-flows.js",
			"flows/explore.md",
			"flows/explore.script.yaml",
			"agents/scout.md",
			"grammar/chain.ohm",
			"dist/grammar/chain.ohm.json",
			"README.md",
		]) {
			expect(files, f).toContain(f);
		}
		// The bundled dependencies (node_modules/: DBOS, pg and theirs) ship as their authors published them.
		const ours = files.filter((f) => !f.startsWith("node_modules/"));
		const unwanted = ours.filter(
			(f) => /^(test|bench|fuzz|scripts|src)\//.test(f) || /fixtures?\//.test(f) || /\.test\.(ts|js|yaml)$/.test(f),
		);
		expect(unwanted).toEqual([]);
	});
});

describe("pi install of the tarball", () => {
	it("installs offline into the agent folder, loads as npm:pi-flows, and /run explore completes with an ok result.json", async () => {
		const installed = spawnSync(node, [piCli, "install", `npm:${tarball}`], {
			cwd: project,
			env: piEnv(),
			encoding: "utf8",
			timeout: 180_000,
		});
		expect(installed.status, installed.stderr).toBe(0);
		const home = join(agentDir, "npm/node_modules/pi-flows");
		expect(existsSync(join(home, "package.json"))).toBe(true);
		// Exactly what `pi install npm:pi-flows` leaves in settings.json.
		writeFileSync(join(agentDir, "settings.json"), `${JSON.stringify({ packages: ["npm:pi-flows"] }, null, 2)}\n`);

		const pi = piRpc(project, piEnv());
		try {
			const commands = await pi.request({ type: "get_commands" });
			const listed = (
				commands.data as { commands: { name: string; source: string; sourceInfo?: { source?: string } }[] }
			).commands;
			const ours = listed.filter((c) => c.sourceInfo?.source === "npm:pi-flows").map((c) => c.name);
			expect(ours.sort()).toEqual(["cut", "flows", "handoff", "next", "run", "step"]);
			// No extension failed to load (a module pi does not provide would show here).
			expect(pi.lines.filter((l) => l.type === "extension_error")).toEqual([]);
			expect(pi.stderr()).not.toMatch(/Failed to load extension/);

			const script = join(home, "flows/explore.script.yaml");
			const run = await pi.request({ type: "prompt", message: `/run explore "What is pi-flows?" --script ${script}` });
			expect(run.success, JSON.stringify(run)).toBe(true);
			const runs = join(project, ".pi/runs");
			const [folder] = readdirSync(runs);
			const result = JSON.parse(readFileSync(join(runs, folder, "result.json"), "utf8")) as {
				flow: string;
				ok: boolean;
				output: string;
			};
			expect(result).toMatchObject({ flow: "explore", ok: true });
			expect(result.output).toContain("pi-flows runs multi-agent work");
			expect(pi.lines.filter((l) => l.type === "extension_error")).toEqual([]);
		} finally {
			await pi.close();
		}
	}, 300_000);

	it("offers the subagent tool to the model of an ordinary session", async () => {
		// A probe model (its own tiny extension, importing only what pi provides) answers with the tool names
		// the request carried.
		const probe = join(box.dir, "probe.ts");
		writeFileSync(
			probe,
			[
				'import { fauxAssistantMessage, fauxProvider } from "@earendil-works/pi-ai";',
				"export default function (pi) {",
				'\tconst faux = fauxProvider({ provider: "probe", models: [{ id: "probe" }] });',
				'\tconst names = (context) => context.messages.flatMap((m) => (m.role === "system" ? (m.toolsAdded ?? []) : [])).map((t) => t.name);',
				'\tfaux.setResponses([(context) => fauxAssistantMessage(`TOOLS: ${names(context).sort().join(",")}`)]);',
				"\tpi.registerProvider(faux.provider);",
				"}",
				"",
			].join("\n"),
		);
		const out = spawnSync(node, [piCli, "--no-session", "-e", probe, "--model", "probe/probe", "-p", "which tools?"], {
			cwd: project,
			env: piEnv(),
			encoding: "utf8",
			timeout: 120_000,
		});
		expect(out.status, out.stderr).toBe(0);
		const tools = /TOOLS: (.*)/.exec(out.stdout)?.[1].split(",") ?? [];
		expect(tools, out.stdout).toContain("subagent");
	}, 180_000);
});
