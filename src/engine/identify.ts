/**
 * The facts of a visit handed to `src/identity`, which alone decides the parts: the agent as loaded, the
 * model, the task's section and reads, the answer tools, the settings that reach the turn, and the tree
 * the visit saw (`trees.ts`).
 *
 *   agentFacts(world, node, frame, …) → { identity: { key, parts: { section, "read:input", tools, tree, … } },
 *                                         cwd, tree: "4b825dc6…", mayWrite: false }
 */
import { type AgentDef, mayWriteWith } from "../agents/index.ts";
import {
	type AgentPart,
	type AgentShared,
	type AnswerTool,
	agentIdentity,
	askIdentity,
	blockIdentity,
	checkIdentity,
	commitIdentity,
	NO_TREE,
	type ReadPart,
	stable,
	swarmIdentity,
	type VisitIdentity,
} from "../identity/index.ts";
import type { AgentNode, Address, FlowNode, SwarmNode } from "../language/ast.ts";
import { allNodes } from "../language/ast.ts";
import type { CheckedFlow } from "../language/check/index.ts";
import type { Type } from "../language/types/index.ts";
import type { HandoffPolicy } from "../handoff/index.ts";
import { checkpointTool, finishTool } from "./handoff-tools.ts";
import type { Ledger } from "./ledger.ts";
import { modelKey, type NodeModel } from "./models.ts";
import { submitTool, verdictTool } from "./tools.ts";
import { renderRead } from "./turn.ts";
import { type Frame, frameCwd } from "./frames.ts";
import { hashesTrees, treeFor } from "./trees.ts";
import type { World } from "./world.ts";

/** A visit's identity with what reuse needs beside it: the folder it works in and the tree it saw there. */
export interface VisitFacts {
	/** Made only when something reads it ({@link identifies}). */
	identity?: VisitIdentity;
	cwd: string;
	/** The tree at the visit's start (also for `reuse: ignore-tree`, when the visit may write). */
	tree: string;
	/** Whether the visit's tools can change the tree (its change is then recorded). */
	mayWrite: boolean;
	/** Why the visit can never be reused, whatever its identity (a shared conversation, `reuse: never`). */
	never?: string;
	/** Node ids whose values the visit reads (the plan marks it "may change" when one of them runs). */
	depends: string[];
}

/**
 * Whether a visit's identity is read in this run: a recorder that journals it (every run folder, the DBOS
 * journal, so every CLI, extension and MCP run) or an earlier run to reuse from. A library run with neither
 * makes none: hashing a turn's parts was a third of the evaluator's own work a turn, for nobody.
 */
export function identifies(world: World): boolean {
	return world.recorder.identity !== undefined || world.options.reuse !== undefined;
}

/** The agent file as the identity sees it, with what it was made from. */
interface KnownPart {
	def: Pick<AgentDef, "name" | "file" | "prompt" | "tools" | "skills" | "mustCallTool" | "lifetime">;
	part: AgentPart;
}

/**
 * The identity's view of each agent, by the loaded agent: one object for every visit of it, so the
 * identity hashes its shared parts once (`agentIdentity`). Remade if any field it copies was replaced.
 */
const PARTS = new WeakMap<AgentDef, KnownPart>();

/** The agent file as the identity sees it. */
function agentPart(agent: AgentDef): AgentPart {
	const known = PARTS.get(agent);
	const d = known?.def;
	if (
		known &&
		d?.name === agent.name &&
		d.file === agent.file &&
		d.prompt === agent.prompt &&
		d.tools === agent.tools &&
		d.skills === agent.skills &&
		d.mustCallTool === agent.mustCallTool &&
		d.lifetime === agent.lifetime
	)
		return known.part;
	const part: AgentPart = {
		name: agent.name,
		file: agent.file,
		prompt: agent.prompt,
		tools: agent.tools,
		skills: (agent.skills ?? []).map((k) => ({ name: k.name, ...(k.skill ? { text: k.skill.text } : {}) })),
		...(agent.mustCallTool !== undefined ? { mustCallTool: agent.mustCallTool } : {}),
		...(agent.lifetime ? { lifetime: agent.lifetime } : {}),
	};
	const { name, file, prompt, tools, skills, mustCallTool, lifetime } = agent;
	PARTS.set(agent, { def: { name, file, prompt, tools, skills, mustCallTool, lifetime }, part });
	return part;
}

