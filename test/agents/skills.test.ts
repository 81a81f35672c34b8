/**
 * Issue 17: an agent file's `skills:` (combo's agents list skills). Each name is looked up beside the agent
 * file, then in the project's `.pi/skills`, then the user's; the checker refuses an agent whose skills could
 * not reach its model (`unknown-skill`, `skills-without-read`, `skill-hidden`) where a node names it, and a
 * run gives the skills to the subagent as pi gives skills: listed in its system prompt, opened with `read`.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AgentDef, loadRoster, parseAgentFile } from "../../src/agents/index.ts";
import { catalogueOptions, checkFlowText } from "../../src/load/index.ts";
import { planOf, showPlan } from "../../src/language/render/index.ts";
import { agentIn } from "../../src/extension/tool/plan.ts";
import { fromSnapshot } from "../../src/runs/lives.ts";
import { snapshotOf } from "../../src/runs/snapshot.ts";
import { flowOf, runInline } from "../helpers/run.ts";
import { agentFile, type TempProject, tempProject } from "../helpers/project.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

const skill = (name: string, extra = "") =>
	`---\nname: ${name}\ndescription: the ${name} skill\n${extra}---\nWhen you ${name}, say so.\n`;
const head = (nodes: string) => `---\nname: t\ndescription: d\ninput: string\nnodes:\n${nodes}---\n`;
const LOOK = `${head("  - id: look\n    agent: scribe\n")}\n## look\nx\n`;

/** The flow checked against the project's roster and catalogue, as `code line:col`. */
function check(text: string) {
	const sources = { project: true };
	const file = project.write(".pi/flows/t.md", text);
	const r = checkFlowText(
		text,
		file,
		loadRoster(project.cwd, sources, project.env),
		catalogueOptions(project.cwd, sources, project.env),
	);
	return { at: r.faults.map((f) => `${f.code} ${f.line}:${f.column}`), faults: r.faults };
}

describe("an agent file's `skills:`", () => {
	it("is a list or a comma-separated string, each name with its line and column in the file", () => {
		const list = parseAgentFile(agentFile("a", "read", "skills: [diffing, notes]\n"), "/a.md", "project", "a");
		expect((list as AgentDef).skills).toEqual([
			{ name: "diffing", line: 5, column: 10 },
			{ name: "notes", line: 5, column: 19 },
		]);
		const text = parseAgentFile(agentFile("a", "read", "skills: diffing,  notes, diffing\n"), "/a.md", "project", "a");
		expect((text as AgentDef).skills).toEqual([
			{ name: "diffing", line: 5, column: 9 },
			{ name: "notes", line: 5, column: 19 },
		]);
		const block = parseAgentFile(agentFile("a", "read", "skills:\n  - diffing\n"), "/a.md", "project", "a");
		expect((block as AgentDef).skills).toEqual([{ name: "diffing", line: 6, column: 5 }]);
		expect(parseAgentFile(agentFile("a", "read", "skills: 3\n"), "/a.md", "project", "a")).toMatchObject({
			kind: "broken",
			cause: expect.stringContaining("`skills:` must be"),
		});
	});

	it("finds a skill beside its agent first, then in the project, then the user's; by the name in SKILL.md", () => {
		project.write(".pi/agents/scribe.md", agentFile("scribe", "read", "skills: own, shared, personal\n"));
		project.write(".pi/agents/scribe/skills/own/SKILL.md", skill("own"));
		project.write(".pi/skills/own/SKILL.md", skill("own"));
		project.write(".pi/skills/folder-name/SKILL.md", skill("shared"));
		project.write("~agent/skills/personal/SKILL.md", skill("personal"));
		project.write("~agent/skills/shared/SKILL.md", skill("shared"));
		const scribe = loadRoster(project.cwd, { project: true }, project.env).get("scribe") as AgentDef;
		expect(scribe.skills?.map((s) => s.skill?.file.slice(project.cwd.length - "project".length))).toEqual([
			"project/.pi/agents/scribe/skills/own/SKILL.md",
			"project/.pi/skills/folder-name/SKILL.md",
			"agent/skills/personal/SKILL.md",
		]);
		expect(check(LOOK).at).toEqual([]);
		// Claude Code's agents find Claude Code's skills: `.claude/skills/` beside `.claude/agents/`.
		project.write(".claude/agents/helper.md", agentFile("helper", "Read", "skills: [review-kit]\n"));
		const kit = project.write(".claude/skills/review-kit/SKILL.md", skill("review-kit"));
		const helper = loadRoster(project.cwd, { project: true }, project.env).get("helper") as AgentDef;
		expect(helper.skills?.[0].skill?.file).toBe(kit);
		// Without the project's scope, only the agent's own folder and the user's are looked in.
		const user = loadRoster(project.cwd, { project: false }, project.env);
		expect(user.get("scribe")).toBeUndefined();
	});
});

