/**
 * pi-crew's chains as its docs and tests write them (test/fixtures/pi-crew/chains.json, data taken from
 * baphuongna/pi-crew at the commit named there) read the same here, except where docs/chain.md's
 * "Differences from pi-crew" says why not; and the documented examples run through `pi-flows chain` on the
 * scripted model, with their chain-wide flags beside the chain as pi-crew's docs put them.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChainStep, parseChain } from "../../src/chain/index.ts";
import type { Io } from "../../src/cli/io.ts";
import { main } from "../../src/cli/main.ts";
import { type TempProject, agentFile, tempProject } from "../helpers/project.ts";

interface Step {
	agent?: string;
	label?: string;
	goal?: string;
	flow?: string;
	template?: string;
	model?: string;
	timeoutMs?: number;
	thinking?: string;
	skills?: string[];
	continueOnError?: boolean;
}
interface Case {
	from: string;
	chain: string;
	beside?: string;
	steps?: Step[];
	globals?: Record<string, unknown>;
	difference?: string;
	piCrew?: string;
	refused?: string[];
}

const DATA = JSON.parse(readFileSync(new URL("../fixtures/pi-crew/chains.json", import.meta.url), "utf8")) as {
	agree: Case[];
	differ: Case[];
};
const DOC = readFileSync(new URL("../../docs/chain.md", import.meta.url), "utf8");
const DIFFERENCES = DOC.slice(DOC.indexOf("## Differences from pi-crew"));

const model = (m: { provider?: string; id: string; thinking?: string } | undefined) =>
	m && `${m.provider ? `${m.provider}/` : ""}${m.id}${m.thinking ? `:${m.thinking}` : ""}`;

/** A parsed step in the fixture's terms. */
function asStep(s: ChainStep): Step {
	const r = s.ref;
	const out: Step =
		r.kind === "agent"
			? { agent: r.name, ...(r.label ? { label: r.label } : {}), ...(r.goal ? { goal: r.goal } : {}) }
			: r.kind === "goal"
				? { goal: r.text }
				: r.kind === "flow"
					? { flow: r.name }
					: { template: r.name };
	return {
		...out,
		...(s.model ? { model: model(s.model) } : {}),
		...(s.timeoutMs !== undefined ? { timeoutMs: s.timeoutMs } : {}),
		...(s.thinking ? { thinking: s.thinking } : {}),
		...(s.skills ? { skills: s.skills } : {}),
		...(s.continueOnError !== undefined ? { continueOnError: s.continueOnError } : {}),
	};
}

function read(c: Case) {
	return parseChain(c.chain, {
		file: "chain",
		...(c.beside ? { globals: { text: c.beside, file: "command line" } } : {}),
	});
}

describe("pi-crew's chains read the same", () => {
	it.each(DATA.agree.map((c) => [c.chain + (c.beside ? `  ${c.beside}` : ""), c] as const))("%s", (_name, c) => {
		const r = read(c);
		expect(r.faults).toEqual([]);
		expect(r.value?.steps.map(asStep)).toEqual(c.steps);
		const globals = { ...r.value?.globals, ...(r.value?.globals.model ? { model: model(r.value.globals.model) } : {}) };
		expect(globals).toEqual(c.globals ?? {});
	});
});

describe("where they differ, docs/chain.md says why", () => {
	it.each(DATA.differ.map((c) => [c.chain, c] as const))("%s", (_name, c) => {
		const r = read(c);
		if (c.refused) expect(r.faults.map((f) => f.code)).toEqual(c.refused);
		else expect(r.value?.steps.map(asStep)).toEqual(c.steps);
		expect(DIFFERENCES, `the difference \`${c.difference}\` is not in the table`).toContain(`<!-- ${c.difference} -->`);
	});
});

describe("pi-crew's documented examples run through pi-flows chain", () => {
	let project: TempProject;
	beforeAll(() => {
		project = tempProject();
		const agents = new Set(
			DATA.agree
				.filter((c) => c.from === "chain.workflow.md")
				.flatMap((c) => (c.steps ?? []).flatMap((s) => (s.agent ? [s.agent] : []))),
		);
		for (const name of agents) project.write(`.pi/agents/${name}.md`, agentFile(name));
		project.write("s.yaml", "turns:\n  '*':\n    - say: done\n");
		project.write("~agent/skills/writing/SKILL.md", "---\nname: writing\n---\nWrite plainly.\n");
	});
	afterAll(() => project.cleanup());

	const documented = DATA.agree.filter((c) => c.from === "chain.workflow.md");
	it.each(documented.map((c) => [c.chain + (c.beside ? `  ${c.beside}` : ""), c] as const))("%s", async (_name, c) => {
		const err: string[] = [];
		const io: Io = {
			cwd: project.cwd,
			env: project.env,
			agentDir: project.agentDir,
			stdout: () => {},
			stderr: (t) => err.push(t),
		};
		const beside = c.beside ? c.beside.split(" ") : [];
		const code = await main(
			["chain", c.chain, "--goal", "Build feature X", ...beside, "--script", "s.yaml", "--project"],
			io,
		);
		expect(code, err.join("\n")).toBe(0);
		expect(err.join("\n")).toContain(`✓ chain · ${c.steps?.length} visit(s)`);
	});
});