/** The reads of a turn, as the task renders them. */
function readsOf(world: World, reads: readonly Address[], frame: Frame, diff: string | undefined) {
	return reads.map((r) => ({ address: r.text, text: renderRead(r, frame, world, diff) }));
}

/** Node ids a visit's reads depend on: a node read directly, a map's list behind an `item`, a block by its id. */
function dependsOf(world: World, addresses: readonly Address[]): string[] {
	const out = new Set<string>();
	const add = (a: Address | undefined) => {
		const b = a ? world.flow.resolutions.get(a.expr)?.binding : undefined;
		if (!b) return;
		if (b.kind === "node" || b.kind === "block") out.add(b.id);
		else if (b.kind === "item") {
			out.add(b.map);
			const map = allNodes(world.flow.nodes).find((n) => n.id.value === b.map);
			if (map?.kind === "map") add(map.from);
		}
	};
	for (const a of addresses) add(a);
	return [...out];
}

/** What an agent visit was planned with (see `planVisit` in agent.ts). */
export interface AgentPlan {
	agent: AgentDef;
	model?: NodeModel;
	ledger?: Ledger;
	/** The closing words the task ends with, any plugin's addendum included. */
	told?: string;
	task: string;
	/** The reads as the task rendered them, so the identity hashes what the turn was asked. */
	reads: readonly ReadPart[];
	shared?: string;
	policy: HandoffPolicy;
	threshold: number;
	maxContinuations: number;
}

/** The answer tools a node's visits were last offered, with what they were made from. */
interface Answers {
	typed: Type | undefined;
	enabled: boolean;
	reset: HandoffPolicy["checkpointReset"];
	tools: readonly AnswerTool[];
}

/**
 * The answer tools of a node's visits, by node: without a ledger they depend only on the answer type and
 * the handoff policy, so every visit of a map's thousand items shares one list, marked stable so its
 * canonical text is written once and not on every visit. A ledger's verdict tool reads the ledger's state
 * at the visit: those are made afresh each time.
 */
const ANSWERS = new WeakMap<AgentNode, Answers>();

function answerToolsOf(node: AgentNode, typed: Type | undefined, plan: AgentPlan): readonly AnswerTool[] {
	const { enabled, checkpointReset: reset } = plan.policy;
	const known = plan.ledger ? undefined : ANSWERS.get(node);
	if (known && known.typed === typed && known.enabled === enabled && known.reset === reset) return known.tools;
	const blank = { refusals: 0 };
	const tools = [
		...(typed ? [submitTool(typed, blank)] : []),
		...(plan.ledger ? [verdictTool(plan.ledger, node.path, { at: "" }, blank)] : []),
		...(enabled ? [finishTool({}), checkpointTool({}, reset)] : []),
	].map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
	if (plan.ledger) return tools;
	ANSWERS.set(node, { typed, enabled, reset, tools: stable(tools) });
	return tools;
}

/** A node's shared facts as last handed to the identity, with the inputs they were made from. */
interface KnownShared {
	inputs: readonly unknown[];
	shared: AgentShared;
}

/**
 * The facts every visit of a node shares (its agent, tools, skills, model, section, settings), by node:
 * remade when any input differs by reference, so a map's items hand the identity the same objects and
 * their parts are hashed once, not on every visit.
 */
const SHARED = new WeakMap<AgentNode, KnownShared>();

