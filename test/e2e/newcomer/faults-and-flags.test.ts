/**
 * Issue 20, point 7: the smaller things a newcomer met, each as they see it.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadRoster } from "../../../src/agents/index.ts";
import { catalogueOptions, checkFlowText } from "../../../src/load/index.ts";
import { type TempProject, tempProject } from "../../helpers/project.ts";
import { cli, REVIEW, TRIAGE } from "../../helpers/newcomer.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

function faultsOf(text: string) {
	const file = `${project.cwd}/.pi/flows/${/name: (\S+)/.exec(text)?.[1]}.md`;
	const scope = { project: true };
	return checkFlowText(
		text,
		file,
		loadRoster(project.cwd, scope, project.env),
		catalogueOptions(project.cwd, scope, project.env),
	).faults;
}

describe("flow faults", () => {
	it("suggests the quoted word for an unquoted enum value in a condition", () => {
		const [f, ...more] = faultsOf(TRIAGE.replace('severity == "high"', "severity == high"));
		expect(more).toEqual([]);
		expect(f).toMatchObject({ code: "condition-unknown-address", line: 12, expected: ['"high"'] });
		expect(f.message).toContain('quote it: `"high"`');
	});

	it("names the kind key a misspelt one meant, on the misspelt key's line", () => {
		const [f, ...more] = faultsOf(TRIAGE.replace("    choice:", "    choise:"));
		expect(more).toEqual([]);
		expect(f).toMatchObject({ code: "node-kind", line: 11, column: 5, expected: ["choice"] });
		expect(f.message).toContain("Did you mean `choice`?");
	});

	it("says `max: 0` as written, not as 'a number'", () => {
		const [f] = faultsOf(REVIEW.replace("max: 5", "max: 0"));
		expect(f).toMatchObject({ code: "key-type" });
		expect(f.message).toBe("`max` must be a whole number of at least 1, not `0`");
	});

	it("writes 'an agent node', never 'a agent node'", () => {
		const [f] = faultsOf(REVIEW.replace("    agent: planner\n", "    agent: planner\n    concurrency: 2\n"));
		expect(f.message).toContain("an agent node");
		expect(f.message).not.toMatch(/\ba agent\b/);
	});
});

describe("the command line", () => {
	beforeEach(() => {
		project.write(".pi/flows/review.md", REVIEW);
	});

	it("suggests the duration meant by `--timeout 10min`", async () => {
		for (const command of [
			["run", "review", "go"],
			["plan", "review"],
		]) {
			const r = await cli(project, ...command, "--project", "--timeout", "10min");
			expect(r.code).toBe(2);
			expect(r.stderr).toContain("not `10min`: `min` is not a unit");
			expect(r.stderr).toContain("Did you mean `10m`?");
		}
	});

	it("fills say templates in a dry run with --script", async () => {
		project.write(
			"s.yaml",
			'turns:\n  plan:\n    - call: submit\n      args: { files: [a.js] }\n  look:\n    - say: "looked at {{section:item}}; {{task|lines:1}}"\n  sum:\n    - say: "{{result|lines:2}}sum"\n',
		);
		const r = await cli(project, "run", "review", "go", "--project", "--dry-run", "--script", "s.yaml");
		expect(r.code).toBe(0);
		expect(r.stdout).toContain("looked at a.js; Review the file under `item`.");
		expect(r.stdout).not.toContain("{{");
	});

	it("puts a caret under a chain's unknown agent, as under its syntax faults", async () => {
		const r = await cli(project, "chain", "@scout -> @scuot", "--script", "s.yaml");
		expect(r.code).toBe(2);
		const lines = r.stderr.split("\n");
		expect(lines[0]).toBe("  @scout -> @scuot");
		expect(lines[1]).toBe("            ^^^^^^ unknown-agent: no agent `scuot`. Did you mean `scout`?");
	});
});
