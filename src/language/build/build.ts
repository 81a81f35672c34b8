/**
 * Stage 2, build: a read flow file → the typed flow AST, checking the shape of every key (names, kinds,
 * value types, the sub-languages) but nothing that needs the roster or other nodes; that is the checker's.
 *
 *   input:  FlowFile of "name: x / nodes: [{ id: look, agent: scout, reads: [input] }]"
 *   output: Flow { name: x, nodes: [AgentNode look reads input] }, faults []
 *
 * The flow comes back even with faults, holding the nodes that did build, so the checker can still report
 * every other mistake at once; `refused` lists ids whose node was refused, so nothing that refers to one is
 * reported again.
 */
import { isScalar, type Scalar } from "yaml";
import { type Fault, sortFaults } from "../../faults/index.ts";
import { scalarBase } from "../syntax/index.ts";
import type { BudgetDecl, ChainBudgetDecl, Flow, FlowNode, FlowSource, Located, TransportDecl } from "../ast.ts";
import type { FlowFile } from "../read/index.ts";
import { STRING, type Type } from "../types/index.ts";
import { readHandoff } from "./reads.ts";
import { buildContext, type Entry } from "./context.ts";
import { readSequence } from "./node.ts";
import { FLOW_KEYS } from "./words.ts";
import { describe } from "./yaml-nodes.ts";
import { STOPPED_READING } from "../../limits/index.ts";
import type { LanguageKinds } from "../kind.ts";

/** What the builder gives back. */
export interface BuildResult {
	value?: Flow;
	faults: Fault[];
	/** Ids of nodes refused here; reads of them are not reported again. */
	refused: ReadonlySet<string>;
}

/**
 * Turns a `chain:` string into nodes; supplied by the chain module so this stage does not depend on it.
 * `base` is the absolute offset of the string in the file when its source is its value (exact columns).
 */
export type ChainExpander = (
	chain: Located<string>,
	file: FlowFile,
	base: number | undefined,
) => { nodes: FlowNode[]; sections: Flow["sections"]; faults: Fault[]; budget?: ChainBudgetDecl };

/**
 * Builds the flow AST; `expectedName` is the file name without `.md` (undefined skips the name rule).
 * `kinds` is the kind table (`LANGUAGE` of `src/kinds/language.ts`), handed in: each kind's reader calls
 * back into this stage, so a builder that imported the table would tie the language and the kinds in a circle.
 */
