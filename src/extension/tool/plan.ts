/**
 * What a `subagent` call asks for, decided before anything spawns: its mode from the fields it gives, its
 * agents looked up in the roster (a miss names the nearest agent), its chain parsed, its limits checked.
 * A refusal is text for the model with what to do instead; it is returned as an error result, never
 * thrown, so the model can correct the call.
 */
import type { AgentDef, Roster } from "../../agents/index.ts";
import { type ChainModel, type ChainSpec, DEFAULT_GOAL_AGENT, parseChain } from "../../chain/index.ts";
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
	| { mode: "chain"; steps: ChainStepPlan[]; input: string; budgetTokens?: number }
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
	const given = Object.entries(params).filter(([, v]) => v !== undefined && v !== null).map(([k]) => k);
	const modes = MODES.filter((m) => given.includes(m));
	if (modes.length === 0) {
		return refuse("say what to run: `agent` and `task` for one subagent, `tasks` for several in parallel, `chain` for steps in order, or `flow` and `input` for a whole flow.");
	}
	if (modes.length > 1) return refuse(`choose one of \`agent\`, \`tasks\`, \`chain\`, \`flow\`; this call gives ${modes.map((m) => `\`${m}\``).join(" and ")}.`);
	const mode = modes[0];
	const extra = given.filter((k) => !ALLOWED[mode].includes(k));
	if (extra.length) {
		const takes = ALLOWED[mode].filter((k) => k !== mode).map((k) => `\`${k}\``);
		return refuse(`${WHAT[mode]} and takes only ${takes.join(", ")} beside it; drop ${extra.map((k) => `\`${k}\``).join(", ")}.`);
	}
	const timeout = readTimeout(params.timeout);
	if (!timeout.ok) return refuse(timeout.error.replace("--timeout", "`timeout`"));
	const common = { ...(params.model ? { model: params.model } : {}), ...(timeout.value !== undefined ? { timeoutMs: timeout.value } : {}) };
	const agent = (name: string) => agentIn(roster, name);
	if (mode === "agent") {
		if (!params.task?.trim()) return refuse("`agent` needs `task`: the whole task, since the subagent sees nothing of this conversation.");
		const a = agent(params.agent ?? "");
		return a.ok ? { ok: true, plan: { ...common, mode: "single", agent: a.agent, task: params.task } } : refuse(a.error);
	}
	if (mode === "tasks") {
		const tasks = params.tasks ?? [];
		if (tasks.length === 0) return refuse("`tasks` is empty: give at least one `{ agent, task }`.");
		if (tasks.length > MAX_TASKS) return refuse(`\`tasks\` holds ${tasks.length} tasks; one call runs at most ${MAX_TASKS}. Split the work over several calls, or merge tasks.`);
		const concurrency = params.concurrency ?? MAX_CONCURRENCY;
		if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY) return refuse(`\`concurrency\` is 1 to ${MAX_CONCURRENCY}, not ${concurrency}.`);
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
		if (params.input !== undefined && params.task !== undefined) return refuse("`flow` takes its input in `input`; give it once, not also as `task`.");
		return { ok: true, plan: { ...common, mode: "flow", flow: params.flow ?? "", input: params.input ?? params.task ?? "" } };
	}
	return typeof params.chain === "string" ? chainFromText(params.chain, params.task ?? "", roster, common) : chainFromList(params.chain ?? [], roster, common);
}

function chainFromList(list: readonly { agent: string; task?: string }[], roster: Roster, common: { model?: string; timeoutMs?: number }): Planned {
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

/** The chain syntax of docs/chain.md; what the tool does not apply yet is refused by name, never dropped. */
function chainFromText(text: string, input: string, roster: Roster, common: { model?: string; timeoutMs?: number }): Planned {
	const parsed = parseChain(text, { file: "chain" });
	if (!parsed.value) return { ok: false, message: "the chain does not parse:", faults: parsed.faults.map((f) => formatFault(f)) };
	const spec: ChainSpec = parsed.value;
	const g = spec.globals;
	const unapplied = [
		g.skills && "--global-skill",
		g.continueOnError && "--continue-on-error",
		g.retry !== undefined && "--retry",
		g.backoffMs !== undefined && "--backoff",
		g.maxHistory !== undefined && "--max-history",
		g.budgetWarning !== undefined && "--budget-warning",
		...spec.steps.flatMap((s) => [s.skills && "--skill", s.retry !== undefined && "--retry", s.continueOnError && "--continue-on-error"]),
	].filter((x): x is string => typeof x === "string");
	if (unapplied.length) return refuse(`the subagent tool does not apply ${[...new Set(unapplied)].join(", ")} in chains yet; drop ${unapplied.length === 1 ? "it" : "them"}, or write the chain as a flow.`);
	const steps: ChainStepPlan[] = [];
	let first = input;
	for (const [i, s] of spec.steps.entries()) {
		if (s.ref.kind === "flow" || s.ref.kind === "template") return refuse(`step ${i + 1}: ${s.ref.kind} steps do not run in the subagent tool's chains yet; call the flow with \`flow\`.`);
		const name = s.ref.kind === "agent" ? s.ref.name : DEFAULT_GOAL_AGENT;
		const a = agentIn(roster, name);
		if (!a.ok) return refuse(`step ${i + 1}: ${a.error}`);
		const model = modelText(s.model ?? g.model);
		const thinking = s.thinking ?? (s.model ? s.model.thinking : undefined) ?? g.thinking;
		let task: string | undefined;
		// A goal is its step's instruction; as the first step with no `task`, it is the chain's input.
		if (s.ref.kind === "goal" && i === 0 && !first.trim()) first = s.ref.text;
		else if (s.ref.kind === "goal") task = s.ref.text;
		const agent: AgentDef = { ...a.agent, ...(model && !common.model ? { model } : {}), ...(thinking ? { thinking } : {}) };
		steps.push({ agent, ...(task ? { task } : {}), ...(s.timeoutMs !== undefined ? { timeoutMs: s.timeoutMs } : {}) });
	}
	if (!first.trim()) return refuse("the chain needs an input: give it in `task`.");
	return { ok: true, plan: { ...common, mode: "chain", steps, input: first, ...(g.budgetTotal !== undefined ? { budgetTokens: g.budgetTotal } : {}) } };
}

function modelText(m: ChainModel | undefined): string | undefined {
	return m ? `${m.provider}/${m.id}` : undefined;
}

/** An agent by name, or a refusal naming the nearest one. */
export function agentIn(roster: Roster, name: string): { ok: true; agent: AgentDef } | { ok: false; error: string } {
	const found = roster.get(name);
	if (found?.kind === "agent") return { ok: true, agent: found };
	if (found) return { ok: false, error: `the agent \`${name}\` (${found.file}) cannot be used: ${found.cause}.` };
	const names = roster.names();
	const near = nearest(name, names);
	return { ok: false, error: `no agent \`${name}\`.${near ? ` Did you mean \`${near}\`?` : ""} The agents are: ${names.join(", ")}.` };
}

function refuse(message: string): Planned {
	return { ok: false, message };
}
