/**
 * `pi-flows plan`, `graph`, `schema` and `check` as a person at a terminal meets them, driven in-process
 * through `main` with a temp project and its own pi agent dir: what goes to stdout and stderr, and the
 * exit code.
 */
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/agents/index.ts";
import { main } from "../../src/cli/main.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
	// The combo-format corpus as the project's flows, so `flow:` callees are found where the caller is.
	const dir = join(PACKAGE_ROOT, "test", "fixtures", "combo");
	mkdirSync(join(project.cwd, ".pi", "flows"), { recursive: true });
	for (const f of readdirSync(dir)) copyFileSync(join(dir, f), join(project.cwd, ".pi", "flows", f));
});
afterEach(() => project.cleanup());

async function cli(...argv: string[]) {
	const out: string[] = [];
	const err: string[] = [];
	const code = await main(argv, {
		cwd: project.cwd,
		env: project.env,
		agentDir: project.agentDir,
		stdout: (t) => out.push(t),
		stderr: (t) => err.push(t),
	});
	return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}

describe("pi-flows plan", () => {
	it("prints the plan of a project flow, callees found beside it", async () => {
		const r = await cli("plan", "build-attended", "--project");
		expect(r.code).toBe(0);
		expect(r.stdout.split("\n")[0]).toBe(
			"build-attended · .pi/flows/build-attended.md · input string · ≤ 510 turns · ≤ 6d3h20m · and a person's answer",
		);
		expect(r.stdout).toContain("○ spec · flow interview (.pi/flows/interview.md) · input input");
	});

	it("shows a run's --model and --timeout, and refuses a timeout that is not a duration", async () => {
		const r = await cli("plan", "split", "--project", "--model", "openai/gpt-5", "--timeout", "5m");
		expect(r.stdout).toContain("model openai/gpt-5 from the run · timeout 5m from the run");
		const bad = await cli("plan", "split", "--project", "--timeout", "5 minutes");
		expect(bad.code).toBe(2);
		expect(bad.stderr).toContain("--timeout takes a duration");
	});

	it("prints rows as JSON with --json", async () => {
		const { rows } = JSON.parse((await cli("plan", "explore", "--project", "--json")).stdout);
		expect(rows[0]).toMatchObject({ row: "flow", name: "explore" });
		expect(rows.filter((r: { row: string }) => r.row === "node").map((r: { id: string }) => r.id)).toEqual([
			"look",
			"survey",
			"answer",
		]);
	});

	it("exits 2 with positioned faults for a flow that does not check", async () => {
		project.write(
			".pi/flows/bad.md",
			"---\nname: bad\ndescription: d\ninput: string\nnodes:\n  - id: look\n    agent: scuot\n---\n\n## look\nx\n",
		);
		const r = await cli("plan", "bad", "--project");
		expect(r.code).toBe(2);
		expect(r.stdout).toBe("");
		expect(r.stderr).toContain(".pi/flows/bad.md:7:12: unknown-agent");
		expect(r.stderr).toContain("bad does not check (1 fault)");
	});

	it("exits 2 naming the nearest flow for an unknown one", async () => {
		const r = await cli("plan", "biuld", "--project");
		expect(r.code).toBe(2);
		expect(r.stderr).toContain("no flow named `biuld`. Did you mean `build`?");
	});
});

describe("pi-flows graph", () => {
	it("prints the Mermaid flowchart", async () => {
		const r = await cli("graph", "interview", "--project");
		expect(r.code).toBe(0);
		expect(r.stdout.split("\n").slice(0, 3)).toEqual([
			"flowchart TD",
			'  subgraph n1["talk · loop · max 6 · on-fail: continue"]',
			'    n2["ask_next<br/>interviewer"]',
		]);
	});

	it("takes a path as well as a name, with the project's trust like a name (issue 21)", async () => {
		const refused = await cli("graph", ".pi/flows/split.md");
		expect(refused.code).toBe(2);
		expect(refused.stderr).toContain(".pi/flows/split.md is inside this project");
		const r = await cli("graph", ".pi/flows/split.md", "--project");
		expect(r.code).toBe(0);
		expect(r.stdout).toContain('subgraph n2["work · map · max 4 · concurrency 2"]');
	});
});

describe("pi-flows schema", () => {
	it("prints the frontmatter's JSON Schema", async () => {
		const r = await cli("schema");
		expect(r.code).toBe(0);
		expect(JSON.parse(r.stdout)).toMatchObject({
			$schema: "https://json-schema.org/draft/2020-12/schema",
			additionalProperties: false,
		});
	});

	it("takes no argument", async () => {
		expect((await cli("schema", "build")).code).toBe(2);
	});
});

describe("pi-flows check", () => {
	it("with no path checks every flow found, callees included, and keeps --json", async () => {
		const r = await cli("check", "--project", "--json");
		expect(r.code).toBe(0);
		const results = JSON.parse(r.stdout) as { file: string; ok: boolean }[];
		expect(results.filter((x) => x.file.startsWith(".pi/flows/")).map((x) => [x.file, x.ok])).toEqual([
			[".pi/flows/build.md", true],
			[".pi/flows/build-attended.md", true],
			[".pi/flows/explore.md", true],
			[".pi/flows/interview.md", true],
			[".pi/flows/split.md", true],
		]);
	});

	it("finds a path's callees in the catalogue", async () => {
		const r = await cli("check", ".pi/flows/build-attended.md");
		expect(r.stdout).toBe("");
		expect(r.code).toBe(0);
	});
});
