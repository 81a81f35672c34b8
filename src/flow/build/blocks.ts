/**
 * Block nodes, which hold sequences: `choice` (ordered cases), `parallel` (named branches), `map` (a body
 * per item) and `loop` (a body until a condition). Their bodies are read with the same node reader, so a
 * block is as checkable as the root.
 */
import { isScalar } from "yaml";
import {
	allNodes,
	type ChoiceCase,
	type ChoiceNode,
	type Join,
	type Located,
	type LoopNode,
	type MapNode,
	type ParallelNode,
} from "../ast.ts";
import { type BuildContext, type Entry, seqItems } from "./context.ts";
import { base, type NodeInput, readSequence } from "./node.ts";
import { ID_PATTERN } from "./words.ts";
import { describe } from "./yaml-nodes.ts";

/** Reads a choice: `choice: [{ when, do, name? }]` and a required `default:`. */
export function readChoice(n: NodeInput): ChoiceNode {
	const { ctx, keys, path } = n;
	const main = keys.get("choice") as Entry;
	const items = seqItems(main.value);
	const cases: ChoiceCase[] = [];
	if (!items || items.length === 0)
		ctx.report("key-type", main.range, `${path}.choice`, "`choice` is a non-empty list of cases `{ when, do }`");
	for (const [i, item] of (items ?? []).entries()) {
		const range = ctx.rangeOf(item, main.range);
		const entries = ctx.entries(item);
		const casePath = `${path}.choice[${i + 1}]`;
		if (!entries) {
			ctx.report("key-type", range, casePath, `a case is \`{ when, do }\`, not ${describe(item)}`);
			continue;
		}
		ctx.unknownKeys(entries, ["when", "do", "name"], casePath, "a case");
		const get = (k: string) => entries.find((e) => e.key === k);
		const when = get("when");
		const body = get("do");
		if (!when) ctx.report("missing-key", range, `${casePath}.when`, "a case needs `when:`");
		if (!body) ctx.report("missing-key", range, `${casePath}.do`, "a case needs `do:` (at least one node)");
		const condition = when ? ctx.condition(when, `${casePath}.when`) : undefined;
		const nodes = body ? readSequence(ctx, body.value, body.range, path, n.refused, "a case's `do`") : [];
		const nameEntry = get("name");
		const name = nameEntry ? ctx.str(nameEntry, `${casePath}.name`, "a case name") : undefined;
		if (name && !ID_PATTERN.test(name.value))
			ctx.report(
				"key-type",
				name.range,
				`${casePath}.name`,
				`a case name is a name like \`approved\`, not \`${name.value}\``,
			);
		if (condition)
			cases.push({ when: condition, body: nodes, range, ...(name && ID_PATTERN.test(name.value) ? { name } : {}) });
		// A case whose `when:` does not read is dropped with one fault; its nodes, sections and reads of them
		// are not mistakes of their own (a loop's broken condition gives one fault too).
		else for (const node of allNodes(nodes)) n.refused.add(node.id.value);
	}
	const names = cases.map((c) => c.name?.value).filter((v): v is string => !!v);
	for (const c of cases) {
		if (c.name && (c.name.value === "default" || names.indexOf(c.name.value) !== names.lastIndexOf(c.name.value))) {
			ctx.report(
				"key-type",
				c.name.range,
				`${path}.choice`,
				`the case name \`${c.name.value}\` is ${c.name.value === "default" ? "reserved for the default" : "used twice"}`,
			);
			delete c.name;
		}
	}
	const dflt = keys.get("default");
	if (!dflt)
		ctx.report(
			"missing-key",
			main.keyRange,
			`${path}.default`,
			"a choice needs `default:` (write `default: []` for nothing)",
		);
	const otherwise =
		dflt && seqItems(dflt.value)?.length !== 0
			? readSequence(ctx, dflt.value, dflt.range, path, n.refused, "`default`")
			: [];
	return { kind: "choice", ...base(n), cases, otherwise };
}

/** Reads a parallel: `parallel: { branch: [nodes], ... }`, at least two branches. */
export function readParallel(n: NodeInput): ParallelNode {
	const { ctx, keys, path } = n;
	const main = keys.get("parallel") as Entry;
	const entries = ctx.entries(main.value);
	const branches: ParallelNode["branches"] = [];
	if (!entries || entries.length < 2)
		ctx.report(
			"key-type",
			main.range,
			`${path}.parallel`,
			"`parallel` maps at least two branch names to lists of nodes",
		);
	for (const e of entries ?? []) {
		if (!ID_PATTERN.test(e.key))
			ctx.report(
				"key-type",
				e.keyRange,
				`${path}.parallel`,
				`a branch name is a name like \`tests\`, not \`${e.key}\``,
			);
		branches.push({
			name: { value: e.key, range: e.keyRange },
			body: readSequence(ctx, e.value, e.range, path, n.refused, `the branch \`${e.key}\``),
		});
	}
	return { kind: "parallel", ...base(n), branches, ...blockOptions(ctx, keys, path) };
}

