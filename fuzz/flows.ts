/**
 * Whole flow files with every node kind: nodes as YAML objects over a scope of the ids declared so far
 * and what each outputs (so reads, conditions, commits and `-from` keys mostly name something readable
 * of the right type and the checker is reached, not just the reader), printed in a random YAML style,
 * with one section per agent and swarm. `slips` is the chance of each value being wrong in a way people
 * get it wrong.
 */
import { parse, stringify } from "yaml";
import {
	AGENTS,
	address,
	chainText,
	condition,
	duration,
	prose,
	READERS,
	RESERVED,
	TYPED,
	typeText,
	TYPOS,
	yamlOptions,
} from "./pieces.ts";
import type { Rng } from "./rng.ts";
import { KIND_KEYS, type KindKeyName } from "../src/kinds/language.ts";

/** Every kind of node, by its kind key: the language's registry, so a kind the language gains is generated. */
export const NODE_KINDS = KIND_KEYS;
export type NodeKind = KindKeyName;

/** How often each kind key is picked below the depth limit; a kind key missing here does not compile. */
const WEIGHTS: Record<NodeKind, number> = {
	agent: 6,
	"agent-from": 1,
	choice: 2,
	parallel: 2,
	map: 1,
	"map-from": 2,
	loop: 2,
	check: 1,
	commit: 1,
	ask: 1,
	"ask-from": 1,
	flow: 1,
	swarm: 1,
	wait: 1,
	"wait-from": 1,
};

interface Gen {
	r: Rng;
	count: number;
	budget: number;
	slips: number;
	/** Ids that take a section (agents and swarms). */
	sections: string[];
	kinds: Set<NodeKind>;
	/** Kind keys never picked (fuzz/compare.ts holds a tree against one without them). */
	exclude: readonly string[];
}

/**
 * What a sequence sees: ids that ended before it, split by what they output (an agent's text, the
 * TYPED object, anything else), and the blocks around it.
 */
interface Scope {
	visible: string[];
	typed: string[];
	texts: string[];
	inMap: boolean;
	/** Inside a block whose branches run at once: no commit, readers only. */
	concurrent: boolean;
	loops: string[];
	blocks: string[];
	ledgers: string[];
}

type Yaml = Record<string, unknown>;

/** One node made: its YAML, its id, and what it outputs. */
interface Made {
	node: Yaml;
	id: string;
	output: "typed" | "text" | "other";
}

/** A type as the YAML it is written as (a mapping, a list, a scalar), so the printer does not quote it. */
function typeValue(text: string): unknown {
	try {
		return parse(text);
	} catch {
		return text;
	}
}

function slip<T>(g: Gen, good: () => T, bad: () => T): T {
	return g.r.chance(g.slips) ? bad() : good();
}

function freshId(g: Gen): string {
	const id = `n${++g.count}`;
	return slip(
		g,
		() => id,
		() => g.r.pick([...RESERVED, ...TYPOS, "a-b", "9x", "n1", "N1", "n_1", "$(touch pwned)", ""]),
	);
}

/** Everything a read may name here, with the ones only a slip would pick. */
function readable(g: Gen, s: Scope): { good: string[]; all: string[] } {
	const good = [...s.visible, "input", ...(s.inMap ? ["item"] : [])];
	const all = [...good, "diff", "item.task", "item.worker"];
	for (const l of s.loops)
		all.push(`${l}.carry`, `${l}.ledger`, `${l}.previous.${g.r.pick(s.visible.length ? s.visible : ["x"])}`);
	for (const t of s.typed) good.push(`${t}.output.s`, `${t}.output.items`, `${t}.ok`);
	return { good, all };
}

function reads(g: Gen, s: Scope): string[] {
	const { good, all } = readable(g, s);
	return Array.from({ length: g.r.int(4) }, () =>
		slip(
			g,
			() => g.r.pick(good),
			() => (g.r.chance(0.5) ? g.r.pick(all) : address(g.r, all)),
		),
	);
}

