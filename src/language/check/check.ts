/**
 * Stage 3, check: the flow AST against the roster, the flows it calls and itself, before anything spawns.
 * Every fault at once, in file order, one per mistake: what refers to a refused node is not reported.
 *
 *   input:  Flow "look reads plan" (no node `plan`), roster without `scuot`
 *   output: faults [unknown-agent 7:12 "no agent `scuot`. Did you mean `scout`?", unknown-address 8:13 ...]
 *   or:     CheckedFlow, the only input the evaluator accepts
 */
import { answerTypes } from "./told-bounds.ts";
import type { Roster } from "../../agents/index.ts";
import { type Fault, fault, sortFaults } from "../../faults/index.ts";
import type { Range } from "../../text/index.ts";
import { allNodes, type Flow } from "../ast.ts";
import { computeBounds } from "./bounds.ts";
import { brand, type CheckedFlow } from "./checked.ts";
import { canWrite, checkCopies, checkMemory } from "./copies.ts";
import { Scope, type ScopePoints } from "./scope.ts";
import { checkSections } from "./sections.ts";
import { checkSequence } from "./sequence.ts";
import type { CalleeResolver, SkillResolver, Walk } from "./walk.ts";
import { explainDedents } from "./dedent.ts";
import type { LanguageKinds } from "../kind.ts";

/** What checking needs besides the flow. */
export interface CheckContext {
	/**
	 * The kind table (`LANGUAGE` of `src/kinds/language.ts`), handed in: each kind's rule calls back into
	 * this stage, so a checker that imported the table would tie the language and the kinds in a circle.
	 */
	kinds: LanguageKinds;
	roster: Roster;
	/** Ids the builder refused: reads of them are not reported again. */
	refused?: ReadonlySet<string>;
	/** Faults from earlier stages, merged into one sorted report. */
	earlier?: readonly Fault[];
	/** Finds and checks called flows; without it, `flow:` nodes are checked as far as they can be alone. */
	calls?: CalleeResolver;
	/** Flows being checked around this one (callers first), for cycles. */
	stack?: readonly string[];
	/** Finds skills named by `skills:`; without it every named skill is unknown. */
	skills?: SkillResolver;
}

/**
 * Checks a built flow; a CheckedFlow comes back only when there is no fault at all. The scopes the walk
 * passed through come back either way: an editor completes a flow that does not check yet.
 */
export function checkFlow(
	flow: Flow,
	context: CheckContext,
): { value?: CheckedFlow; faults: Fault[]; scopes: ScopePoints } {
	// A copy the checker adds to: what it refuses itself must be as silent as what the builder refused.
	const refused = new Set<string>(context.refused ?? []);
	const w: Walk = {
		flow,
		kinds: context.kinds,
		roster: context.roster,
		faults: [...(context.earlier ?? [])],
		agents: new Map(),
		amongAgents: new Map(),
		members: new Map(),
		types: new Map(),
		callees: new Map(),
		memory: [],
		nodeSkills: new Map(),
		...(context.calls ? { calls: context.calls } : {}),
		...(context.skills ? { skills: context.skills } : {}),
		stack: [...(context.stack ?? []), flow.name.value],
		refused,
		silent: false,
		resolutions: new Map(),
		points: { before: new Map(), after: new Map(), bodyStart: new Map(), bodyEnd: new Map() },
	};
	const nodes = allNodes(flow.nodes);
	const seen = new Map<string, (typeof nodes)[number]>();
	for (const node of nodes) {
		const first = seen.get(node.id.value);
		if (first) {
			w.faults.push({
				...dup(flow.file, node.id.range, node.path, node.id.value),
				related: [
					{
						message: "first defined here",
						file: flow.file,
						line: first.id.range.start.line,
						column: first.id.range.start.column,
					},
				],
			});
			// Which of the two a read means is unknowable; the duplicate is the one mistake to report.
			refused.add(node.id.value);
		} else seen.set(node.id.value, node);
	}
	const allIds = new Set([...nodes.map((n) => n.id.value), ...refused]);
	const root = new Scope({ file: flow.file, input: flow.input.value, allIds, refused });
	checkSequence(w, flow.nodes, root);
	const scopes: ScopePoints = { root, ...w.points };
	const prompts = checkSections(w, refused);
	checkCopies(w);
	checkMemory(w);
	if (w.faults.length > 0)
		return { faults: sortFaults(explainDedents(flow.file, flow.nodes, dedupe(w.faults))), scopes };
	const { total, nodes: bounds } = computeBounds(context.kinds, flow, (node) => w.callees.get(node.id.value)?.bound);
	const commits = nodes.some(
		(n) => n.kind === "commit" || (n.kind === "flow" && w.callees.get(n.id.value)?.commits === true),
	);
	return {
		value: brand(flow, {
			agents: w.agents,
			amongAgents: w.amongAgents,
			members: w.members,
			skills: w.nodeSkills,
			prompts,
			types: w.types,
			answerTypes: answerTypes(flow),
			callees: w.callees,
			bounds,
			bound: total,
			writes: canWrite(w, flow.nodes),
			commits,
			resolutions: w.resolutions,
			kinds: context.kinds,
		}),
		faults: [],
		scopes,
	};
}

function dup(file: string, range: Range, path: string, id: string): Fault {
	return fault("duplicate-id", file, range, path, `the id \`${id}\` is already used in this file`);
}

/** The silent first pass over a loop body never reports, but a fault seen twice is one mistake. */
function dedupe(faults: Fault[]): Fault[] {
	const seen = new Set<string>();
	return faults.filter((f) => {
		const key = `${f.code}:${f.offset}:${f.endOffset}:${f.message}`;
		if (seen.has(key)) return false;
		seen.add(key);
		return true;
	});
}
