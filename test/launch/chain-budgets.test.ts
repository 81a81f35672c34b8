/**
 * A chain's budget keeps its promises (issue 23): `--budget-warning` warns alone, a flow's `budget:` and its
 * chain's both bind (the smaller wins) or conflict as a fault, a command line's budget never rescales a
 * warning the file states, and `plan` shows every budget in force with where it comes from. And the command
 * line takes pi-crew's chain-wide flags beside the chain, and a chain that begins with `--` as the chain.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Io } from "../../src/cli/io.ts";
import { main } from "../../src/cli/main.ts";
import { loadRoster } from "../../src/agents/index.ts";
import { budgetGauge, budgetInForce } from "../../src/engine/index.ts";
import { catalogueOptions, checkFlowText } from "../../src/load/index.ts";
import { emptyUsage } from "../../src/runtime/usage.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
	project.write("s.yaml", "turns:\n  '*':\n    - say: \"{{thinking}} done\"\n");
});
afterEach(() => project.cleanup());

async function cli(...argv: string[]) {
	const out: string[] = [];
	const err: string[] = [];
	const io: Io = {
		cwd: project.cwd,
		env: project.env,
		agentDir: project.agentDir,
		stdout: (t) => out.push(t),
		stderr: (t) => err.push(t),
	};
	const code = await main(argv, io);
	return { code, out: out.join("\n"), err: err.join("\n") };
}

/** Checks a flow as a run would, chains expanded. */
function judge(text: string, name: string) {
	const sources = { project: true };
	return checkFlowText(
		text,
		`${name}.md`,
		loadRoster(project.cwd, sources, project.env),
		catalogueOptions(project.cwd, sources, project.env),
	);
}

const chainFlow = (chain: string, budget = "") =>
	`---\nname: c\ndescription: d\ninput: string\n${budget ? `budget: ${budget}\n` : ""}chain: '${chain}'\n---\n`;

describe("budgets", () => {
	it("--budget-warning warns on its own", async () => {
		const r = await cli("chain", "@scout -> @reviewer -- --budget-warning 100", "goal", "--script", "s.yaml");
		expect(r.err).toMatch(/budget warning: \d+ tokens, past the warning at 100/);
		expect(r.code).toBe(0);
	});

	it("a flow's budget and its chain's both bind: the smaller limit wins, whichever states it", () => {
		const chainSmaller = judge(
			chainFlow("@scout -> @reviewer -- --budget-total 100000 --budget-warning 100", "{ tokens: 900000 }"),
			"c",
		);
		if (!chainSmaller.value) throw new Error(JSON.stringify(chainSmaller.faults));
		expect(budgetInForce(chainSmaller.value).budget).toEqual({ tokens: 100000, warnTokens: 100 });
		const flowSmaller = judge(chainFlow("@scout -- --budget-total 100000", "{ tokens: 5000, turns: 4 }"), "c");
		if (!flowSmaller.value) throw new Error(JSON.stringify(flowSmaller.faults));
		expect(budgetInForce(flowSmaller.value).budget).toEqual({ tokens: 5000, turns: 4 });
	});

	it("a chain's warning above the flow's token budget is a fault at the warning", () => {
		const r = judge(chainFlow("@scout -- --budget-warning 1000", "{ tokens: 900 }"), "c");
		expect(r.faults.map((f) => [f.code, f.line, f.column, f.expected])).toEqual([["chain-flag-value", 6, 36, ["900"]]]);
		expect(r.faults[0].related?.[0]).toMatchObject({ line: 5 });
	});

	it("a command line's --budget-tokens replaces the limit but never rescales the stated warning", () => {
		const flow = judge(chainFlow("@scout -- --budget-total 10000 --budget-warning 700"), "c").value;
		if (!flow) throw new Error("does not check");
		const budget = budgetInForce(flow, { tokens: 1000 }).budget;
		expect(budget).toEqual({ tokens: 1000, warnTokens: 700 });
		const warned: string[] = [];
		const gauge = budgetGauge(budget, undefined, { warned: (s) => warned.push(s), exhausted: () => {} });
		gauge.spend({ ...emptyUsage(), totalTokens: 647 });
		expect(warned).toEqual([]);
		gauge.spend({ ...emptyUsage(), totalTokens: 53 });
		expect(warned).toEqual(["700 tokens, past the warning at 700 (limit 1000)"]);
	});

	it("plan shows every budget in force and where it comes from", async () => {
		project.write(
			".pi/flows/c.md",
			chainFlow("@scout -> @reviewer -- --budget-total 100000 --budget-warning 100", "{ tokens: 900000, cost: 2 }"),
		);
		const r = await cli("plan", "c", "--project", "--budget-turns", "9");
		expect(r.code).toBe(0);
		expect(r.out).toContain(
			"budget 100000 tokens · from the chain's `--budget-total` (.pi/flows/c.md:6:47) · not 900000 tokens from the flow's `budget: tokens` (.pi/flows/c.md:5:19)",
		);
		expect(r.out).toContain("budget $2 · from the flow's `budget: cost` (.pi/flows/c.md:5:33)");
		expect(r.out).toContain("budget 9 turns · from --budget-turns");
		expect(r.out).toContain("budget warning at 100 tokens · from the chain's `--budget-warning` (.pi/flows/c.md:6:71)");
		expect(r.out.split("\n")[0]).toContain("budget 100000 tokens, $2, 9 turns");
	});
});

describe("the command line", () => {
	it("takes pi-crew's chain-wide flags beside the chain, read as if written after its --", async () => {
		const r = await cli(
			"chain",
			"@scout -> @reviewer --thinking high",
			"goal",
			"--global-thinking",
			"low",
			"--continue-on-error",
			"--retry",
			"1",
			"--script",
			"s.yaml",
			"--json",
		);
		expect(r.code).toBe(0);
		const result = JSON.parse(r.out) as { visits: { output: string }[] };
		expect(result.visits.map((v) => v.output)).toEqual(["low done", "high done"]);
	});

	it("refuses a chain-wide flag given both in the chain and beside it, pointing into the command line", async () => {
		const r = await cli("chain", "@scout -- --retry 1", "goal", "--retry", "2");
		expect(r.code).toBe(2);
		expect(r.err).toContain("chain-duplicate-flag");
		expect(r.err).toContain("  --retry 2");
	});

	it("reads a chain string that begins with -- as the chain, not as a flag", async () => {
		const r = await cli("chain", "--model opus", "goal");
		expect(r.code).toBe(2);
		expect(r.err).not.toContain("unknown flag");
		expect(r.err).toContain("chain-bad-ref");
	});

	it("refuses a timeout longer than 24d at its column, before anything runs", async () => {
		const r = await cli("chain", "@scout --timeout 25d", "goal");
		expect(r.code).toBe(2);
		expect(r.err).toMatch(/\^\^\^ chain-flag-value: `25d` is longer than the longest timeout, 24d/);
		const run = await cli("run", "explore", "goal", "--timeout", "25d");
		expect([run.code, run.err]).toEqual([
			2,
			"pi-flows: --timeout takes a duration like 90s, 10m or 1h30m (at most 24d), not `25d`",
		]);
	});
});
