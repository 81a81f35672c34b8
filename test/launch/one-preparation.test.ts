/**
 * Issue 15: `pi-flows run` and pi's `/run` (and the `subagent` tool, which prepares as `/run` does) make a
 * checked flow ready through one preparation (src/launch/prepare.ts). So they refuse the same bad run with
 * the same positioned faults, and a good run starts with the same run options from either surface. The
 * runner is wrapped, not replaced: every run here really runs, on the scripted model.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { launch, prepareChain, prepareLaunch } from "../../src/extension/launch/index.ts";
import { NOBODY } from "../../src/engine/index.ts";
import type { StartOptions } from "../../src/runs/index.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { cli } from "../helpers/newcomer.ts";

const started = vi.hoisted(() => [] as unknown[]);
vi.mock("../../src/runs/index.ts", async (importOriginal) => {
	const actual = await importOriginal<typeof import("../../src/runs/index.ts")>();
	return {
		...actual,
		startRun: (...args: Parameters<typeof actual.startRun>) => {
			started.push(args[2]);
			return actual.startRun(...args);
		},
	};
});

let project: TempProject;
beforeEach(() => {
	project = tempProject();
	// The extension reads pi's agent dir from the environment; both surfaces see the project's.
	vi.stubEnv("PI_CODING_AGENT_DIR", project.agentDir);
	vi.stubEnv("PI_OFFLINE", "1");
	started.length = 0;
});
afterEach(() => {
	vi.unstubAllEnvs();
	project.cleanup();
});

/** The project trusted on both surfaces (`--project`; trusted in pi): its flows are read. */
const TRUSTED = { project: true };
const ctx = () => ({ cwd: project.cwd, model: undefined, modelRegistry: undefined as never });

/** A flow of one `scout` turn, with `extra` frontmatter and node keys. */
function oneTurn(name: string, node = "", extra = ""): string {
	return `---\nname: ${name}\ndescription: one turn\ninput: string\n${extra}nodes:\n  - id: look\n    agent: scout\n${node}---\n\n## look\n\nLook at the input.\n`;
}

/** The lines of a refusal that point at a place: `file:line:col: code: …`. */
const positioned = (lines: readonly string[]) => lines.filter((l) => /^[^:\s]+:\d+:\d+: [a-z-]+: /.test(l));

/** What `pi-flows run` and `/run` say, each refusing the same run. */
async function bothRefuse(flowPath: string, flags: { cli: string[]; ext: Record<string, unknown> }) {
	const r = await cli(project, "run", flowPath, "go", "--project", ...flags.cli);
	const p = await prepareLaunch({ name: flowPath, input: "go", ...flags.ext }, ctx(), TRUSTED, NOBODY);
	expect(r.code).toBe(2);
	expect(p.ok).toBe(false);
	expect(started).toEqual([]);
	return { cli: r.stderr.split("\n"), ext: p.ok ? [] : p.lines };
}