export function buildFlow(
	kinds: LanguageKinds,
	file: FlowFile,
	expectedName?: string,
	expandChain?: ChainExpander,
): BuildResult {
	const ctx = buildContext(file, kinds);
	const refused = new Set<string>();
	const top = ctx.entries(file.yaml.contents as never);
	if (!top) {
		ctx.report(
			"not-a-flow",
			file.frontmatterRange,
			"",
			`the frontmatter is ${describe(file.yaml.contents as never)}, not a mapping of flow keys`,
		);
		return { faults: ctx.faults, refused };
	}
	const keys = new Map(top.map((e) => [e.key, e]));
	const steps = keys.get("steps");
	if (steps && !keys.has("nodes") && !keys.has("chain")) {
		// combo's old linear pipeline: one fault that says so and how to convert, not five generic ones.
		ctx.report(
			"pipeline-format-removed",
			steps.keyRange,
			"steps",
			"this is combo's old `steps:` pipeline, a format that was removed; rewrite it as a flow",
			{
				hint: "Rename `steps:` to `nodes:`, give each step an `id:` and `reads:` of the step before it (the first reads `input`), add `input: string`, and move each step's `task:` into a `## <id>` section below the frontmatter (docs/flows.md, From combo's pipelines).",
			},
		);
		return { faults: ctx.faults, refused };
	}
	const peer = peerFile(keys, file);
	if (peer) {
		ctx.report("peer-format", file.frontmatterRange, "", peer.message, { hint: peer.hint });
		return { faults: ctx.faults, refused };
	}
	ctx.unknownKeys(top, FLOW_KEYS, "", "a flow");
	const at = file.table.range(file.yamlBase, file.yamlBase);
	for (const key of ["name", "description", "input"])
		if (!keys.has(key)) ctx.report("missing-key", at, key, `a flow needs \`${key}:\``);
	const nodesEntry = keys.get("nodes");
	const chainEntry = keys.get("chain");
	if (!nodesEntry && !chainEntry) ctx.report("missing-key", at, "nodes", "a flow needs `nodes:` (or `chain:`)");
	if (nodesEntry && chainEntry)
		ctx.report(
			"twin-keys",
			chainEntry.keyRange,
			"chain",
			"`nodes` and `chain` are two ways to write the same thing; write one",
		);
	const name = keys.has("name") ? ctx.str(keys.get("name") as Entry, "name", "the flow's name") : undefined;
	if (name && expectedName !== undefined && name.value !== expectedName) {
		ctx.report(
			"name-mismatch",
			name.range,
			"name",
			`\`name: ${name.value}\` differs from the file name \`${expectedName}\``,
			{
				hint: "A flow is found by its file name, so the two must agree.",
			},
		);
	}
	if (name?.value === "resume")
		ctx.report("reserved-name", name.range, "name", "`resume` is reserved: `/run resume` takes that word");
	const description = keys.has("description")
		? ctx.str(keys.get("description") as Entry, "description", "one line")
		: undefined;
	const inputEntry = keys.get("input");
	const input: Located<Type> | undefined = inputEntry ? ctx.type(inputEntry, "input") : undefined;
	// Without a type that read, `input` stands in as a string; its fields must not be refused a second time.
	if (!input) refused.add("input");
	const model = keys.has("model")
		? ctx.str(keys.get("model") as Entry, "model", "a model like `provider/id`")
		: undefined;
	const timeout = keys.has("timeout") ? ctx.duration(keys.get("timeout") as Entry, "timeout") : undefined;
	const budget = keys.has("budget") ? readBudget(ctx, keys.get("budget") as Entry) : undefined;
	const handoff = keys.has("handoff") ? readHandoff(ctx, keys.get("handoff") as Entry, "handoff") : undefined;
	const transport = keys.has("transport") ? readTransport(ctx, keys.get("transport") as Entry) : undefined;
	let nodes: FlowNode[] = [];
	let sections = file.sections;
	let chain: Located<string> | undefined;
	let chainBudget: ChainBudgetDecl | undefined;
	if (nodesEntry) nodes = readSequence(ctx, nodesEntry.value, nodesEntry.range, "", refused, "`nodes`");
	else if (chainEntry) {
		chain = ctx.str(chainEntry, "chain", "a chain like `@scout -> @synthesiser`");
		if (chain && !expandChain)
			ctx.report("key-type", chain.range, "chain", "this reader cannot expand `chain:`; run it with pi-flows");
		if (chain && expandChain) {
			const scalar = chainEntry.value;
			const base = isScalar(scalar) ? scalarBase(scalar as Scalar<string>, file.text, file.yamlBase) : undefined;
			const expanded = expandChain(chain, file, base);
			ctx.faults.push(...expanded.faults);
			nodes = expanded.nodes;
			sections = [...expanded.sections, ...file.sections];
			chainBudget = expanded.budget;
			const warning = chainBudget?.warning;
			const limit = budget?.tokens;
			// Both budgets bind (the smaller limit wins), so a warning above the flow's own limit would never fire.
			if (warning && limit && warning.value > limit.value) {
				const message =
					`the chain's budget warning (${warning.value} tokens) is above the flow's \`budget: tokens\` ` +
					`(${limit.value}), so it would never fire`;
				const { line, column } = limit.range.start;
				ctx.report("chain-flag-value", warning.range, "chain.budget-warning", message, {
					hint: "Warn at or below the flow's token budget.",
					expected: [String(limit.value)],
					related: [{ message: "The flow's token budget is here.", file: file.file, line, column }],
				});
			}
		}
	}
	// Past a bound the rest of the file was not read: judging it (its sections, its reads) would only cascade.
	if (ctx.faults.some((f) => STOPPED_READING.has(f.code))) return { faults: sortFaults(ctx.faults), refused };
	return {
		value: {
			file: file.file,
			name: name ?? { value: expectedName ?? "", range: at },
			description: description ?? { value: "", range: at },
			input: input ?? { value: STRING, range: at },
			...(model ? { model } : {}),
			...(timeout ? { timeout } : {}),
			...(budget ? { budget } : {}),
			...(handoff ? { handoff } : {}),
			...(transport ? { transport } : {}),
			...(chain ? { chain } : {}),
			...(chainBudget ? { chainBudget } : {}),
			nodes,
			sections,
			...(file.preamble ? { preamble: file.preamble } : {}),
			source: withoutYaml(file),
		},
		faults: sortFaults(ctx.faults),
		refused,
	};
}

