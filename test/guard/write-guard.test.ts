/**
 * The write guard's one list, as a table of paths: every folder pi-flows or pi reads definitions, settings
 * or credentials from, in the project (from the folder a turn works in and every folder above it) and in
 * the person's home (pi's agent folder whole, Claude Code's agents), is guarded; ordinary project files,
 * and names that merely look alike, are not.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/agents/index.ts";
import { guardedPaths, guardHit } from "../../src/guard/index.ts";

const root = mkdtempSync(join(tmpdir(), "pi-flows-guard-"));
const home = join(root, "home");
const agent = join(root, "agent-dir");
const project = join(home, "src", "repo");
const copy = join(root, "pi-flows-copy-ab12");
const env = { HOME: home, PI_CODING_AGENT_DIR: agent };
const guarded = guardedPaths({
	cwd: join(project, "sub"),
	also: [project],
	records: [join(project, "out", "runs")],
	env,
});
const inCopy = guardedPaths({ cwd: copy, also: [project], env });
afterAll(() => rmSync(root, { recursive: true, force: true }));

const GUARDED: [what: string, path: string][] = [
	["a project flow", ".pi/flows/x.md"],
	["a project agent", ".pi/agents/evil.md"],
	["a project chain", ".pi/chains/x.chain.md"],
	["a project skill", ".pi/skills/s/SKILL.md"],
	["a prompt template", ".pi/prompts/p.md"],
	["a project extension", ".pi/extensions/e.ts"],
	["a theme", ".pi/themes/t.json"],
	["the project's settings", ".pi/settings.json"],
	["the project's MCP servers", ".pi/mcp.json"],
	["the project's system prompt", ".pi/SYSTEM.md"],
	["its appended system prompt", ".pi/APPEND_SYSTEM.md"],
	["a run folder", ".pi/runs/2026-01-01_x/snapshot.json"],
	["a drive record", ".pi/drive/current.json"],
	["Claude Code's agents", ".claude/agents/x.md"],
	["shared agent skills", ".agents/skills/s/SKILL.md"],
	["the sub-folder's own agents (definitions are found walking up)", "sub/.pi/agents/x.md"],
];

const USER: [what: string, path: string][] = [
	["models.json", join(agent, "models.json")],
	["auth.json", join(agent, "auth.json")],
	["the person's settings", join(agent, "settings.json")],
	["the person's agents", join(agent, "agents", "scout.md")],
	["the person's flows", join(agent, "flows", "x.md")],
	["the run key", join(agent, "pi-flows", "run-key")],
	["the person's extensions", join(agent, "extensions", "x.ts")],
	["~/.pi, whatever PI_CODING_AGENT_DIR says", join(home, ".pi", "agent", "models.json")],
	["~/.claude/agents", join(home, ".claude", "agents", "x.md")],
	["the package's shipped agents", join(PACKAGE_ROOT, "agents", "worker.md")],
	["the package's shipped flows", join(PACKAGE_ROOT, "flows", "build.md")],
	["a runs folder given with --runs-dir", join(project, "out", "runs", "r", "journal.jsonl")],
];

const FREE: [what: string, path: string][] = [
	["source code", "src/index.ts"],
	["the handoff document", "HANDOFF.md"],
	["a check script", ".pi/checks/test.sh"],
	["a file named like a folder", ".pi/flows.md"],
	["a folder whose name starts the same", ".pi/agents-old/x.md"],
	["a project's own .claude settings", ".claude/settings.json"],
	["notes", "docs/agents/x.md"],
];

describe("the write guard's one list", () => {
	it.each(GUARDED)("guards %s in the project", (_, path) => {
		expect(guardHit(join(project, path), guarded)).toBeDefined();
	});

	it.each(GUARDED)("guards %s inside a copy's worktree, and in the project the copy came from", (_, path) => {
		expect(guardHit(join(copy, path.replace(/^sub\//, "")), inCopy)).toBeDefined();
		expect(guardHit(join(project, path.replace(/^sub\//, "")), inCopy)).toBeDefined();
	});

	it.each(USER)("guards %s", (_, path) => {
		expect(guardHit(path, guarded)).toBeDefined();
	});

	it.each(FREE)("leaves %s alone", (_, path) => {
		expect(guardHit(join(project, path), guarded)).toBeUndefined();
	});

	it("follows links: a folder linked to the agent folder is the agent folder", () => {
		mkdirSync(agent, { recursive: true });
		mkdirSync(join(project, "docs"), { recursive: true });
		symlinkSync(agent, join(project, "docs", "config"));
		expect(guardHit(join(project, "docs", "config", "models.json"), guarded)).toBe(agent);
	});
});
