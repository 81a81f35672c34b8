/**
 * The facts of a visit handed to `src/identity` (which alone decides the parts), and the tree each visit
 * saw. The tree is git's hash of the working tree with the run's own record and the flow's definitions
 * left out (a flow, agent or skill file is a part of its own). Hashing a tree costs a few git processes, so
 * a tree is kept per folder until something may have changed it: a tool that writes, a check script, a
 * copy that landed, a change written again. A person editing files while the run goes on is not seen
 * until then (docs/runs.md, "Reuse").
 *
 *   agentFacts(world, node, frame, …) → { identity: { key, parts: { section, "read:input", tools, tree, … } },
 *                                         cwd, tree: "4b825dc6…", mayWrite: false }
 */
import { join, resolve } from "node:path";
import { type AgentDef, projectRoot } from "../agents/index.ts";
import {
	type AgentPart,
	agentIdentity,
	askIdentity,
	blockIdentity,
	checkIdentity,
	commitIdentity,
	NO_TREE,
	swarmIdentity,
	type VisitIdentity,
} from "../identity/index.ts";
import type { AgentNode, Address, FlowNode, SwarmNode } from "../language/ast.ts";
import { allNodes } from "../language/ast.ts";
import type { CheckedFlow } from "../language/check/index.ts";
import type { HandoffPolicy } from "../handoff/index.ts";
import { checkpointTool, finishTool } from "./handoff-tools.ts";
import type { Ledger } from "./ledger.ts";
import { modelKey, type NodeModel } from "./models.ts";
import { submitTool, verdictTool } from "./tools.ts";
import { renderRead } from "./turn.ts";
import { type Frame, frameCwd } from "./frames.ts";
import type { World } from "./world.ts";

/** Tools that may change the tree: a visit that called one has its change recorded. */
export const WRITING_TOOLS: ReadonlySet<string> = new Set(["write", "edit", "bash", "subagent"]);

