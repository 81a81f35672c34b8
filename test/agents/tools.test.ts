// The tools a flow's subagent can have, held against pi: every name but `subagent` (pi-flows' own) is a
// tool pi declares to the model, and a name outside the list is one pi drops without a word, which is
// why the checker refuses it (`unknown-tool`).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mayWriteWith, rosterOf, SUBAGENT_TOOLS, WRITING_TOOLS } from "../../src/agents/index.ts";
import { agentIn } from "../../src/extension/tool/plan.ts";
import { openHost, readScript } from "../../src/pi/index.ts";
import { probeAgent } from "../helpers/host.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

/** The tools pi declared to the model on a one-request turn of an agent granted `tools`. */
async function declared(tools: string[]): Promise<string[]> {
	const host = await openHost({
		cwd: project.cwd,
		agentDir: project.agentDir,
		script: readScript('turns:\n  "*":\n    - say: ok\n', "s.yaml").value,
	});
	const sub = await host.spawn({ agent: probeAgent(tools), model: "scripted", cwd: project.cwd });
	try {
		const r = await sub.ask("go", { label: "probe" });
		expect(r.ok).toBe(true);
		const system = r.messages.find((m) => (m as { role?: string }).role === "system") as
			| { toolsAdded?: { name: string }[] }
			| undefined;
		return (system?.toolsAdded ?? []).map((t) => t.name);
	} finally {
		await sub.close();
	}
}

describe("SUBAGENT_TOOLS", () => {
	it("are pi's built-in tools, each declared to the model, plus pi-flows' subagent", async () => {
		const builtIn = SUBAGENT_TOOLS.filter((t) => t !== "subagent");
		expect((await declared(builtIn)).sort()).toEqual([...builtIn].sort());
	});

	it("leave out names pi drops silently", async () => {
		expect(await declared(["read", "fetch_url"])).toEqual(["read"]);
	});

	it("are what the subagent tool and /step accept of an agent, as a flow does", () => {
		const agent = (name: string, tools: string[]) => ({
			kind: "agent" as const,
			name,
			description: "d",
			tools,
			prompt: "p",
			file: `/p/${name}.md`,
			source: "project" as const,
		});
		const roster = rosterOf([agent("fetcher", ["read", "fetch_url"]), agent("reader", ["read", "subagent"])]);
		expect(agentIn(roster, "fetcher")).toEqual({
			ok: false,
			error: expect.stringContaining("lists `fetch_url`, which a subagent cannot have"),
		});
		expect(agentIn(roster, "reader")).toMatchObject({ ok: true });
	});
});

describe("WRITING_TOOLS", () => {
	// By hand, from what each tool does: these only look; every other tool a subagent can have may change
	// files (the two shells, the editors, and `subagent`, whose children may write).
	const LOOK_ONLY = ["read", "grep", "find", "ls"];

	it("are every tool a subagent can have that may change the tree, the shells included", () => {
		for (const tool of SUBAGENT_TOOLS) expect(WRITING_TOOLS.has(tool), tool).toBe(!LOOK_ONLY.includes(tool));
		expect([...WRITING_TOOLS].filter((t) => !SUBAGENT_TOOLS.includes(t))).toEqual([]);
	});

	it("make a tool list one that may write when any of it does", () => {
		expect(mayWriteWith(["read", "grep"])).toBe(false);
		expect(mayWriteWith([])).toBe(false);
		expect(mayWriteWith(["read", "powershell"])).toBe(true);
		expect(mayWriteWith(["bash"])).toBe(true);
	});
});
