// An agent visit's facts (its identity, the tree it starts on) are made only when something reads them
// (src/engine/identify.ts, `agentFacts`): a recorder that journals identities, an earlier run to reuse, or a
// change a writing visit may make. A read-only visit of a run that records no identity asks for no tree.
import { afterEach, describe, expect, it } from "vitest";
import type { GitPort } from "../../src/engine/ports/git.ts";
import { NO_RECORD } from "../../src/engine/record.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { flowOf, runInline } from "../helpers/run.ts";

const projects: TempProject[] = [];
afterEach(() => {
	for (const p of projects.splice(0)) p.cleanup();
});

const FLOW = flowOf(
	"facts",
	"  - id: each\n    map: [a, b, c]\n    do:\n      - id: look\n        agent: scout\n        reads: [item]\n",
	{ look: "Look at the item." },
);
const SCRIPT = 'turns:\n  "*":\n    - say: seen\n';

/** A git port that only hashes trees, counting what it was asked; anything else is a test failure. */
function treeOnly(): { git: GitPort; asked: () => number } {
	let asked = 0;
	const no = () => {
		throw new Error("the test's git port only hashes trees");
	};
	const git: GitPort = {
		root: no,
		diff: no,
		commit: no,
		openCopy: no,
		land: no,
		release: no,
		tree: async () => {
			asked++;
			return { ok: true, tree: "5f0c6a1e00000000000000000000000000000000" };
		},
	};
	return { git, asked: () => asked };
}

async function run(options: Parameters<typeof runInline>[5]) {
	const project = tempProject();
	projects.push(project);
	return runInline(project, "facts", FLOW, SCRIPT, "go", options);
}

describe("an agent visit's facts", () => {
	it("are not made, and no tree is hashed, when nothing reads them", async () => {
		const { git, asked } = treeOnly();
		const ran = await run({ git });
		expect(ran.result.ok).toBe(true);
		expect(ran.result.visits.filter((v) => v.node === "look")).toHaveLength(3);
		expect(asked()).toBe(0);
	});

	it("are made on the visit's tree for a recorder that journals identities", async () => {
		const { git, asked } = treeOnly();
		const identities: string[] = [];
		const ran = await run({ git, recorder: { ...NO_RECORD, identity: (path) => void identities.push(path) } });
		expect(ran.result.ok).toBe(true);
		expect(identities.filter((p) => p.endsWith("/look")).sort()).toEqual([
			"each[1]/look",
			"each[2]/look",
			"each[3]/look",
		]);
		// Hashed once per state of the tree (src/engine/trees.ts), not once per visit.
		expect(asked()).toBe(1);
	});
});
