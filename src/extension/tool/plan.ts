/**
 * What a `subagent` call asks for, decided before anything spawns: its mode from the fields it gives, its
 * agents looked up in the roster (a miss names the nearest agent), its chain read, its limits checked.
 * A refusal is text for the model with what to do instead; it is returned as an error result, never
 * thrown, so the model can correct the call.
 */
import { type AgentDef, agentSkillProblems, type Roster, SUBAGENT_TOOLS, unknownTools } from "../../agents/index.ts";
import { parseChain } from "../../chain/index.ts";
import { formatFault, nearest } from "../../faults/index.ts";
import { readTimeout } from "../args.ts";
import { MAX_CONCURRENCY, MAX_TASKS, type SubagentParams } from "./params.ts";

/** One step of a chain, with what it applies. */
export interface ChainStepPlan {
	agent: AgentDef;
	/** The step's own instruction; the previous step's output follows it. */
	task?: string;
	timeoutMs?: number;
}

/** A call, understood: one mode, its agents resolved, its limits checked. */
export type CallPlan = { model?: string; timeoutMs?: number } & (
	| { mode: "single"; agent: AgentDef; task: string }
	| { mode: "parallel"; tasks: { agent: AgentDef; task: string }[]; concurrency: number }
	| { mode: "chain"; steps: ChainStepPlan[]; input: string }
	/** A chain string: run as a flow, as `pi-flows chain` runs it, so every flag of the syntax applies. */
	| { mode: "chain"; written: string; input: string }
	| { mode: "flow"; flow: string; input: string }
);

/** A plan, or why the call is refused (one message, then any faults one per line). */
export type Planned = { ok: true; plan: CallPlan } | { ok: false; message: string; faults?: string[] };

const MODES = ["agent", "tasks", "chain", "flow"] as const;
const ALLOWED: Record<(typeof MODES)[number], readonly string[]> = {
	agent: ["agent", "task", "model", "timeout"],
	tasks: ["tasks", "concurrency", "model", "timeout"],
	chain: ["chain", "task", "model", "timeout"],
	flow: ["flow", "input", "task", "model", "timeout"],
};
const WHAT: Record<(typeof MODES)[number], string> = {
	agent: "`agent` runs one subagent on `task`",
	tasks: "`tasks` runs several subagents in parallel",
	chain: "`chain` runs steps one after another",
	flow: "`flow` runs a flow as its file describes it",
};

/** Reads a call against the roster, so every refusal happens before anything spawns. */
export function planCall(params: SubagentParams, roster: Roster): Planned {
	const given = Object.entries(params)
		.filter(([, v]) => v !== undefined && v !== null)
		.map(([k]) => k);
	const modes = MODES.filter((m) => given.includes(m));
	if (modes.length === 0) {
		return refuse(
			"say what to run: `agent` and `task` for one subagent, `tasks` for several in parallel, `chain` for steps in order, or `flow` and `input` for a whole flow.",
		);
	}
	if (modes.length > 1)
		return refuse(
			`choose one of \`agent\`, \`tasks\`, \`chain\`, \`flow\`; this call gives ${modes.map((m) => `\`${m}\``).join(" and ")}.`,
		);
	const mode = modes[0];
	const extra = given.filter((k) => !ALLOWED[mode].includes(k));
	if (extra.length) {
		const takes = ALLOWED[mode].filter((k) => k !== mode).map((k) => `\`${k}\``);
		return refuse(
			`${WHAT[mode]} and takes only ${takes.join(", ")} beside it; drop ${extra.map((k) => `\`${k}\``).join(", ")}.`,
		);
	}
	const timeout = readTimeout(params.timeout);
	if (!timeout.ok) return refuse(timeout.error.replace("--timeout", "`timeout`"));
	const common = {
		...(params.model ? { model: params.model } : {}),
		...(timeout.value !== undefined ? { timeoutMs: timeout.value } : {}),
	};
	const agent = (name: string) => agentIn(roster, name);
	if (mode === "agent") {
		if (!params.task?.trim())
			return refuse("`agent` needs `task`: the whole task, since the subagent sees nothing of this conversation.");
		const a = agent(params.agent ?? "");
		return a.ok
			? { ok: true, plan: { ...common, mode: "single", agent: a.agent, task: params.task } }
			: refuse(a.error);
	}
	if (mode === "tasks") {
		const tasks = params.tasks ?? [];
		if (tasks.length === 0) return refuse("`tasks` is empty: give at least one `{ agent, task }`.");
		if (tasks.length > MAX_TASKS)
			return refuse(
				`\`tasks\` holds ${tasks.length} tasks; one call runs at most ${MAX_TASKS}. Split the work over several calls, or merge tasks.`,
			);
		const concurrency = params.concurrency ?? MAX_CONCURRENCY;
		if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY)
			return refuse(`\`concurrency\` is 1 to ${MAX_CONCURRENCY}, not ${concurrency}.`);
		const planned: { agent: AgentDef; task: string }[] = [];
		for (const [i, t] of tasks.entries()) {
			if (!t.task?.trim()) return refuse(`task ${i + 1} (\`${t.agent}\`) has no \`task\`.`);
			const a = agent(t.agent);
			if (!a.ok) return refuse(`task ${i + 1}: ${a.error}`);
			planned.push({ agent: a.agent, task: t.task });
		}
		return { ok: true, plan: { ...common, mode: "parallel", tasks: planned, concurrency } };
	}
	if (mode === "flow") {
		if (params.input !== undefined && params.task !== undefined)
			return refuse("`flow` takes its input in `input`; give it once, not also as `task`.");
		return {
			ok: true,
			plan: { ...common, mode: "flow", flow: params.flow ?? "", input: params.input ?? params.task ?? "" },
		};
	}
	return typeof params.chain === "string"
		? chainFromText(params.chain, params.task ?? "", common)
		: chainFromList(params.chain ?? [], roster, common);
}

