/**
 * Stage 3, check: the flow AST against the roster and itself, before anything spawns. Every fault at
 * once, in file order, one per mistake: what refers to a node that was already refused is not reported.
 *
 *   input:  Flow "scout reads plan" (no node `plan`), roster without `scuot`
 *   output: faults [unknown-agent 4:12 "no agent `scuot`. Did you mean `scout`?", unknown-address ...]
 *   or:     CheckedFlow, the only input the evaluator accepts
 */
import type { AgentDef, Roster } from "../../agents/index.ts";
import { didYouMean, type Fault, fault, nearest, sortFaults } from "../../faults/index.ts";
import type { Range } from "../../text/index.ts";
import type { Address, AgentNode, Flow } from "../ast.ts";
import { brand, type CheckedFlow } from "./checked.ts";

/** What checking needs besides the flow. */
export interface CheckContext {
	roster: Roster;
	/** Ids the builder refused: reads of them are not reported again. */
	refused?: ReadonlySet<string>;
	/** Faults from earlier stages, merged into one sorted report. */
	earlier?: readonly Fault[];
}

/** Checks a built flow; a CheckedFlow comes back only when there is no fault at all. */
export function checkFlow(flow: Flow, context: CheckContext): { value?: CheckedFlow; faults: Fault[] } {
	const faults: Fault[] = [...(context.earlier ?? [])];
	const report = (code: Fault["code"], range: Range, path: string, message: string, details = {}) =>
		faults.push(fault(code, flow.file, range, path, message, details));
	const refused = context.refused ?? new Set<string>();
	const agents = new Map<string, AgentDef>();
	const seen = new Map<string, AgentNode>();
	const ended = new Set<string>();
	const allIds = new Set([...flow.nodes.map((n) => n.id.value), ...refused]);

	for (const node of flow.nodes) {
		const id = node.id.value;
		const first = seen.get(id);
		if (first) {
			report("duplicate-id", node.id.range, node.path, `the id \`${id}\` is already used in this file`, {
				related: [{ message: "first defined here", file: flow.file, line: first.id.range.start.line, column: first.id.range.start.column }],
			});
		} else seen.set(id, node);
		const entry = context.roster.get(node.agent.value);
		if (!entry) {
			const near = nearest(node.agent.value, context.roster.names());
			report("unknown-agent", node.agent.range, `${node.path}.agent`, `no agent \`${node.agent.value}\`.${didYouMean(near)}`, {
				expected: near ? [near] : [],
			});
		} else if (entry.kind === "broken") {
			report("broken-agent", node.agent.range, `${node.path}.agent`, `the agent \`${entry.name}\` (${entry.file}) is broken: ${entry.cause}`);
		} else agents.set(id, entry);
		for (const read of node.reads) checkRead(read, node, ended, allIds, refused, report);
		ended.add(id);
	}
	const prompts = checkSections(flow, refused, report);
	if (faults.length > 0) return { faults: sortFaults(faults) };
	return { value: brand(flow, agents, prompts), faults: [] };
}

type Report = (code: Fault["code"], range: Range, path: string, message: string, details?: object) => void;

/** Fields an agent node's result has: `ok`, `error` (`kind`, `message`), and `output` (its text). */
const RESULT_FIELDS = ["output", "ok", "error"];
const ERROR_FIELDS = ["kind", "message"];

function checkRead(
	read: Address,
	node: AgentNode,
	ended: ReadonlySet<string>,
	allIds: ReadonlySet<string>,
	refused: ReadonlySet<string>,
	report: Report,
): void {
	const path = `${node.path}.reads`;
	if (read.root === "input") {
		if (read.fields.length > 0) report("invalid-address", read.range, path, `\`${read.text}\` reads into \`input\`, which is text`);
		return;
	}
	if (refused.has(read.root)) return;
	if (!ended.has(read.root)) {
		if (allIds.has(read.root)) {
			const why = read.root === node.id.value ? "is this node itself" : "has not ended before this node";
			report("unknown-address", read.range, path, `\`${read.root}\` ${why}; a node reads only what ran before it`);
		} else {
			const near = nearest(read.root, ["input", ...ended]);
			report("unknown-address", read.range, path, `\`${read.root}\` names nothing readable here.${didYouMean(near)}`, {
				expected: near ? [near] : [],
			});
		}
		return;
	}
	const [field, ...rest] = read.fields;
	if (field === undefined) return;
	if (!RESULT_FIELDS.includes(field)) {
		const near = nearest(field, RESULT_FIELDS);
		report("unknown-address", read.range, path, `a node's result has no field \`${field}\`.${didYouMean(near)}`, {
			expected: near ? [near] : [],
		});
		return;
	}
	if (field === "error" && rest.length > 0 && (rest.length > 1 || !ERROR_FIELDS.includes(rest[0]))) {
		report("unknown-address", read.range, path, `an error has only \`kind\` and \`message\``);
		return;
	}
	if (field !== "error" && rest.length > 0) {
		report("invalid-address", read.range, path, `\`${read.text}\` reads into \`${read.root}.${field}\`, which has no fields (untyped text)`);
	}
}

function checkSections(flow: Flow, refused: ReadonlySet<string>, report: Report): Map<string, string> {
	const prompts = new Map<string, string>();
	const agentIds = new Set(flow.nodes.map((n) => n.id.value));
	const seen = new Map<string, Range>();
	if (flow.preamble) report("body-preamble", flow.preamble, "", "text before the first `## <id>` section belongs in `description:` or a YAML comment");
	for (const section of flow.sections) {
		const first = seen.get(section.id);
		if (first) {
			report("section-duplicate", section.headingRange, section.id, `a second \`## ${section.id}\` section`, {
				related: [{ message: "first section", file: flow.file, line: first.start.line, column: first.start.column }],
			});
			continue;
		}
		seen.set(section.id, section.headingRange);
		if (refused.has(section.id)) continue;
		if (!agentIds.has(section.id)) {
			const near = nearest(section.id, agentIds);
			report("section-unknown", section.headingRange, section.id, `the section \`## ${section.id}\` matches no node.${didYouMean(near)}`, {
				expected: near ? [near] : [],
			});
			continue;
		}
		if (!section.text) {
			report("section-empty", section.headingRange, section.id, `the section \`## ${section.id}\` has no text`);
			continue;
		}
		prompts.set(section.id, section.text);
	}
	for (const node of flow.nodes) {
		if (!seen.has(node.id.value)) {
			report("section-missing", node.id.range, node.path, `the agent node \`${node.id.value}\` has no \`## ${node.id.value}\` section`, {
				hint: "Add one saying what the turn is asked to do.",
			});
		}
	}
	return prompts;
}
