/**
 * Issue 17: the disagreements with combo's checker the issue lists, each pinned to its code, line and column
 * (the conformance suite beside this file holds combo's own cases).
 */
import { describe, expect, it } from "vitest";
import { loadRoster } from "../../../src/agents/index.ts";
import { DRY_ASK, DRY_CHECK, dryGit, drySpawn, prepareRun, resolveModels } from "../../../src/engine/index.ts";
import { runFlow } from "../../../src/kinds/run.ts";
import { catalogueOptions, checkFlowFile } from "../../../src/load/index.ts";
import { faultsAt, flowFolder, head, judge } from "../helpers.ts";
import { PACKAGE_ROOT } from "../../../src/agents/index.ts";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { mkdtempSync } from "node:fs";

const sections = (...ids: string[]) => `\n${ids.map((id) => `## ${id}\n\nDo it.\n`).join("\n")}`;

describe("combo's verdicts where pi-flows disagreed", () => {
	it("a syntax error in a case's `when:` is one fault: the case's sections are not unknown", () => {
		const text =
			head(
				"  - id: a\n    agent: scout\n    output: { status: string }\n  - id: c\n    choice:\n      - when: a.output.status ==\n        do:\n          - id: b\n            agent: scout\n    default: []\n",
			) + sections("a", "b");
		expect(faultsAt(text)).toEqual(["condition-syntax 11:33"]);
	});

	it("ordering an enum against a literal outside it is refused like `==`", () => {
		const loop = (cond: string) =>
			head(
				`  - id: go\n    agent: scout\n    output: { status: a | c }\n  - id: l\n    loop: ${cond}\n    max: 2\n    do:\n      - id: x\n        agent: scout\n`,
			) + sections("go", "x");
		expect(faultsAt(loop('go.output.status < "b"'))).toEqual(["condition-enum-value 10:30"]);
		expect(faultsAt(loop('go.output.status == "b"'))).toEqual(["condition-enum-value 10:31"]);
		expect(faultsAt(loop('go.output.status < "c"'))).toEqual([]);
	});

	it("`max:` beside a literal `map:` list is an unknown key", () => {
		const text =
			head(
				"  - id: m\n    map: [a, b]\n    max: 3\n    do:\n      - id: x\n        agent: scout\n        reads: [item]\n",
			) + sections("x");
		expect(faultsAt(text)).toEqual(["unknown-key 8:5"]);
	});

	it("`ask-from` with both `options` and `confirm` reports both", () => {
		const text =
			head(
				"  - id: q\n    agent: interviewer\n    output: { question?: Question }\n  - id: a\n    ask-from: q.output.question\n    options: [x, y]\n    confirm: true\n",
			) + sections("q");
		expect(faultsAt(text)).toEqual(["ask-form-conflict 11:5", "ask-form-conflict 12:5"]);
	});

	it("an unknown `flow:` callee gets the nearest name", () => {
		const f = flowFolder({
			build: head("  - id: x\n    agent: scout\n").replace("name: t", "name: build") + sections("x"),
			caller: head("  - id: c\n    flow: biuld\n    input: input\n").replace("name: t", "name: caller"),
		});
		const [fault] = f.judgeOne("caller").faults;
		expect([fault.code, fault.line, fault.column, fault.expected]).toEqual(["unknown-flow", 7, 11, ["build"]]);
	});

	it('messages say "an agent node"', () => {
		const [fault] = judge(head("  - id: x\n    agent: scout\n    reeds: [input]\n") + sections("x")).faults;
		expect(fault.message).toMatch(/^an agent node has no key/);
	});

	it("combo's old `steps:` pipeline is one fault saying the format was removed and how to convert", () => {
		const text = "---\nname: t\ndescription: d\nsteps:\n  - agent: scout\n    task: look\n  - agent: planner\n---\n";
		const faults = judge(text).faults;
		expect(faults.map((f) => `${f.code} ${f.line}:${f.column}`)).toEqual(["pipeline-format-removed 4:1"]);
		expect(faults[0].hint).toMatch(/`nodes:`.*`## <id>`/);
	});

	it("a missing check script is one fault however many nodes run it", async () => {
		const cwd = mkdtempSync(join(tmpdir(), "pi-flows-17-"));
		const text = head("  - id: a\n    check: .pi/checks/nope.sh\n  - id: b\n    check: .pi/checks/nope.sh\n");
		const flow = judge(text).value;
		expect(flow).toBeDefined();
		const stage = await prepareRun(flow!, { cwd, somebodyThere: false });
		expect(stage.ok ? [] : stage.faults.map((f) => `${f.code} ${f.line}:${f.column}`)).toEqual([
			"check-script-missing 7:12",
		]);
	});

	it("in a dry run, an untyped node sharing a `memory:` subagent with a typed one answers in text (both interview flows)", async () => {
		const roster = loadRoster(PACKAGE_ROOT, { user: false, project: false });
		const options = catalogueOptions(mkdtempSync(join(tmpdir(), "pi-flows-17-")), { user: false, project: false });
		const checked = checkFlowFile(join(PACKAGE_ROOT, "test", "fixtures", "combo", "interview.md"), roster, options);
		expect(checked.faults).toEqual([]);
		const flow = checked.value!;
		const models = resolveModels(flow, () => ({ ok: true, value: { ref: "dry-run" } }));
		const result = await runFlow(flow, "a CLI", {
			spawn: drySpawn(),
			models: models.ok ? models.models : new Map(),
			cwd: PACKAGE_ROOT,
			ask: DRY_ASK,
			check: DRY_CHECK,
			git: dryGit(PACKAGE_ROOT),
			retryBackoffMs: 0,
		});
		const brief = result.visits.find((v) => v.path === "brief");
		expect(brief?.ok).toBe(true);
		expect(brief?.output).toMatch(/dry run: interviewer at brief/);
	});
});