function sharedFacts(world: World, node: AgentNode, plan: AgentPlan, answerTools: readonly AnswerTool[]): AgentShared {
	const { agent } = plan;
	const skills = world.flow.skills.get(node.id.value);
	const inputs = [
		agentPart(agent),
		node.tools,
		world.options.toolSchemas,
		answerTools,
		skills,
		plan.model?.spec ?? plan.model?.ref,
		node.thinking?.value ?? agent.thinking ?? "default",
		world.flow.prompts.get(node.id.value) ?? "",
		plan.policy.enabled,
		plan.threshold,
		plan.maxContinuations,
		plan.policy.maxResets,
	];
	const known = SHARED.get(node);
	if (known && inputs.every((x, i) => x === known.inputs[i])) return known.shared;
	const [part, , , , , model, thinking, section] = inputs as [AgentPart, ...unknown[]];
	const tools = node.tools ? node.tools.map((t) => t.value) : agent.tools;
	const shared: AgentShared = {
		agent: part,
		...(node.tools ? { nodeTools: tools } : {}),
		...(world.options.toolSchemas ? { toolSchemas: world.options.toolSchemas(tools) } : {}),
		answerTools,
		nodeSkills: (skills ?? []).map((k) => ({ name: k.name, text: k.text })),
		...(model !== undefined ? { model: model as string } : {}),
		thinking: thinking as string,
		section: section as string,
		settings: {
			handoff: plan.policy.enabled
				? { watermark: plan.threshold, continuations: plan.maxContinuations, resets: plan.policy.maxResets }
				: "off",
		},
	};
	SHARED.set(node, { inputs, shared });
	return shared;
}

/** Node ids a node's visits depend on, by node: the reads and the flow never change during a run. */
const DEPENDS = new WeakMap<FlowNode, { flow: CheckedFlow; depends: readonly string[] }>();

function nodeDepends(world: World, node: FlowNode, addresses: () => readonly Address[]): string[] {
	const known = DEPENDS.get(node);
	if (known?.flow === world.flow) return [...known.depends];
	const depends = dependsOf(world, addresses());
	DEPENDS.set(node, { flow: world.flow, depends });
	return [...depends];
}

/**
 * The facts of an agent visit; undefined when nothing reads them (no identity is journaled or looked up,
 * and the visit cannot write, so no change of its is looked for), and a promise only while a tree is hashed:
 * every visit of a run asks.
 */
export function agentFacts(
	world: World,
	node: AgentNode,
	frame: Frame,
	plan: AgentPlan,
): VisitFacts | Promise<VisitFacts> | undefined {
	const tools = node.tools ? node.tools.map((t) => t.value) : plan.agent.tools;
	const mayWrite = mayWriteWith(tools);
	if (!mayWrite && !identifies(world)) return undefined;
	const cwd = frameCwd(frame, world);
	const ignoreTree = node.reuse?.value === "ignore-tree";
	if (tools.length && (!ignoreTree || mayWrite) && hashesTrees(world))
		return treeFor(world, cwd).then((tree) => factsOf(world, node, plan, cwd, tree, mayWrite));
	return factsOf(world, node, plan, cwd, NO_TREE, mayWrite);
}

function factsOf(
	world: World,
	node: AgentNode,
	plan: AgentPlan,
	cwd: string,
	tree: string,
	mayWrite: boolean,
): VisitFacts {
	const ignoreTree = node.reuse?.value === "ignore-tree";
	const identity = identifies(world) ? agentVisitIdentity(world, node, plan, ignoreTree ? NO_TREE : tree) : undefined;
	const never =
		node.reuse?.value === "never"
			? "`reuse: never`"
			: plan.shared
				? `it shares a subagent (${plan.shared}) whose conversation a reused visit would not carry`
				: undefined;
	return {
		...(identity ? { identity } : {}),
		cwd,
		tree,
		mayWrite,
		...(never ? { never } : {}),
		depends: nodeDepends(world, node, () => [...node.reads, ...(node.agentFrom ? [node.agentFrom] : [])]),
	};
}