/** A condition over typed outputs: reads what can be compared, or anything at all on a slip. */
function cond(g: Gen, typed: readonly string[], visible: readonly string[]): string {
	if (!g.r.chance(g.slips) && typed.length) {
		const id = g.r.pick(typed);
		return g.r.pick([
			`${id}.output.ok`,
			`${id}.output.s == "approved"`,
			`${id}.output.n > 2 && !${id}.output.ok`,
			`size(${id}.output.items) == 0 || ${id}.output.n * 2 >= 10`,
			`${id}.output.items.exists(t, t.startsWith("fix"))`,
			`${id}.ok`,
			`has(${id}.output.notes)`,
			`${id}.output.s in ["approved", "rejected"]`,
			`${id}.output.n % 3 + 1 < 2 || (${id}.output.ok && ${id}.output.who == "scout")`,
		]);
	}
	if (!g.r.chance(g.slips)) return g.r.pick(["true", "false", "1 < 2", '"a".contains("a")']);
	return condition(g.r, [...visible, ...typed], 3);
}

function agentNode(g: Gen, id: string, s: Scope): Made {
	const r = g.r;
	const node: Yaml = {
		id,
		agent: slip(
			g,
			() => r.pick(READERS),
			() => r.pick([...AGENTS, ...TYPOS]),
		),
	};
	const rd = reads(g, s);
	if (rd.length) node.reads = rd;
	const typed = r.chance(0.5);
	if (typed)
		node.output = typeValue(
			slip(
				g,
				() => TYPED,
				() => typeText(r),
			),
		);
	else if (r.chance(g.slips)) node.output = typeValue(typeText(r));
	if (r.chance(0.2))
		node.retry = slip(
			g,
			() => r.int(3),
			() => r.pick([-1, 1.5, "two", null]),
		);
	if (r.chance(0.2))
		node.timeout = slip(
			g,
			() => r.pick(["90s", "10m", "1h30m", "2h15m30s", "500ms", "1d"]),
			() => duration(r),
		);
	if (r.chance(0.1))
		node.model = slip(
			g,
			() => "anthropic/claude-sonnet-4-5",
			() => r.pick(["x", "a/b:loud", ""]),
		);
	if (r.chance(0.1))
		node.thinking = slip(
			g,
			() => r.pick(["off", "low", "high", "xhigh"]),
			() => r.pick(["loud", 1, ""]),
		);
	if (r.chance(0.1))
		node.tools = slip(
			g,
			() => ["read"],
			() => r.pick([["bash"], "read", [], ["nope"]]),
		);
	if (r.chance(g.slips)) node.memory = r.pick([...s.blocks, "flow", "nowhere"]);
	if (r.chance(0.1) && s.ledgers.length && !typed) node.verdict = r.pick(s.ledgers);
	if (r.chance(0.05))
		node.handoff = slip<unknown>(
			g,
			() => ({ watermark: 0.8, continuations: 2 }),
			() => ({ watermark: r.pick<unknown>([0, 2, "x"]), extra: 1 }),
		);
	if (r.chance(g.slips / 2)) node.skills = r.pick([["review"], "x", []]);
	g.sections.push(id);
	return { node, id, output: node.verdict ? "other" : typed ? "typed" : "text" };
}

function body(g: Gen, s: Scope, depth: number): { nodes: Yaml[]; typed: string[] } {
	return sequence(g, s, depth + 1, g.r.between(1, 3));
}

/** The end of the generators' switch: a kind key with no generator is a compile error there. */
function unknownKindKey(kind: never): never {
	throw new Error(`no generator for the kind key ${String(kind)}`);
}

function pickKind(g: Gen, depth: number): NodeKind {
	const r = g.r;
	if (depth >= 3 || g.count >= g.budget)
		return r.pick([
			"agent",
			"agent",
			"agent",
			"check",
			"ask",
			"commit",
			"agent-from",
			"ask-from",
			"flow",
			"swarm",
		] as const);
	return r.weighted<NodeKind>(NODE_KINDS.filter((k) => !g.exclude.includes(k)).map((k) => [WEIGHTS[k], k] as const));
}