describe("one preparation: the same bad run, refused alike", () => {
	it("an unknown model written in the flow: the same fault at its column, from both", async () => {
		project.write("flows/m.md", oneTurn("m", "    model: nosuch/model-x\n"));
		const said = await bothRefuse("flows/m.md", { cli: [], ext: {} });
		const faults = positioned(said.cli);
		expect(faults).toHaveLength(1);
		expect(faults[0]).toMatch(/^flows\/m\.md:8:12: model-unknown: /);
		// The extension used to show only the error string; now it shows the fault where it is written.
		expect(positioned(said.ext)).toEqual(faults);
	});

	it("a missing check script: the same fault at its column, from both", async () => {
		project.write(
			"flows/c.md",
			"---\nname: c\ndescription: a check\ninput: string\nnodes:\n  - id: tests\n    check: .pi/checks/nope.sh\n---\n",
		);
		const said = await bothRefuse("flows/c.md", { cli: [], ext: {} });
		const faults = positioned(said.cli);
		expect(faults).toEqual([expect.stringMatching(/^flows\/c\.md:7:12: check-script-missing: /)]);
		expect(positioned(said.ext)).toEqual(faults);
	});

	it("a dry run's script naming a node the flow has not: the same fault, from both", async () => {
		project.write("flows/s.md", oneTurn("s"));
		project.write("s.yaml", 'turns:\n  lok:\n    - say: "hi"\n');
		const said = await bothRefuse("flows/s.md", { cli: ["--script", "s.yaml"], ext: { script: "s.yaml" } });
		const faults = positioned(said.cli);
		expect(faults).toHaveLength(1);
		expect(faults[0]).toMatch(/^s\.yaml:\d+:\d+: /);
		expect(positioned(said.ext)).toEqual(faults);
	});

	it("a launch budget that is no budget: both refuse before anything is prepared", async () => {
		project.write("flows/b.md", oneTurn("b"));
		const r = await cli(project, "run", "flows/b.md", "go", "--project", "--budget-tokens", "0");
		expect(r.code).toBe(2);
		expect(r.stderr).toContain("--budget-tokens");
		// `/run` reads its own flag (it takes `50k`); the number it passes on was refused the same way.
		const { readTokenBudget } = await import("../../src/extension/args.ts");
		expect(readTokenBudget("0")).toMatchObject({ ok: false });
		expect(started).toEqual([]);
	});
});

describe("one preparation: a good run starts with the same run options from both", () => {
	it("a dry run with a launch budget over the flow's own", async () => {
		project.write("flows/g.md", oneTurn("g", "", "budget: { tokens: 90000, turns: 5 }\n"));
		project.write("g.yaml", 'turns:\n  look:\n    - say: "seen"\n');
		const r = await cli(
			project,
			"run",
			"flows/g.md",
			"go",
			"--project",
			"--script",
			"g.yaml",
			"--budget-tokens",
			"5000",
		);
		expect(r.code, r.stderr).toBe(0);
		const p = await prepareLaunch(
			{ name: "flows/g.md", input: "go", script: "g.yaml", budgetTokens: 5000 },
			ctx(),
			TRUSTED,
			NOBODY,
		);
		expect(p.ok, p.ok ? "" : p.lines.join("\n")).toBe(true);
		if (!p.ok) return;
		const launched = await launch(p.value);
		expect(launched.result.ok).toBe(true);
		expect(started).toHaveLength(2);
		const [fromCli, fromPi] = started.map((o) => shared(o as StartOptions));
		expect(fromPi).toEqual(fromCli);
		expect(fromCli).toMatchObject({
			model: "scripted",
			budget: { tokens: 5000, turns: 5 },
			script: { text: 'turns:\n  look:\n    - say: "seen"\n' },
		});
	});
});

/** The options a launch's preparation decides (the rest are each surface's world: its signal, its events). */
function shared(o: StartOptions) {
	return {
		model: o.model,
		budget: o.budget,
		retryBackoffMs: o.retryBackoffMs,
		script: o.script,
		scripts: [...(o.scripts ?? [])],
		models: [...(o.models as ReadonlyMap<string, unknown>)],
		plugins: (o.plugins ?? []).length,
		somebodyThere: o.somebodyThere,
		timeoutMs: o.timeoutMs,
	};
}

describe("one preparation: a typed chain's model fault, on the chain as typed", () => {
	it("`pi-flows chain` puts the caret where `/run --chain` says chain:line:col", async () => {
		const chain = `"don't" -> @scout --model nosuch/model-x`;
		const column = chain.indexOf("nosuch") + 1;
		const r = await cli(project, "chain", chain);
		expect(r.code).toBe(2);
		const lines = r.stderr.split("\n");
		expect(lines[0]).toBe(`  ${chain}`);
		expect(lines[1]).toMatch(new RegExp(`^ {${column + 1}}\\^+ model-unknown: `));
		const p = await prepareChain(chain, { input: "go" }, ctx(), TRUSTED, NOBODY);
		expect(p.ok).toBe(false);
		if (p.ok) return;
		expect(p.lines[0]).toMatch(new RegExp(`^chain:1:${column}: model-unknown: `));
		expect(started).toEqual([]);
	});
});