/** Reads a map: `map: [strings]` or `map-from: address`, with `do:` and its bounds. */
export function readMap(n: NodeInput): MapNode {
	const { ctx, keys, path } = n;
	const main = keys.get(n.kindKey) as Entry;
	const node: MapNode = { kind: "map", ...base(n), body: [], ...blockOptions(ctx, keys, path) };
	if (n.kindKey === "map") {
		const items = seqItems(main.value);
		const strings = items?.map((i) =>
			isScalar(i) && typeof i.value === "string" ? { value: i.value, range: ctx.rangeOf(i, main.range) } : undefined,
		);
		if (!strings || strings.length === 0 || strings.some((s) => !s)) {
			ctx.report(
				"key-type",
				main.range,
				`${path}.map`,
				"a literal `map:` is a non-empty list of strings; anything typed comes through `map-from:`",
			);
		} else node.items = strings as Located<string>[];
	} else {
		const from = ctx.address(main, `${path}.map-from`);
		if (from) node.from = from;
		if (!keys.has("max"))
			ctx.report("missing-key", main.keyRange, `${path}.max`, "`map-from` needs `max:`, the most items it will run");
	}
	const max = n.kindKey === "map" ? undefined : keys.get("max");
	if (max) {
		const m = ctx.int(max, `${path}.max`, 1);
		if (m) node.max = m;
	}
	const concurrency = keys.get("concurrency");
	if (concurrency) {
		const c = ctx.int(concurrency, `${path}.concurrency`, 1);
		if (c) node.concurrency = c;
	}
	const ledger = ownId(ctx, keys.get("ledger"), n);
	if (ledger) node.ledger = ledger;
	node.body = readBody(n);
	return node;
}

/** Reads a loop: `loop: <until>`, `max:`, `give-up:`, `carry:`, `ledger:`, `do:`. */
export function readLoop(n: NodeInput): LoopNode {
	const { ctx, keys, path } = n;
	const main = keys.get("loop") as Entry;
	const until = ctx.condition(main, `${path}.loop`);
	const node = { kind: "loop", ...base(n), body: [] } as unknown as LoopNode;
	if (until) node.until = until;
	const max = keys.get("max");
	if (!max)
		ctx.report("missing-key", main.keyRange, `${path}.max`, "a loop needs `max:`, the most iterations it may run");
	else {
		const m = ctx.int(max, `${path}.max`, 1);
		if (m) node.max = m;
	}
	const giveUp = keys.get("give-up");
	if (giveUp) {
		const g = ctx.condition(giveUp, `${path}.give-up`);
		if (g) node.giveUp = g;
	}
	const carry = keys.get("carry");
	if (carry) {
		const entries = ctx.entries(carry.value);
		const first = entries?.find((e) => e.key === "first");
		const next = entries?.find((e) => e.key === "next");
		if (entries && (!first || !next)) {
			// A mapping that lacks one side is a missing key, as combo reports it.
			const side = first ? "next" : "first";
			ctx.report(
				"missing-key",
				carry.keyRange,
				`${path}.carry.${side}`,
				`\`carry\` needs \`${side}:\`: \`{ first: <address>, next: <address> }\``,
			);
		} else if (!entries || !first || !next)
			ctx.report("key-type", carry.range, `${path}.carry`, "`carry` is `{ first: <address>, next: <address> }`");
		else {
			ctx.unknownKeys(entries, ["first", "next"], `${path}.carry`, "`carry`");
			const a = ctx.address(first, `${path}.carry.first`);
			const b = ctx.address(next, `${path}.carry.next`);
			if (a && b) node.carry = { first: a, next: b, range: carry.range };
		}
		// The fault is reported here; reads of `<loop>.carry` in the body must not report it again.
		if (!node.carry) n.refused.add(`${n.id.value}.carry`);
	}
	const ledger = ownId(ctx, keys.get("ledger"), n);
	if (ledger) node.ledger = ledger;
	node.body = readBody(n);
	return node;
}

function readBody(n: NodeInput) {
	const body = n.keys.get("do");
	if (!body) {
		n.ctx.report("missing-key", (n.keys.get(n.kindKey) as Entry).keyRange, `${n.path}.do`, "the body `do:` is missing");
		return [];
	}
	return readSequence(n.ctx, body.value, body.range, n.path, n.refused);
}

/** `ledger:` names the block's own id (one ledger per loop, or per map item). */
function ownId(ctx: BuildContext, entry: Entry | undefined, n: NodeInput): Located<string> | undefined {
	if (!entry) return undefined;
	const s = ctx.str(entry, `${n.path}.ledger`, "this node's own id");
	if (s && s.value !== n.id.value) {
		ctx.report(
			"key-type",
			s.range,
			`${n.path}.ledger`,
			`\`ledger\` names the node's own id (\`${n.id.value}\`), not \`${s.value}\``,
			{ expected: [n.id.value] },
		);
		return undefined;
	}
	return s;
}

/** `copies`, `fail-fast` and `join` of a parallel or map. */
function blockOptions(ctx: BuildContext, keys: ReadonlyMap<string, Entry>, path: string) {
	const out: Partial<Pick<ParallelNode, "copies" | "failFast" | "join">> = {};
	const copies = keys.get("copies");
	if (copies) {
		const b = ctx.bool(copies, `${path}.copies`);
		if (b) out.copies = b;
	}
	const failFast = keys.get("fail-fast");
	if (failFast) {
		const b = ctx.bool(failFast, `${path}.fail-fast`);
		if (b) out.failFast = b;
	}
	const join = keys.get("join");
	if (join) {
		const v = isScalar(join.value) ? join.value.value : undefined;
		let j: Join | undefined;
		if (v === "all") j = { kind: "all" };
		else if (v === "any") j = { kind: "any" };
		else if (typeof v === "number" && Number.isSafeInteger(v) && v >= 1) j = { kind: "quorum", count: v };
		if (j) out.join = { value: j, range: join.range };
		else
			ctx.report(
				"key-type",
				join.range,
				`${path}.join`,
				`\`join\` is \`all\`, \`any\` or a whole number of branches that must succeed, not ${describe(join.value)}`,
			);
	}
	return out;
}
