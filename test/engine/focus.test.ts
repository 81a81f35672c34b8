/**
 * The two ports a distributed backend uses, on the evaluator alone: `focus` runs one map item's visits and
 * records nothing above or beside it; `items` places each item elsewhere and the walk replays what ended
 * there. Real pi sessions on the scripted model, a journal kept in an array.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EndedVisit, Replay, RunRecorder } from "../../src/engine/index.ts";
import { focusOf } from "../../src/engine/world.ts";
import { agentFile, type TempProject, tempProject } from "../helpers/project.ts";
import { flowOf, runInline } from "../helpers/run.ts";

const FLOW = flowOf(
	"fan",
	`  - id: first
    agent: helper
  - id: items
    map: [a, b, c]
    concurrency: 2
    do:
      - id: work
        agent: helper
        reads: [item, first]
  - id: last
    agent: helper
    reads: [items]
`,
	{ first: "Start.", work: "Work on `item`.", last: "Sum up `items`." },
);
const SCRIPT = `turns:
  first: [{ say: "started" }]
  work: [{ say: "did {{section:item|lines:1}} after {{section:first|lines:1}}" }]
  last: [{ say: "summed" }]
`;

/** A recorder into an array, and a replay over what it holds. */
function memoryJournal() {
	const ends = new Map<string, EndedVisit>();
	const starts: string[] = [];
	const endsInOrder: string[] = [];
	const recorder: RunRecorder = {
		visitStart: (p) => starts.push(p),
		visitEnd: (p, _n, _k, ended) => {
			ends.set(p, ended);
			endsInOrder.push(p);
		},
		mapItems: () => {},
		carried: () => {},
		asked: () => {},
		toolCall: () => {},
		transcript: () => {},
	};
	const replay: Replay = { ended: (p) => ends.get(p), mapItems: () => undefined };
	return { recorder, replay, ends, starts, endsInOrder };
}

it("tells where a visit stands to a focus", () => {
	expect(focusOf("items", "items[2]")).toBe("above");
	expect(focusOf("items[2]/work", "items[2]")).toBe("inside");
	expect(focusOf("items[1]/work", "items[2]")).toBe("outside");
	expect(focusOf("items2", "items[2]")).toBe("outside");
	expect(focusOf("loop", "loop#2/items[1]")).toBe("above");
	expect(focusOf("anything", undefined)).toBe("inside");
});

describe("a run focused on one item, and items placed elsewhere", () => {
	let project: TempProject;
	beforeAll(() => {
		project = tempProject();
		project.write(".pi/agents/helper.md", agentFile("helper"));
	});
	afterAll(() => project.cleanup());

	it("a focused run records only its item's visits, reading the ended visits before it", async () => {
		const whole = memoryJournal();
		await runInline(project, "fan", FLOW, SCRIPT, "go", { recorder: whole.recorder });
		// A second journal holding only what ended before the map, as a worker finds it mid-run.
		const mid = memoryJournal();
		mid.ends.set("first", whole.ends.get("first") as EndedVisit);
		const ran = await runInline(project, "fan", FLOW, SCRIPT, "go", {
			recorder: mid.recorder,
			replay: mid.replay,
			focus: "items[2]",
		});
		expect(mid.starts).toEqual(["items[2]/work"]);
		expect(mid.endsInOrder).toEqual(["items[2]/work"]);
		expect(mid.ends.get("items[2]/work")?.output).toBe("did b after started");
		// One turn: the item's; `first` was replayed, the other items and `last` were left to others.
		expect(ran.calls).toBe(1);
	});

	it("items placed elsewhere are replayed when they end there, with the same result as a run here", async () => {
		const here = await runInline(project, "fan", FLOW, SCRIPT, "go");
		const journal = memoryJournal();
		const placed: string[] = [];
		const ran = await runInline(project, "fan", FLOW, SCRIPT, "go", {
			recorder: journal.recorder,
			replay: journal.replay,
			items: {
				// "Elsewhere" is a second focused run on the same journal.
				async place(_map, item) {
					placed.push(item);
					await runInline(project, "fan", FLOW, SCRIPT, "go", {
						recorder: journal.recorder,
						replay: journal.replay,
						focus: item,
					});
				},
			},
		});
		expect(placed.sort()).toEqual(["items[1]", "items[2]", "items[3]"]);
		expect(ran.result.output).toEqual(here.result.output);
		expect(ran.result.ok).toBe(true);
		// The coordinator ran `first` and `last` only; each item's turn ran once, where it was placed.
		expect(ran.calls).toBe(2);
		for (const p of ["items[1]/work", "items[2]/work", "items[3]/work"])
			expect(journal.endsInOrder.filter((x) => x === p)).toHaveLength(1);
	});
});
