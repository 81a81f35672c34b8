/**
 * The nodes `--rerun-from` names, read against a flow: by the address their visits have (a parallel's
 * branch in it, a called flow's nodes under the call), a name the flow lacks refused with the nearest;
 * and the checker's node paths met with those addresses, so a table keyed by either has one row a node.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadRoster } from "../../src/agents/index.ts";
import type { CheckedFlow } from "../../src/language/index.ts";
import { catalogueOptions, checkFlowText } from "../../src/load/index.ts";
import { readRerunFrom, visitAddresses, visitAddressOf } from "../../src/reuse/index.ts";
import { agentFile, type TempProject, tempProject } from "../helpers/project.ts";
import { flowOf } from "../helpers/run.ts";

let project: TempProject;
let flow: CheckedFlow;

beforeAll(() => {
	project = tempProject();
	project.write(".pi/agents/scout.md", agentFile("scout"));
	project.write(
		".pi/flows/inner.md",
		flowOf("inner", "  - id: deep\n    agent: scout\n    reads: [input]\n", { deep: "Deep." }),
	);
	const text = flowOf(
		"shape",
		`  - id: checks
    parallel:
      lint:
        - id: lint
          agent: scout
      test:
        - id: unit
          agent: scout
  - id: work
    map: [a, b]
    do:
      - id: act
        agent: scout
        reads: [item]
  - id: sub
    flow: inner
    input: input
  - id: review
    agent: scout
    reads: [work]
`,
		{ lint: "Lint.", unit: "Unit tests.", act: "Act on `item`.", review: "Review `work`." },
	);
	const file = project.write(".pi/flows/shape.md", text);
	const sources = { project: true };
	const c = checkFlowText(
		text,
		file,
		loadRoster(project.cwd, sources, project.env),
		catalogueOptions(project.cwd, sources, project.env),
	);
	if (!c.value) throw new Error(JSON.stringify(c.faults));
	flow = c.value;
});
afterAll(() => project?.cleanup());

describe("rerun-from node names", () => {
	it("are the addresses the visits have: branch names in, a callee's nodes under the call", () => {
		expect(visitAddresses(flow)).toEqual([
			"checks",
			"checks/lint/lint",
			"checks/test/unit",
			"work",
			"work/act",
			"sub",
			"sub/deep",
			"review",
		]);
	});

	it("meet the checker's paths, which leave a branch's name out", () => {
		const of = visitAddressOf(flow);
		expect(of.get("work/act")).toBe("work/act");
		expect(of.get("checks/lint")).toBe("checks/lint/lint");
		expect(of.get("checks/unit")).toBe("checks/test/unit");
		expect(of.has("sub/deep")).toBe(false);
	});

	it("are read one or several, a name the flow lacks refused with the nearest", () => {
		expect(readRerunFrom("review", flow)).toEqual({ ok: true, value: ["review"] });
		expect(readRerunFrom(" work/act , sub/deep,review", flow)).toEqual({
			ok: true,
			value: ["work/act", "sub/deep", "review"],
		});
		const typo = readRerunFrom("reviw", flow);
		expect(typo).toMatchObject({ ok: false, error: expect.stringContaining("Did you mean `review`?") });
		const gone = readRerunFrom("work/act,checks/unit", flow);
		expect(gone).toMatchObject({ ok: false, error: expect.stringContaining("no node `checks/unit`") });
		expect(readRerunFrom(" , ", flow).ok).toBe(false);
	});
});
