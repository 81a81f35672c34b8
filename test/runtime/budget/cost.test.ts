/**
 * Issue 24: a budget in cost binds as a token budget does, with the model's prices; a model with no price
 * counts $0, and the run says so once.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readScript } from "../../../src/pi/index.ts";
import { scriptedHost } from "../../helpers/host.ts";
import { type TempProject, tempProject } from "../../helpers/project.ts";
import { flowOf, runInline } from "../../helpers/run.ts";
import { expectBound, tracer } from "./helpers.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

const flow = flowOf(
	"m",
	"  - id: m\n    map: [a, b, c, d, e, f]\n    concurrency: 2\n    do:\n      - id: s\n        agent: scout\n",
	{ s: "S." },
);
const turns = "turns:\n  '*':\n    - say: an answer long enough to cost something\n    - say: landed\n";

describe("--budget-cost", () => {
	it("binds with the model's prices: no turn starts past the limit, the overshoot is the turns in flight", async () => {
		// $3 in, $15 out per million tokens, as a mid-size model is priced.
		const script = `price: { input: 3, output: 15 }\n${turns}`;
		const host = await scriptedHost(project, script);
		const t = tracer();
		const events: string[] = [];
		const ran = await runInline(project, "m", flow, script, "x", {
			spawn: t.wrap(host.spawn),
			budget: { cost: 0.01 },
			onEvent: (e) => {
				t.onEvent(e);
				events.push(e.type);
			},
		});
		expect(ran.result.errorKind).toBe("budget");
		expect(ran.result.usage.cost).toBeGreaterThan(0);
		expect(expectBound(t.log, 0.01, "cost").started).toBeLessThan(6);
		expect(events).not.toContain("budget_unpriced");
	});

	it("counts a model with no price as $0 and says so once", async () => {
		const host = await scriptedHost(project, turns);
		const notes: string[] = [];
		const ran = await runInline(project, "m", flow, turns, "x", {
			spawn: host.spawn,
			budget: { cost: 0.01 },
			onEvent: (e) => {
				if (e.type === "budget_unpriced") notes.push(e.reason);
			},
		});
		expect(ran.result.ok).toBe(true);
		expect(ran.result.usage.cost).toBe(0);
		expect(notes).toEqual(["scripted/scripted has no price, so its turns count $0 against the cost budget of $0.01"]);
	});
});

describe("a scripted model's price", () => {
	it("is dollars per million tokens; a misspelt key or a bad figure is a positioned fault", () => {
		expect(readScript("price: { input: 3, output: 15 }\nturns:\n  a:\n    - say: x\n", "s.yaml").value?.price).toEqual({
			input: 3,
			output: 15,
			cacheRead: 0,
			cacheWrite: 0,
		});
		const bad = readScript("price: { inptu: 3, output: -1 }\nturns:\n  a:\n    - say: x\n", "s.yaml").faults;
		expect(bad.map((f) => [f.code, f.line, f.message])).toEqual([
			["script-invalid", 1, "a price has no key `inptu`. Did you mean `input`?"],
			["script-invalid", 1, "`price.output` is dollars per million tokens, a number of at least 0"],
		]);
	});
});