function node(g: Gen, s: Scope, depth: number): Made {
	const r = g.r;
	let kind = pickKind(g, depth);
	// Without what these read, the well-formed version cannot be written: an agent stands in.
	if (!g.r.chance(g.slips)) {
		if ((kind === "agent-from" || kind === "ask-from" || kind === "map-from") && !s.typed.length) kind = "agent";
		if (kind === "wait-from" && !s.typed.length) kind = "wait";
		if (kind === "commit" && (s.concurrent || !s.texts.length)) kind = "agent";
	}
	const id = freshId(g);
	g.kinds.add(kind);
	const names = readable(g, s).all;
	const block = (extra: Partial<Scope>): Scope => ({ ...s, blocks: [...s.blocks, id], ...extra });
	let out: Yaml;
	let output: Made["output"] = "other";
	switch (kind) {
		case "agent": {
			const a = agentNode(g, id, s);
			out = a.node;
			output = a.output;
			break;
		}
		case "agent-from":
			out = {
				id,
				"agent-from": slip(
					g,
					() => `${r.pick(s.typed)}.output.who`,
					() => address(r, names),
				),
				among: slip(
					g,
					() => ["scout", "reviewer"],
					() => r.pick([["scout"], "scout", ["scout", "nobody"]]),
				),
			};
			g.sections.push(id);
			output = "text";
			break;
		case "choice":
			out = {
				id,
				choice: Array.from({ length: r.between(1, 3) }, (_, i) => ({
					...(r.chance(0.5)
						? {
								name: slip(
									g,
									() => `case${i}`,
									() => r.pick(["a b", "", "default"]),
								),
							}
						: {}),
					when: cond(g, s.typed, s.visible),
					do: body(g, block({}), depth).nodes,
				})),
				default: r.chance(0.7) ? [] : body(g, block({}), depth).nodes,
			};
			break;
		case "parallel": {
			const branches: Yaml = {};
			const n = slip(
				g,
				() => r.between(2, 3),
				() => r.int(2),
			);
			for (let i = 0; i < n; i++)
				branches[
					slip(
						g,
						() => `b${i}`,
						() => r.pick(["a-b", "if", "b0"]),
					)
				] = body(g, block({ concurrent: true }), depth).nodes;
			out = { id, parallel: branches };
			if (r.chance(0.3))
				out.copies = slip<unknown>(
					g,
					() => r.pick([true, false]),
					() => "yes",
				);
			if (r.chance(0.2)) out["fail-fast"] = r.pick([true, false]);
			if (r.chance(0.2))
				out.join = slip(
					g,
					() => r.pick(["all", "any", 1]),
					() => r.pick([5, 0, "most"]),
				);
			break;
		}
		case "map":
		case "map-from": {
			out = { id };
			if (kind === "map")
				out.map = slip<unknown>(
					g,
					() => ["a", "b", "c"].slice(0, r.between(1, 3)),
					() => r.pick<unknown>([[], [1, 2], "a", [{ a: 1 }]]),
				);
			else {
				out["map-from"] = slip(
					g,
					() => `${r.pick(s.typed)}.output.items`,
					() => address(r, names),
				);
				out.max = slip(
					g,
					() => r.between(1, 6),
					() => r.pick([0, -1, "six", 1.5]),
				);
			}
			const concurrency = r.chance(0.3)
				? slip<unknown>(
						g,
						() => r.between(1, 3),
						() => r.pick([0, "2"]),
					)
				: undefined;
			if (concurrency !== undefined) out.concurrency = concurrency;
			if (r.chance(0.2)) out.copies = true;
			if (r.chance(0.1)) out.join = r.pick(["any", 1]);
			const ledger = r.chance(0.2);
			if (ledger)
				out.ledger = slip(
					g,
					() => id,
					() => "other",
				);
			const concurrent = s.concurrent || (typeof concurrency === "number" && concurrency > 1);
			out.do = body(
				g,
				block({ inMap: true, concurrent, ...(ledger ? { ledgers: [...s.ledgers, id] } : {}) }),
				depth,
			).nodes;
			break;
		}
		case "loop": {
			const ledger = r.chance(0.3);
			out = {
				id,
				loop: "true",
				max: slip(
					g,
					() => r.between(1, 3),
					() => r.pick([0, -1, "x", null]),
				),
			};
			if (ledger) out.ledger = id;
			if (r.chance(g.slips))
				out.carry = { first: address(r, names), next: r.pick([`${id}.ledger`, address(r, names)]) };
			const inner = block({ loops: [...s.loops, id], ...(ledger ? { ledgers: [...s.ledgers, id] } : {}) });
			const made = body(g, inner, depth);
			out.do = made.nodes;
			// The condition reads the body's nodes, which exist only once the body is made.
			out.loop = cond(g, [...s.typed, ...made.typed], s.visible);
			if (r.chance(0.3))
				out["give-up"] = slip(
					g,
					() => (ledger ? `size(${id}.ledger) == 0` : "false"),
					() => cond(g, s.typed, s.visible),
				);
			break;
		}
		case "check":
			out = {
				id,
				check: slip(
					g,
					() => r.pick([".pi/checks/test.sh", "scripts/check.sh", "a.sh"]),
					() => r.pick(["../x.sh", "/etc/passwd", "npm test", "a/../../b.sh", "", ".", "$(touch pwned).sh"]),
				),
			};
			if (r.chance(0.3))
				out.timeout = slip(
					g,
					() => "10m",
					() => duration(r),
				);
			break;
		case "commit":
			out = {
				id,
				commit: slip(
					g,
					() => r.pick(s.texts),
					() => address(r, names),
				),
			};
			break;
		case "ask":
			out = {
				id,
				ask: slip<unknown>(
					g,
					() => "Build this?",
					() => r.pick(["", 1, ["a"]]),
				),
			};
			r.weighted<() => void>([
				[
					2,
					() => {
						out.confirm = true;
						if (r.chance(0.5))
							out.default = slip<unknown>(
								g,
								() => true,
								() => "yes",
							);
					},
				],
				[
					2,
					() => {
						out.options = slip<unknown>(
							g,
							() => ["left", "right"],
							() => r.pick([["one"], ["a", "a"], ["a", "b", "c", "d", "e"], [{ label: "x", description: "y" }, "z"]]),
						);
						if (r.chance(0.5))
							out.default = slip(
								g,
								() => r.pick(["left", "right"]),
								() => "up",
							);
						if (r.chance(0.3)) out.enough = "That's enough";
					},
				],
				[
					1,
					() => {
						if (r.chance(0.5)) out.default = "fine";
					},
				],
			])();
			if (r.chance(0.3)) out.reads = reads(g, s);
			if (r.chance(0.2))
				out.timeout = slip(
					g,
					() => "10m",
					() => duration(r),
				);
			break;
		case "ask-from":
			out = {
				id,
				"ask-from": slip(
					g,
					() => `${r.pick(s.typed)}.output.q`,
					() => address(r, names),
				),
			};
			break;
		case "flow":
			out = {
				id,
				flow: slip(
					g,
					() => r.pick(s.concurrent ? ["explore", "split"] : ["explore", "interview", "split", "review-loop"]),
					() => r.pick(["nope", "x y", "", "gen"]),
				),
				input: slip(
					g,
					() => "input",
					() => address(r, names),
				),
			};
			break;
		case "swarm":
			out = {
				id,
				swarm: slip<unknown>(
					g,
					() => ["scout", { agent: "reviewer", count: 2 }],
					() => r.pick([[], "scout", [{ agent: "scout", count: 0 }], ["nobody"]]),
				),
				rounds: slip<unknown>(
					g,
					() => r.between(1, 3),
					() => r.pick([0, "x"]),
				),
			};
			if (r.chance(0.3)) out.until = `${id}.output.converged`;
			if (r.chance(0.3)) out.reads = reads(g, s);
			if (r.chance(g.slips)) out["claims-from"] = address(r, names);
			g.sections.push(id);
			break;
		case "wait":
			out = {
				id,
				wait: slip(
					g,
					() => r.pick(["1s", "90s", "10m"]),
					() => duration(r),
				),
			};
			break;
		case "wait-from":
			out = {
				id,
				"wait-from": slip(
					g,
					() => `${r.pick(s.typed)}.output.n`,
					() => address(r, names),
				),
			};
			if (!r.chance(g.slips)) out.max = r.pick(["5m", "1h"]);
			break;
		default:
			return unknownKindKey(kind);
	}
	if (r.chance(0.1))
		out["on-fail"] = slip<unknown>(
			g,
			() => "continue",
			() => r.pick(["stop", "ignore", true]),
		);
	if (r.chance(g.slips / 2)) out[r.pick(["agnet", "raeds", "timout", "do", "extra"])] = "x";
	if (r.chance(g.slips / 4)) delete out.id;
	return { node: out, id, output };
}