describe("the checker, where a node names the agent", () => {
	it("unknown-skill: a name found nowhere, with the nearest name and where the agent file names it", () => {
		const file = project.write(".pi/agents/scribe.md", agentFile("scribe", "read", "skills: [difing]\n"));
		project.write(".pi/skills/diffing/SKILL.md", skill("diffing"));
		const r = check(LOOK);
		expect(r.at).toEqual(["unknown-skill 7:12"]);
		expect(r.faults[0]).toMatchObject({
			expected: ["diffing"],
			message: expect.stringContaining(`\`difing\` (${file}:5:10)`),
		});
		expect(r.faults[0].message).toContain("Did you mean `diffing`?");
	});

	it("skills-without-read: the agent's tools leave out `read` (combo's case: both faults at once)", () => {
		project.write(".pi/agents/scribe.md", agentFile("scribe", "grep", "skills: diffing\n"));
		const r = check(LOOK);
		expect(r.at).toEqual(["skills-without-read 7:12", "unknown-skill 7:12"]);
		expect(r.faults[0].message).toContain("its tools (grep) leave out `read`");
	});

	it("skill-hidden: a skill that sets disable-model-invocation, which pi keeps out of the model's list", () => {
		project.write(".pi/agents/scribe.md", agentFile("scribe", "read", "skills: secret\n"));
		project.write(".pi/skills/secret/SKILL.md", skill("secret", "disable-model-invocation: true\n"));
		expect(check(LOOK).at).toEqual(["skill-hidden 7:12"]);
		// A node's own `skills:` is given whole, as `/skill:secret` gives it: the node may name it.
		project.write(".pi/agents/scribe.md", agentFile("scribe", "read"));
		expect(check(`${head("  - id: look\n    agent: scribe\n    skills: [secret]\n")}\n## look\nx\n`).at).toEqual([]);
	});

	it("at each `among:` member and each swarm member that names the agent", () => {
		project.write(".pi/agents/scribe.md", agentFile("scribe", "read", "skills: nosuch\n"));
		const among = `${head(
			"  - id: pick\n    agent: planner\n    output: { who: scout | scribe }\n  - id: look\n    agent-from: pick.output.who\n    among: [scout, scribe]\n",
		)}\n## pick\nx\n\n## look\nx\n`;
		expect(check(among).at).toEqual(["unknown-skill 11:20"]);
		const swarm = `${head("  - id: crowd\n    swarm: [{ agent: scout }, { agent: scribe }]\n    rounds: 1\n")}\n## crowd\nAgree.\n`;
		expect(check(swarm).at).toEqual(["unknown-skill 7:40"]);
	});

	it("skills-without-read at the node: its own skills, or its `tools:` narrowing `read` away from skills", () => {
		project.write(".pi/skills/diffing/SKILL.md", skill("diffing"));
		project.write(".pi/agents/scribe.md", agentFile("scribe", "read, grep", "skills: diffing\n"));
		const narrowed = `${head("  - id: look\n    agent: scribe\n    tools: [grep]\n")}\n## look\nx\n`;
		expect(check(narrowed).at).toEqual(["skills-without-read 8:13"]);
		project.write(".pi/agents/scribe.md", agentFile("scribe", "grep"));
		const own = `${head("  - id: look\n    agent: scribe\n    skills: [diffing]\n")}\n## look\nx\n`;
		expect(check(own).at).toEqual(["skills-without-read 8:14"]);
	});

	it("plan shows the agent's skills beside the node's", () => {
		project.write(".pi/skills/diffing/SKILL.md", skill("diffing"));
		project.write(".pi/skills/notes/SKILL.md", skill("notes"));
		project.write(".pi/agents/scribe.md", agentFile("scribe", "read", "skills: diffing\n"));
		const text = `${head("  - id: look\n    agent: scribe\n    skills: [notes]\n")}\n## look\nx\n`;
		const sources = { project: true };
		const checked = checkFlowText(
			text,
			project.write(".pi/flows/t.md", text),
			loadRoster(project.cwd, sources, project.env),
			catalogueOptions(project.cwd, sources, project.env),
		);
		const plan = showPlan(planOf(checked.value!, { file: "t.md" }));
		expect(plan).toContain("skills notes");
		expect(plan).toContain("agent skills diffing");
	});

	it("the subagent tool and /step refuse the agent the same way", () => {
		project.write(".pi/agents/scribe.md", agentFile("scribe", "read", "skills: [difing]\n"));
		project.write(".pi/skills/diffing/SKILL.md", skill("diffing"));
		const got = agentIn(loadRoster(project.cwd, { project: true }, project.env), "scribe");
		expect(got).toMatchObject({ ok: false, error: expect.stringContaining("unknown-skill: the agent `scribe`") });
	});
});