function agentVisitIdentity(world: World, node: AgentNode, plan: AgentPlan, tree: string): VisitIdentity {
	const typed = world.flow.answerTypes.get(node.id.value) ?? node.output?.value;
	return agentIdentity({
		...sharedFacts(world, node, plan, answerToolsOf(node, typed, plan)),
		reads: plan.reads,
		...(plan.told ? { closing: plan.told } : {}),
		tree,
		task: plan.task,
	});
}

/** The facts of a swarm visit: its goal, its members as loaded with their models, the tree. */
export async function swarmFacts(
	world: World,
	node: SwarmNode,
	frame: Frame,
	goal: string,
	diff: string | undefined,
): Promise<VisitFacts> {
	const cwd = frameCwd(frame, world);
	const members = world.flow.members.get(node.id.value) ?? [];
	const mayWrite = members.some((m) => mayWriteWith(m.agent.tools));
	const readsTree = members.some((m) => m.agent.tools.length > 0);
	const ignoreTree = node.reuse?.value === "ignore-tree";
	const tree = readsTree && (!ignoreTree || mayWrite) ? await treeFor(world, cwd) : NO_TREE;
	const identity = identifies(world)
		? swarmIdentity({
				section: world.flow.prompts.get(node.id.value) ?? "",
				reads: readsOf(world, node.reads, frame, diff),
				members: members.map((m) => {
					const model = world.options.models.get(modelKey(world.prefix, node.id.value, m.agent.name));
					return {
						agent: agentPart(m.agent),
						...(model ? { model: model.spec ?? model.ref } : {}),
						...(world.options.toolSchemas ? { schemas: world.options.toolSchemas(m.agent.tools) } : {}),
					};
				}),
				settings: { definition: definitionOf(world.flow, node), counts: members.map((m) => m.count) },
				tree: ignoreTree ? NO_TREE : tree,
				task: goal,
			})
		: undefined;
	return {
		...(identity ? { identity } : {}),
		cwd,
		tree,
		mayWrite,
		...(node.reuse?.value === "never" ? { never: "`reuse: never`" } : {}),
		depends: dependsOf(world, node.reads),
	};
}

/** The facts of a check visit: the script as snapshotted, and the tree it judges. */
export async function checkFacts(world: World, frame: Frame, node: FlowNode, script: string): Promise<VisitFacts> {
	const cwd = frameCwd(frame, world);
	const tree = await treeFor(world, cwd);
	const content = world.options.scripts?.get(script);
	return {
		...(identifies(world)
			? { identity: checkIdentity({ script, ...(content !== undefined ? { content } : {}), tree }) }
			: {}),
		cwd,
		tree,
		// A script can write anything; whether it did is seen by hashing the tree after it.
		mayWrite: true,
		...(node.reuse?.value === "never" ? { never: "`reuse: never`" } : {}),
		depends: [],
	};
}

/** The facts of a question: the card as the person would see it. */
export function askFacts(
	world: World,
	node: FlowNode & { reads: readonly Address[] },
	frame: Frame,
	card: { reads: readonly { address: string; text: string }[] } & Record<string, unknown>,
): VisitFacts {
	const { reads, visit: _visit, ...question } = card;
	return {
		...(identifies(world) ? { identity: askIdentity({ question, reads }) } : {}),
		cwd: frameCwd(frame, world),
		tree: NO_TREE,
		mayWrite: false,
		...(node.reuse?.value === "never" ? { never: "`reuse: never`" } : {}),
		depends: dependsOf(world, node.reads),
	};
}

/** The identity of a block, a call or a commit: kept for the record, never reused. */
export function recordedIdentity(world: World, node: FlowNode, message?: string): VisitIdentity {
	return node.kind === "commit"
		? commitIdentity({ message: message ?? "" })
		: blockIdentity({ definition: definitionOf(world.flow, node) });
}

/** A node's frontmatter as written. */
function definitionOf(flow: CheckedFlow, node: FlowNode): string {
	return flow.source.text.slice(node.range.start.offset, node.range.end.offset);
}