function sequence(g: Gen, s: Scope, depth: number, length: number): { nodes: Yaml[]; typed: string[] } {
	const nodes: Yaml[] = [];
	const scope: Scope = { ...s, visible: [...s.visible], typed: [...s.typed], texts: [...s.texts] };
	const typed: string[] = [];
	for (let i = 0; i < length && (i === 0 || g.count < g.budget); i++) {
		const made = node(g, scope, depth);
		nodes.push(made.node);
		scope.visible.push(made.id);
		if (made.output === "typed") {
			scope.typed.push(made.id);
			typed.push(made.id);
		}
		if (made.output === "text") scope.texts.push(made.id);
	}
	return { nodes, typed };
}

/** What a generated flow is made of, so a test can prove every kind was reached. */
export interface GeneratedFlow {
	text: string;
	kinds: Set<NodeKind>;
}

const EMPTY: Scope = {
	visible: [],
	typed: [],
	texts: [],
	inMap: false,
	concurrent: false,
	loops: [],
	blocks: [],
	ledgers: [],
};

/**
 * A flow named `name` of about `size` nodes. `slips` at 0 gives files that mostly check; higher gives
 * every refusal of the builder and the checker. Kind keys in `exclude` are never picked.
 */
export function generateFlow(
	r: Rng,
	name: string,
	size: number,
	slips: number,
	exclude: readonly string[] = [],
): GeneratedFlow {
	const g: Gen = { r, count: 0, budget: size, slips, sections: [], kinds: new Set(), exclude };
	const front: Yaml = {
		name: slip<unknown>(
			g,
			() => name,
			() => r.pick(["other", "resume", "", 1]),
		),
		description: slip<unknown>(
			g,
			() => "A generated flow.",
			() => r.pick(["", ["a"], null]),
		),
		input: typeValue(
			slip(
				g,
				() => "string",
				() => typeText(r),
			),
		),
	};
	if (r.chance(0.1)) front.model = "anthropic/claude-sonnet-4-5";
	if (r.chance(0.1))
		front.timeout = slip(
			g,
			() => "20m",
			() => duration(r),
		);
	if (r.chance(0.1))
		front.budget = slip<unknown>(
			g,
			() => ({ tokens: 2_000_000, cost: 5, turns: 60 }),
			() => ({ tokens: r.pick([0, -1, "lots"]), dollars: 1 }),
		);
	if (r.chance(0.05))
		front.handoff = slip<unknown>(
			g,
			() => ({ watermark: 0.8, continuations: 2 }),
			() => ({ watermark: r.pick([0, 1.5]), continuations: -1 }),
		);
	if (r.chance(0.08)) {
		front.chain = slip(
			g,
			() =>
				r.pick([
					"@scout -> @synthesiser",
					'@scout --retry 1 -> "sum it up" --timeout 10m -> @reviewer:second',
					"flow:explore -> @planner",
				]),
			() => chainText(r, 0.5),
		);
	} else front.nodes = sequence(g, EMPTY, 0, Math.max(1, Math.min(size, r.between(1, 4)))).nodes;
	if (r.chance(g.slips / 3)) front[r.pick(["node", "inputs", "desc", "version"])] = "x";
	const yaml = stringify(front, yamlOptions(r));
	const sections = [...g.sections];
	if (r.chance(slips))
		sections.splice(r.int(sections.length + 1), r.chance(0.5) ? 1 : 0, r.pick(["unknown", "n1", "$(touch pwned)", ""]));
	if (r.chance(slips) && sections.length) sections.splice(r.int(sections.length), 1);
	const preamble = r.chance(slips / 2) ? "Some text before the first section.\n\n" : "";
	const body = sections.map((id) => `## ${id}\n\n${r.chance(slips / 3) ? "" : prose(r, r.chance(slips))}\n`).join("\n");
	let text = `---\n${yaml}---\n\n${preamble}${body}`;
	if (r.chance(0.05)) text = text.replaceAll("\n", "\r\n");
	if (r.chance(0.03)) text = `\uFEFF${text}`;
	if (r.chance(0.05)) text = text.trimEnd();
	return { text, kinds: g.kinds };
}
