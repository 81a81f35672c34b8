/**
 * The `pi-flows` binary, run as a subprocess in a temp project with its own pi agent dir: what a person
 * at a terminal sees, exit codes included.
 */
import { cliBin } from "../helpers/built-cli.ts";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/agents/index.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

const cli = (...args: string[]) => cliWith(project.env, ...args);

function cliWith(env: NodeJS.ProcessEnv, ...args: string[]) {
	const r = spawnSync(process.execPath, [cliBin(), ...args], {
		cwd: project.cwd,
		env,
		encoding: "utf8",
		timeout: 60_000,
	});
	return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const flow = (nodes: string, sections: string) =>
	`---\nname: mine\ndescription: d\ninput: string\nnodes:\n${nodes}---\n\n${sections}`;

describe("pi-flows run", () => {
	it("runs a project flow on the scripted model: the answer on stdout, a line per node on stderr", () => {
		project.write("notes.md", "Herons stand still for a long time.\n");
		project.write(
			".pi/flows/mine.md",
			flow("  - id: look\n    agent: scout\n    reads: [input]\n", "## look\nRead the notes.\n"),
		);
		project.write(
			"s.yaml",
			'turns:\n  look:\n    - call: read\n      args: { path: notes.md }\n    - say: "notes say: {{result}}"\n',
		);
		const r = cli("run", "mine", "what", "do", "herons", "do?", "--script", "s.yaml", "--project");
		expect(r.stderr).toContain("✓ look · scout · scripted/scripted");
		expect(r.code).toBe(0);
		expect(r.stdout.trim()).toBe("notes say: Herons stand still for a long time.");
	});

	it("exits 1 naming the node when the run fails", () => {
		project.write(".pi/flows/mine.md", flow("  - id: look\n    agent: scout\n", "## look\nx\n"));
		project.write("s.yaml", "turns:\n  look:\n    - fail: quota exceeded\n");
		const r = cli("run", "mine", "q", "--script", "s.yaml", "--project");
		expect(r.code).toBe(1);
		expect(r.stderr).toContain("the run failed at look: provider: quota exceeded");
		expect(r.stdout).toBe("");
	});

	it("exits 2 before anything runs when a model's provider has no credentials", () => {
		const env = { ...project.env };
		for (const key of Object.keys(env)) if (key.startsWith("ANTHROPIC_")) delete env[key];
		const r = cliWith(env, "run", "explore", "how?", "--model", "anthropic/claude-sonnet-4-5");
		expect(r.code).toBe(2);
		expect(r.stderr).toContain(
			"pi-flows: no credentials for anthropic (anthropic/claude-sonnet-4-5, used by scout, answer)",
		);
		expect(r.stderr).toContain("pi-flows: nothing was run");
		expect(r.stderr).not.toContain("▶");
		expect(existsSync(join(project.cwd, ".pi", "runs"))).toBe(false);
	});

	it("exits 2 with the nearest names for an unknown flow", () => {
		const r = cli("run", "explor", "q");
		expect(r.code).toBe(2);
		expect(r.stderr).toContain("no flow named `explor`. Did you mean `explore`?");
	});

	it("exits 2 with positioned faults for a flow that does not check, and spawns nothing", () => {
		project.write(".pi/flows/mine.md", flow("  - id: look\n    agent: scuot\n", "## look\nx\n"));
		const r = cli("run", "mine", "q", "--script", "s.yaml", "--project");
		expect(r.code).toBe(2);
		expect(r.stderr).toContain(".pi/flows/mine.md:7:12: unknown-agent: no agent `scuot`. Did you mean `scout`?");
	});

	it("exits 2 for a malformed script before the first turn", () => {
		project.write(".pi/flows/mine.md", flow("  - id: look\n    agent: scout\n", "## look\nx\n"));
		project.write("s.yaml", "turns:\n  lok:\n    - say: hi\n");
		const r = cli("run", "mine", "q", "--script", "s.yaml", "--project");
		expect(r.code).toBe(2);
		expect(r.stderr).toContain(
			"s.yaml:2:3: script-unknown-node: the script's key `lok` names no agent node of the flow. Did you mean `look`?",
		);
	});

	it("exits 2 for an unknown model, with no turn", () => {
		const r = cli("run", "explore", "q", "--model", "nosuch/model");
		expect(r.code).toBe(2);
		// Said once, naming every node the run's model would have reached.
		expect(r.stderr).toContain("pi-flows: look/scout, answer: unknown model `nosuch/model`");
		expect(r.stderr.match(/unknown model/g)).toHaveLength(1);
		expect(r.stderr).toContain("pi-flows: nothing was run");
	});

	it("refuses an unknown flag with the nearest one", () => {
		const r = cli("run", "explore", "q", "--modle", "x");
		expect(r.code).toBe(2);
		expect(r.stderr).toContain("unknown flag --modle. Did you mean `--model`?");
	});

	it("prints the whole result as JSON with --json", () => {
		const r = cli("run", "explore", "q", "--script", `${PACKAGE_ROOT}/flows/explore.script.yaml`, "--json");
		// The temp project has no README, so the scout's read fails as a tool error and the scripted turn goes on.
		expect(r.code).toBe(0);
		const result = JSON.parse(r.stdout);
		expect(result).toMatchObject({ flow: "explore", ok: true });
		const paths = result.visits.map((v: { path: string }) => v.path);
		expect(paths.slice(0, 3).sort()).toEqual(["look[1]/scout", "look[2]/scout", "look[3]/scout"]);
		expect(paths.slice(3)).toEqual(["look", "answer"]);
	});
});

describe("pi-flows check and list", () => {
	it("prints path:line:col: code: message and exits 1 on faults, 0 when clean", () => {
		project.write(
			"flows/bad.md",
			flow("  - id: look\n    agent: scout\n    reads: [plan]\n", "## look\nx\n").replace("name: mine", "name: bad"),
		);
		project.write(
			"flows/good.md",
			flow("  - id: look\n    agent: scout\n", "## look\nx\n").replace("name: mine", "name: good"),
		);
		const bad = cli("check", "flows/bad.md");
		expect(bad.code).toBe(1);
		expect(bad.stdout.trim()).toBe(
			"flows/bad.md:8:13: unknown-address: `plan` names nothing readable here. Readable here: input. (look.reads)",
		);
		expect(cli("check", "flows/good.md").code).toBe(0);
		const json = JSON.parse(cli("check", "flows", "--json").stdout);
		expect(json.map((r: { file: string; ok: boolean }) => [r.file, r.ok])).toEqual([
			["flows/bad.md", false],
			["flows/good.md", true],
		]);
	});

	it("lists every flow with its source and whether it checks", () => {
		project.write(".pi/flows/mine.md", flow("  - id: look\n    agent: nobody\n", "## look\nx\n"));
		const r = cli("list", "--project");
		expect(r.code).toBe(0);
		expect(r.stdout).toMatch(/explore\s+shipped\s+checks/);
		expect(r.stdout).toMatch(/mine\s+project\s+1 fault/);
	});
});
