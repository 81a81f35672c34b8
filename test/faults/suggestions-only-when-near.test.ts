/**
 * Issue 19: "Did you mean" and "Nearest" name only candidates within a small edit distance, by one rule
 * everywhere (flows, agents, keys, flags); otherwise the message lists what exists, or says where to look.
 */
import { describe, expect, it } from "vitest";
import { missHint, nearest } from "../../src/faults/index.ts";
import { findFlow } from "../../src/load/index.ts";
import { parseArgs } from "../../src/cli/args.ts";
import { judge } from "../helpers/flows.ts";
import { tempProject } from "../helpers/project.ts";

describe("the one rule", () => {
	it("offers a candidate a typo away, and nothing far", () => {
		expect(nearest("explor", ["build", "split", "explore"])).toBe("explore");
		expect(nearest("nosuch", ["build", "split", "explore"])).toBeUndefined();
		expect(nearest("scuot", ["scout", "planner"])).toBe("scout");
		expect(nearest("xyz", ["scout", "planner"])).toBeUndefined();
	});

	it("lists what exists when nothing is near and the list is short, says where to look when it is long", () => {
		expect(missHint("nosuch", ["split", "build", "explore"], { what: "flows", where: "x lists them" }).text).toBe(
			" The flows are: build, explore, split.",
		);
		const many = Array.from({ length: 12 }, (_, i) => `flow${i}-long-name`);
		expect(missHint("nosuch", many, { what: "flows", where: "`pi-flows flows` lists them" }).text).toBe(
			" There are 12 flows; `pi-flows flows` lists them.",
		);
		expect(missHint("nosuch", [], { what: "flows", where: "x" }).text).toBe(" There are no flows.");
		expect(missHint("biuld", ["build", "split"], { what: "flows", where: "x" })).toEqual({
			text: " Did you mean `build`?",
			near: "build",
		});
	});
});

describe("where a person meets it", () => {
	it("flows: `run nosuch` names no far flow as nearest", () => {
		const project = tempProject();
		try {
			const miss = findFlow("nosuch", project.cwd, {}, project.env);
			expect(miss.ok).toBe(false);
			if (miss.ok) return;
			expect(miss.error).not.toMatch(/Nearest|Did you mean/);
			expect(miss.error).toMatch(
				/^no flow named `nosuch`\. (The flows are: .*\.|There are \d+ flows; `pi-flows flows`.*)$/,
			);
			const near = findFlow("explor", project.cwd, {}, project.env);
			expect(!near.ok && near.error).toBe("no flow named `explor`. Did you mean `explore`?");
		} finally {
			project.cleanup();
		}
	});

	it("agents: a far name lists the roster instead of guessing", () => {
		const flow =
			"---\nname: t\ndescription: d\ninput: string\nnodes:\n  - id: look\n    agent: zzzzzz\n---\n\n## look\nx\n";
		const [f] = judge(flow).faults;
		expect(f.code).toBe("unknown-agent");
		expect(f.message).toBe("no agent `zzzzzz`. The agents are: planner, reviewer, scout, synthesiser.");
		expect(f.expected ?? []).toEqual([]);
		const [g] = judge(flow.replace("zzzzzz", "scuot")).faults;
		expect(g.message).toBe("no agent `scuot`. Did you mean `scout`?");
	});

	it("keys: a near key is offered, a far one lists the keys the place takes", () => {
		const flow = (key: string) =>
			`---\nname: t\ndescription: d\ninput: string\nnodes:\n  - id: look\n    agent: scout\n    ${key}: 1\n---\n\n## look\nx\n`;
		const near = judge(flow("retyr")).faults.find((f) => f.code === "unknown-key");
		expect(near?.message).toMatch(/has no key `retyr`\. Did you mean `retry`\?$/);
		const far = judge(flow("colour")).faults.find((f) => f.code === "unknown-key");
		expect(far?.message).not.toMatch(/Did you mean/);
		expect(far?.message).toMatch(
			/has no key `colour`\. (The keys here are: .*retry.*\.|There are \d+ keys here; docs\/flows\.md lists them\.)$/,
		);
	});

	it("flags: a near flag is offered, a far one lists the command's flags", () => {
		const spec = { model: true, json: false, "dry-run": false };
		expect(parseArgs(["--modle", "x"], spec)).toMatchObject({
			ok: false,
			error: "unknown flag --modle. Did you mean `--model`?",
		});
		expect(parseArgs(["--verbose"], spec)).toMatchObject({
			ok: false,
			error: "unknown flag --verbose. The flags of this command are: --dry-run, --json, --model.",
		});
	});
});