/** A visit's identity with what reuse needs beside it: the folder it works in and the tree it saw there. */
export interface VisitFacts {
	identity: VisitIdentity;
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

/** The run's trees: a generation bumped at every possible write, and each folder's tree at a generation. */
interface Trees {
	gen: number;
	byCwd: Map<string, { gen: number; tree: Promise<string> }>;
	leaveOut?: string[];
	/** Visits that called a tool that writes, by path. */
	wrote: Set<string>;
}

const TREES = new WeakMap<object, Trees>();

function treesOf(world: World): Trees {
	let t = TREES.get(world.options);
	if (!t) TREES.set(world.options, (t = { gen: 0, byCwd: new Map(), wrote: new Set() }));
	return t;
}

/** Something may have changed the tree: every folder's tree is hashed again when next asked. */
export function treeChanged(world: World): void {
	treesOf(world).gen++;
}

/** A tool call seen in the run's events: a tool that writes marks its visit and the tree. */
export function noteToolCall(world: World, path: string, tool: string): void {
	if (!WRITING_TOOLS.has(tool)) return;
	const t = treesOf(world);
	t.wrote.add(path);
	t.gen++;
}

/** Whether the visit called a tool that writes (forgotten once asked: a later visit of the path starts clean). */
export function takeWrote(world: World, path: string): boolean {
	return treesOf(world).wrote.delete(path);
}

/** The tree `cwd` is known to hold now (after a change written again, or in a plan). */
export function treeIs(world: World, cwd: string, tree: string): void {
	const t = treesOf(world);
	t.gen++;
	t.byCwd.set(cwd, { gen: t.gen, tree: Promise.resolve(tree) });
}

/** The tree of `cwd` now, or {@link NO_TREE} outside a repository or without a git port that hashes. */
export function treeFor(world: World, cwd: string): Promise<string> {
	const git = world.options.git;
	if (!git?.tree) return Promise.resolve(NO_TREE);
	const t = treesOf(world);
	const known = t.byCwd.get(cwd);
	if (known && known.gen === t.gen) return known.tree;
	t.leaveOut ??= leaveOutOf(world);
	const tree = git.tree(cwd, t.leaveOut).then((r) => (r.ok ? r.tree : NO_TREE));
	t.byCwd.set(cwd, { gen: t.gen, tree });
	return tree;
}

/** What the tree leaves out: the run's record, the definition folders, and every file the flow was built from. */
function leaveOutOf(world: World): string[] {
	const root = projectRoot(world.options.cwd);
	const out = [
		...(world.options.leaveOut ?? []),
		join(root, ".pi", "runs"),
		...["flows", "agents", "chains", "skills"].map((k) => join(root, ".pi", k)),
		join(root, ".claude", "agents"),
		// A check script is a part of its check's identity, as a flow file is of its visits'.
		...[...(world.options.scripts?.keys() ?? [])].map((p) => resolve(root, p)),
	];
	const seen = new Set<CheckedFlow>();
	const walk = (f: CheckedFlow) => {
		if (seen.has(f)) return;
		seen.add(f);
		out.push(f.file);
		for (const a of f.agents.values()) out.push(a.file);
		for (const m of f.amongAgents.values()) for (const a of m.values()) out.push(a.file);
		for (const m of f.members.values()) for (const x of m) out.push(x.agent.file);
		for (const list of f.skills.values()) for (const k of list) out.push(k.dir);
		for (const a of [...f.agents.values()]) for (const k of a.skills ?? []) if (k.skill) out.push(k.skill.dir);
		for (const c of f.callees.values()) walk(c);
	};
	walk(rootFlow(world));
	return out;
}

/** The flow the run was started with: the world that owns `options` (a callee's world sits on top of it). */
function rootFlow(world: World): CheckedFlow {
	for (let w: World | null = world; w; w = Object.getPrototypeOf(w) as World | null)
		if (Object.hasOwn(w, "options")) return w.flow;
	return world.flow;
}

/** The agent file as the identity sees it. */
function agentPart(agent: AgentDef): AgentPart {
	return {
		name: agent.name,
		file: agent.file,
		prompt: agent.prompt,
		tools: agent.tools,
		skills: (agent.skills ?? []).map((k) => ({ name: k.name, ...(k.skill ? { text: k.skill.text } : {}) })),
		...(agent.mustCallTool !== undefined ? { mustCallTool: agent.mustCallTool } : {}),
		...(agent.lifetime ? { lifetime: agent.lifetime } : {}),
	};
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
	shared?: string;
	policy: HandoffPolicy;
	threshold: number;
	maxContinuations: number;
}

/** The facts of an agent visit. */
export async function agentFacts(
	world: World,
	node: AgentNode,
	frame: Frame,
	plan: AgentPlan,
	diff: string | undefined,
): Promise<VisitFacts> {
	const { agent } = plan;
	const cwd = frameCwd(frame, world);
	const tools = node.tools ? node.tools.map((t) => t.value) : agent.tools;
	const mayWrite = tools.some((t) => WRITING_TOOLS.has(t));
	const ignoreTree = node.reuse?.value === "ignore-tree";
	const tree = tools.length && (!ignoreTree || mayWrite) ? await treeFor(world, cwd) : NO_TREE;
	const typed = world.flow.answerTypes.get(node.id.value) ?? node.output?.value;
	const blank = { refusals: 0 };
	const answerTools = [
		...(typed ? [submitTool(typed, blank)] : []),
		...(plan.ledger ? [verdictTool(plan.ledger, node.path, { at: "" }, blank)] : []),
		...(plan.policy.enabled ? [finishTool({}), checkpointTool({}, plan.policy.checkpointReset)] : []),
	].map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
	const identity = agentIdentity({
		agent: agentPart(agent),
		...(node.tools ? { nodeTools: tools } : {}),
		...(world.options.toolSchemas ? { toolSchemas: world.options.toolSchemas(tools) } : {}),
		answerTools,
		nodeSkills: (world.flow.skills.get(node.id.value) ?? []).map((k) => ({ name: k.name, text: k.text })),
		...(plan.model ? { model: plan.model.spec ?? plan.model.ref } : {}),
		thinking: node.thinking?.value ?? agent.thinking ?? "default",
		section: world.flow.prompts.get(node.id.value) ?? "",
		reads: readsOf(world, node.reads, frame, diff),
		...(plan.told ? { closing: plan.told } : {}),
		settings: {
			handoff: plan.policy.enabled
				? { watermark: plan.threshold, continuations: plan.maxContinuations, resets: plan.policy.maxResets }
				: "off",
		},
		tree: ignoreTree ? NO_TREE : tree,
		task: plan.task,
	});
	const never =
		node.reuse?.value === "never"
			? "`reuse: never`"
			: plan.shared
				? `it shares a subagent (${plan.shared}) whose conversation a reused visit would not carry`
				: undefined;
	const agentFrom = node.agentFrom ? [node.agentFrom] : [];
	return {
		identity,
		cwd,
		tree,
		mayWrite,
		...(never ? { never } : {}),
		depends: dependsOf(world, [...node.reads, ...agentFrom]),
	};
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
	const mayWrite = members.some((m) => m.agent.tools.some((t) => WRITING_TOOLS.has(t)));
	const readsTree = members.some((m) => m.agent.tools.length > 0);
	const ignoreTree = node.reuse?.value === "ignore-tree";
	const tree = readsTree && (!ignoreTree || mayWrite) ? await treeFor(world, cwd) : NO_TREE;
	const identity = swarmIdentity({
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
	});
	return {
		identity,
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
		identity: checkIdentity({ script, ...(content !== undefined ? { content } : {}), tree }),
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
		identity: askIdentity({ question, reads }),
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
