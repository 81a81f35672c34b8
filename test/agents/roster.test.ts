import { getAgentDir } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agentDir, loadRoster, parseAgentFile } from "../../src/agents/index.ts";
import { agentFile, type TempProject, tempProject } from "../helpers/project.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

describe("the roster", () => {
	it("ships the agents flows expect, none pinned to a model", () => {
		const roster = loadRoster(project.cwd, {}, project.env);
		for (const name of [
			"scout",
			"planner",
			"worker",
			"reviewer",
			"synthesiser",
			"coder",
			"auditor",
			"interviewer",
			"committer",
		]) {
			const agent = roster.get(name);
			expect(agent?.kind, name).toBe("agent");
			if (agent?.kind === "agent") {
				expect(agent.source).toBe("shipped");
				expect(agent.model).toBeUndefined();
			}
		}
	});

	it("lets the user's folder shadow a shipped agent, and the project's shadow both only when asked", () => {
		project.write("~agent/agents/scout.md", agentFile("scout", "read", "model: user/model\n"));
		project.write(".pi/agents/scout.md", agentFile("scout", "read", "model: project/model\n"));
		const userScope = loadRoster(project.cwd, {}, project.env).get("scout");
		expect(userScope).toMatchObject({ source: "user", model: "user/model" });
		const withProject = loadRoster(project.cwd, { project: true }, project.env);
		expect(withProject.get("scout")).toMatchObject({ source: "project", model: "project/model" });
		expect(withProject.shadowed.map((a) => a.source)).toEqual(["shipped", "user"]);
	});

	it("finds the nearest .pi/agents walking up from a subfolder", () => {
		project.write(".pi/agents/local.md", agentFile("local"));
		project.write("deep/er/keep.txt", "");
		const roster = loadRoster(`${project.cwd}/deep/er`, { project: true }, project.env);
		expect(roster.get("local")?.kind).toBe("agent");
	});

	it("keeps a broken file's name and cause, so it shadows instead of vanishing", () => {
		project.write(".pi/agents/scout.md", "---\nname: scout\n---\nno description\n");
		const entry = loadRoster(project.cwd, { project: true }, project.env).get("scout");
		expect(entry).toMatchObject({ kind: "broken", source: "project", cause: "it lacks `description:`" });
	});

	it("reads pi's agent dir the way pi does", () => {
		const saved = process.env.PI_CODING_AGENT_DIR;
		try {
			process.env.PI_CODING_AGENT_DIR = project.agentDir;
			expect(agentDir(process.env)).toBe(getAgentDir());
			delete process.env.PI_CODING_AGENT_DIR;
			expect(agentDir(process.env)).toBe(getAgentDir());
		} finally {
			if (saved === undefined) delete process.env.PI_CODING_AGENT_DIR;
			else process.env.PI_CODING_AGENT_DIR = saved;
		}
	});
});

describe("an agent file", () => {
	const parse = (text: string) => parseAgentFile(text, "a.md", "user", "a");
	it("takes tools as a string or a list", () => {
		expect(parse("---\nname: a\ndescription: d\ntools: read, bash\n---\nP\n")).toMatchObject({
			tools: ["read", "bash"],
		});
		expect(parse("---\nname: a\ndescription: d\ntools: [read, ls]\nthinking: high\n---\nP\n")).toMatchObject({
			tools: ["read", "ls"],
			thinking: "high",
		});
	});
	it("is broken with a reason for each kind of mistake", () => {
		expect(parse("no frontmatter")).toMatchObject({ kind: "broken", cause: "it has no `---` frontmatter" });
		expect(parse("---\nname: [a\n---\nP\n")).toMatchObject({ kind: "broken" });
		// An unknown key is kept and noted, never a broken agent (issue 17; test/peers/agents-from-peers.test.ts).
		expect(parse("---\nname: a\ndescription: d\ncolour: red\n---\nP\n")).toMatchObject({
			kind: "agent",
			notes: [{ key: "colour" }],
		});
		expect(parse("---\nname: a\ndescription: d\ntools: read, read\n---\nP\n")).toMatchObject({ kind: "broken" });
		expect(parse("---\nname: a\ndescription: d\nthinking: lots\n---\nP\n")).toMatchObject({ kind: "broken" });
		expect(parse("---\nname: a\ndescription: d\n---\n\n")).toMatchObject({
			cause: "its body (the system prompt) is empty",
		});
	});
});