function chainFromList(
	list: readonly { agent: string; task?: string }[],
	roster: Roster,
	common: { model?: string; timeoutMs?: number },
): Planned {
	if (list.length === 0) return refuse("`chain` is empty: give at least one step.");
	if (!list[0].task?.trim()) return refuse("the chain's first step needs `task`: it is the chain's input.");
	const steps: ChainStepPlan[] = [];
	for (const [i, s] of list.entries()) {
		const a = agentIn(roster, s.agent);
		if (!a.ok) return refuse(`step ${i + 1}: ${a.error}`);
		// A copy per step: the runner tells steps apart by their agent object, and one agent may take two steps.
		steps.push({ agent: { ...a.agent }, ...(i > 0 && s.task ? { task: s.task } : {}) });
	}
	return { ok: true, plan: { ...common, mode: "chain", steps, input: list[0].task } };
}

/**
 * The chain syntax of docs/chain.md, read here only so a chain that does not parse is refused with its
 * columns before anything else; it then runs as a flow, which checks its agents, flows and templates.
 */
function chainFromText(text: string, task: string, common: { model?: string; timeoutMs?: number }): Planned {
	const parsed = parseChain(text, { file: "chain" });
	if (!parsed.value)
		return { ok: false, message: "the chain does not parse:", faults: parsed.faults.map((f) => formatFault(f)) };
	// A chain that opens with a goal says what to do; its input may then be left out.
	const first = parsed.value.steps[0]?.ref;
	const input = task.trim() ? task : first?.kind === "goal" ? first.text : "";
	if (!input.trim()) return refuse("the chain needs an input: give it in `task`.");
	return { ok: true, plan: { ...common, mode: "chain", written: text, input } };
}

/** An agent by name, or a refusal naming the nearest one. */
export function agentIn(roster: Roster, name: string): { ok: true; agent: AgentDef } | { ok: false; error: string } {
	const found = roster.get(name);
	if (found?.kind === "agent") {
		// The same refusal a flow gets (`unknown-tool`): a tool pi would drop without a word is refused here.
		const unknown = unknownTools(found.tools);
		if (unknown.length)
			return {
				ok: false,
				error: `the agent \`${name}\` (${found.file}) lists ${unknown.map((t) => `\`${t}\``).join(", ")}, which a subagent cannot have (it can have ${SUBAGENT_TOOLS.join(", ")}).`,
			};
		// And the refusals a flow gets for its `skills:` (unknown-skill, skill-hidden, skills-without-read).
		const skills = agentSkillProblems(found);
		if (skills.length) return { ok: false, error: `${skills.map((p) => `${p.code}: ${p.message}`).join("; ")}.` };
		return { ok: true, agent: found };
	}
	if (found) return { ok: false, error: `the agent \`${name}\` (${found.file}) cannot be used: ${found.cause}.` };
	const names = roster.names();
	const near = nearest(name, names);
	return {
		ok: false,
		error: `no agent \`${name}\`.${near ? ` Did you mean \`${near}\`?` : ""} The agents are: ${names.join(", ")}.`,
	};
}

function refuse(message: string): Planned {
	return { ok: false, message };
}