describe("at run time, on the scripted model", () => {
	it("the subagent's system prompt lists the agent's skills as pi lists them, and the model reads one", async () => {
		project.write(".pi/agents/scribe.md", agentFile("scribe", "read", "skills: diffing\n"));
		const file = project.write(".pi/skills/diffing/SKILL.md", skill("diffing"));
		const flow = flowOf("t", "  - id: look\n    agent: scribe\n  - id: open\n    agent: scribe\n", {
			look: "Look.",
			open: "Open it.",
		});
		const script = `turns:\n  look:\n    - say: "{{system}}"\n  open:\n    - call: read\n      args: { path: ${JSON.stringify(file)} }\n    - say: "{{result}}"\n`;
		const ran = await runInline(project, "t", flow, script);
		expect(ran.result.ok).toBe(true);
		const system = String(ran.result.visits[0].output);
		expect(system).toContain("<available_skills>");
		expect(system).toContain("<name>diffing</name>");
		expect(system).toContain("<description>the diffing skill</description>");
		expect(system).toContain(`<location>${file}</location>`);
		expect(system).toContain("Use the read tool to load a skill's file");
		expect(String(ran.result.output)).toContain("When you diffing, say so.");
	});

	it("a node's own skill is given whole, with where it lives, as pi's /skill: gives one", async () => {
		project.write(".pi/agents/scribe.md", agentFile("scribe", "read"));
		const file = project.write(".pi/skills/diffing/SKILL.md", skill("diffing"));
		const flow = flowOf("t", "  - id: look\n    agent: scribe\n    skills: [diffing]\n", { look: "Look." });
		const ran = await runInline(project, "t", flow, `turns:\n  look:\n    - say: "{{system}}"\n`);
		const system = String(ran.result.output);
		expect(system).toContain(`<skill name="diffing" location="${file}">`);
		expect(system).toContain("When you diffing, say so.");
		expect(system).not.toContain("<available_skills>");
	});

	it("a run's snapshot keeps the agent's skills as found, so a resumed run offers the same", () => {
		project.write(".pi/agents/scribe.md", agentFile("scribe", "read", "skills: diffing\n"));
		const file = project.write(".pi/skills/diffing/SKILL.md", skill("diffing"));
		const sources = { project: true };
		const checked = checkFlowText(
			LOOK,
			project.write(".pi/flows/t.md", LOOK),
			loadRoster(project.cwd, sources, project.env),
			catalogueOptions(project.cwd, sources, project.env),
		);
		const snapshot = JSON.parse(
			JSON.stringify(snapshotOf(checked.value!, "x", new Map(), { cwd: project.cwd, somebodyThere: false })),
		);
		project.cleanup();
		const again = fromSnapshot(snapshot);
		expect("value" in again && again.value.agents.get("look")?.skills?.[0].skill?.file).toBe(file);
	});

	it("an agent without skills is offered none", async () => {
		project.write(".pi/agents/scribe.md", agentFile("scribe", "read"));
		const flow = flowOf("t", "  - id: look\n    agent: scribe\n", { look: "Look." });
		const ran = await runInline(project, "t", flow, `turns:\n  look:\n    - say: "{{system}}"\n`);
		expect(String(ran.result.output)).not.toContain("<available_skills>");
	});
});
