/**
 * `--rerun-from` as a person meets it: the real binary on the scripted model. `plan --reuse --rerun-from b`
 * says b runs (asked to) and c, reading b, may change; `run --reuse --rerun-from b` plays b whatever its
 * identity and takes c again when b answers the same; a resume of such a run cut mid-way plays b again
 * instead of taking it from the earlier run; a node the flow does not have is refused with the nearest,
 * before anything is made.
 */
import { cliBin } from "../../helpers/built-cli.ts";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { killWhen } from "../../helpers/kill.ts";
import { agentFile, type TempProject, tempProject } from "../../helpers/project.ts";
import { flowOf } from "../../helpers/run.ts";

let project: TempProject;
let first = "";

function cli(...args: string[]) {
	const r = spawnSync(process.execPath, [cliBin(), ...args], {
		cwd: project.cwd,
		env: project.env,
		encoding: "utf8",
		timeout: 120_000,
	});
	return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const home = () => join(project.cwd, ".pi", "runs");
const runs = () => readdirSync(home()).sort();

const TRI = flowOf(
	"tri",
	"  - id: a\n    agent: scout\n    reads: [input]\n  - id: b\n    agent: scout\n    reads: [a]\n  - id: c\n    agent: scout\n    reads: [b]\n",
	{ a: "A on `input`.", b: "B on `a`.", c: "C on `b`." },
);

beforeAll(() => {
	project = tempProject();
	project.write(".pi/agents/scout.md", agentFile("scout", "read"));
	project.write(".pi/flows/tri.md", TRI);
	project.write("tri.yaml", 'turns:\n  a:\n    - say: "one"\n  b:\n    - say: "two"\n  c:\n    - say: "three"\n');
	// A rerun may play b alone: a script answering a or c too would hide a miss.
	project.write("b.yaml", 'turns:\n  b:\n    - say: "two"\n');
	project.write("b-slow.yaml", 'turns:\n  b:\n    - say: "two"\n      delay: 3000\n');
	const ran = cli("run", "tri", "go", "--script", "tri.yaml", "--project");
	expect(ran.code, ran.stderr).toBe(0);
	first = join(home(), runs()[0]);
}, 120_000);
afterAll(() => project?.cleanup());

describe("--rerun-from", () => {
	it("plans the node as asked to run, and what reads it as may change", () => {
		const plan = cli("plan", "tri", "--project", "--reuse", first, "--rerun-from", "b", "--json");
		expect(plan.code, plan.stderr).toBe(0);
		const reuse = JSON.parse(plan.stdout).reuse;
		expect(reuse.rows.map((r: { path: string; status: string }) => [r.path, r.status])).toEqual([
			["a", "reused"],
			["b", "runs"],
			["c", "may-change"],
		]);
		expect(reuse.rows[1].why).toBe("asked to run again (`b`)");
		expect(reuse).toMatchObject({ visits: 3, runs: 1, mayChange: 1, reused: 1 });
		expect(reuse.runsTokens).toBeGreaterThan(0);
	}, 60_000);

	it("runs the node again and takes what reads it when its answer is the same; the snapshot keeps the nodes", () => {
		const again = cli("run", "tri", "go", "--script", "b.yaml", "--project", "--reuse", first, "--rerun-from", "b");
		expect(again.code, again.stderr).toBe(0);
		expect(again.stderr).toMatch(/✓ b · scout · scripted\/scripted · .* · ran: asked to run again \(`b`\)/);
		expect(again.stderr).toContain("✓ c · scout · reused from");
		expect(again.stderr).toContain("reused 2 of 3 visits");
		const dir = join(home(), runs().at(-1) as string);
		expect(JSON.parse(readFileSync(join(dir, "result.json"), "utf8"))).toMatchObject({
			ok: true,
			reuse: { reused: 2, ran: 1 },
		});
		expect(JSON.parse(readFileSync(join(dir, "snapshot.json"), "utf8")).settings).toMatchObject({
			reuse: first,
			rerunFrom: ["b"],
		});
	}, 60_000);

	it("a resume of a rerun cut mid-way plays the node again rather than taking it from the earlier run", async () => {
		const dir = await killWhen(
			project,
			["tri", "go", "--script", "b-slow.yaml", "--project", "--reuse", first, "--rerun-from", "b"],
			".pi/cut",
			(journal) => /"type":"visit_start"[^\n]*"path":"b"/.test(journal),
		);
		const resumed = cli("resume", dir);
		expect(resumed.code, resumed.stderr).toBe(0);
		expect(resumed.stderr).toMatch(/✓ b · scout · scripted\/scripted · .* · ran: asked to run again \(`b`\)/);
		expect(resumed.stderr).toContain("✓ c · scout · reused from");
	}, 60_000);

	it("refuses a node the flow does not have, and --rerun-from without --reuse, before anything is made", () => {
		const before = runs();
		const typo = cli("run", "tri", "go", "--script", "b.yaml", "--project", "--reuse", first, "--rerun-from", "bb");
		expect(typo.code).toBe(2);
		expect(typo.stderr).toContain("tri has no node `bb`");
		const plan = cli("plan", "tri", "--project", "--reuse", first, "--rerun-from", "a,cc");
		expect(plan.code).toBe(2);
		expect(plan.stderr).toMatch(/no node `cc`.*The nodes of the flow are: a, b, c/);
		const bare = cli("run", "tri", "go", "--script", "b.yaml", "--project", "--rerun-from", "b");
		expect(bare.code).toBe(2);
		expect(bare.stderr).toContain("--rerun-from reruns nodes of an earlier run");
		expect(runs()).toEqual(before);
	}, 60_000);
});