function readTransport(ctx: ReturnType<typeof buildContext>, entry: Entry): TransportDecl | undefined {
	const entries = ctx.entries(entry.value);
	if (!entries) {
		ctx.report(
			"key-type",
			entry.range,
			"transport",
			"`transport` is a mapping of `attempts`, `wait`, `stall` and/or `adaptive`",
		);
		return undefined;
	}
	ctx.unknownKeys(entries, ["attempts", "wait", "stall", "adaptive"], "transport", "`transport`");
	const out: TransportDecl = { range: entry.range };
	for (const e of entries) {
		if (e.key === "attempts") {
			const v = ctx.int(e, "transport.attempts", 1);
			if (v) out.attempts = v;
		} else if (e.key === "wait" || e.key === "stall") {
			const v = ctx.duration(e, `transport.${e.key}`);
			if (v) out[e.key] = v;
		} else if (e.key === "adaptive") {
			const v = ctx.bool(e, "transport.adaptive");
			if (v) out.adaptive = v;
		}
	}
	return out;
}

/** Keys an agent file has and a flow has not: an agent file in a flows folder says so with one of them. */
const AGENT_ONLY = [
	"tools",
	"thinking",
	"lifetime",
	"mustCallTool",
	"openInHerdr",
	"color",
	"permissionMode",
	"disallowedTools",
];

/**
 * A peer's file in a flows folder, told by its keys: an agent (pi, combo, Claude Code), or a pi-subagents
 * chain saved without its `.chain.md` suffix. One fault naming the format beats five about missing keys.
 */
function peerFile(keys: ReadonlyMap<string, Entry>, file: FlowFile): { message: string; hint: string } | undefined {
	if (keys.has("nodes") || keys.has("chain") || keys.has("input")) return undefined;
	if (AGENT_ONLY.some((k) => keys.has(k))) {
		return {
			message: "this is an agent file (pi's, combo's or Claude Code's format), not a flow",
			hint: "Move it to an agents folder (`.pi/agents/`, `<agentDir>/agents/` or `.claude/agents/`), and name it in a flow's node as `agent:`.",
		};
	}
	if (
		keys.has("name") &&
		keys.has("description") &&
		[...keys.keys()].every((k) => ["name", "description", "package"].includes(k)) &&
		file.sections.length > 0
	) {
		return {
			message: "this looks like a pi-subagents chain (`## <agent>` steps under a name and a description), not a flow",
			hint: "Rename the file to `<name>.chain.md` to run it as a chain, or add `input:` and `nodes:` to make it a flow.",
		};
	}
	return undefined;
}

function readBudget(ctx: ReturnType<typeof buildContext>, entry: Entry): BudgetDecl | undefined {
	const entries = ctx.entries(entry.value);
	if (!entries) {
		ctx.report("key-type", entry.range, "budget", "`budget` is a mapping of `tokens`, `cost` and/or `turns`");
		return undefined;
	}
	ctx.unknownKeys(entries, ["tokens", "cost", "turns"], "budget", "`budget`");
	const budget: BudgetDecl = { range: entry.range };
	for (const e of entries) {
		if (e.key === "tokens" || e.key === "turns") {
			const v = ctx.int(e, `budget.${e.key}`, 1);
			if (v) budget[e.key] = v;
		} else if (e.key === "cost") {
			const v = ctx.num(e, "budget.cost", 0, Number.MAX_SAFE_INTEGER);
			if (v) budget.cost = v;
		}
	}
	return budget;
}

/** The file without its YAML tree (`Flow.source`). */
function withoutYaml(file: FlowFile): FlowSource {
	const { yaml: _yaml, ...source } = file;
	return source;
}
