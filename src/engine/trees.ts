/**
 * The tree each visit saw, as the evaluator keeps it for a run: git's hash of the working tree (the git
 * port's `tree`) with the run's own record and the flow's definitions left out (a flow, agent, skill or
 * check script file is a part of a visit's identity of its own). Hashing is a few git processes, so a
 * folder's tree is kept until something may have changed it: a tool that writes, a check script, a copy
 * that landed, a change written again. A person editing files while the run goes on is not seen until then
 * (docs/runs.md, "Reuse").
 *
 *   treeFor(world, cwd) → "4b825dc6…"   (NO_TREE outside a repository, or with a port that does not hash)
 */
import { join, resolve } from "node:path";
import { projectRoot, WRITING_TOOLS } from "../agents/index.ts";
import { NO_TREE } from "../identity/index.ts";
import type { CheckedFlow } from "../language/check/index.ts";
import type { World } from "./world.ts";

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
	const wrote = TREES.get(world.options)?.wrote;
	return wrote !== undefined && wrote.size > 0 && wrote.delete(path);
}

/** The tree `cwd` is known to hold now (after a change written again, or in a plan). */
export function treeIs(world: World, cwd: string, tree: string): void {
	const t = treesOf(world);
	t.gen++;
	t.byCwd.set(cwd, { gen: t.gen, tree: Promise.resolve(tree) });
}

/**
 * Whether the run's git port hashes trees: without it every {@link treeFor} is {@link NO_TREE}, which a
 * visit's hot path takes at once instead of awaiting it.
 */
export function hashesTrees(world: World): boolean {
	return world.options.git?.tree !== undefined;
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
