/**
 * Reads one node: its id, its one kind key, `on-fail`, and the keys shared by every kind; then hands the
 * rest to the kind's reader. A node whose id or kind is wrong is refused (its id remembered, so nothing
 * that refers to it is reported again); any other mistake is reported and the node still builds.
 */
import { isMap, isScalar, isSeq, type Node } from "yaml";
import { nearest } from "../../faults/index.ts";
import { type Range, withArticle } from "../../text/index.ts";
import type { FlowNode, Located, ReuseOption } from "../ast.ts";
import { type BuildContext, type Entry, seqItems } from "./context.ts";
import { ADDRESS_WORDS, ID_PATTERN, RESERVED_WORDS } from "./words.ts";
import { describe } from "./yaml-nodes.ts";

/** What every kind reader gets. */
export interface NodeInput {
	ctx: BuildContext;
	id: Located<string>;
	path: string;
	/** Entries by key. */
	keys: ReadonlyMap<string, Entry>;
	/** The kind key actually written (`agent` or `agent-from`, ...). */
	kindKey: string;
	range: Range;
	onFail?: Located<"continue">;
	reuse?: Located<ReuseOption>;
	refused: Set<string>;
}

/** Reads a sequence of nodes (`nodes:`, `do:`, a case's body). */
export function readSequence(
	ctx: BuildContext,
	node: Node | null,
	range: Range,
	parent: string,
	refused: Set<string>,
	what = "`do`",
): FlowNode[] {
	const items = seqItems(node);
	if (!items) {
		ctx.report("key-type", range, parent || "nodes", `${what} must be a list of nodes, not ${describe(node)}`);
		return [];
	}
	if (items.length === 0) {
		ctx.report("key-type", range, parent || "nodes", `${what} must hold at least one node`);
		return [];
	}
	const out: FlowNode[] = [];
	for (const item of items) {
		if (!ctx.node(ctx.rangeOf(item, range), parent || "nodes")) break;
		const built = readNode(ctx, item, ctx.rangeOf(item, range), parent, refused);
		if (built) out.push(built);
	}
	return out;
}

function readNode(
	ctx: BuildContext,
	item: Node,
	range: Range,
	parent: string,
	refused: Set<string>,
): FlowNode | undefined {
	const entries = ctx.entries(item);
	if (!entries) {
		ctx.report(
			"key-type",
			range,
			parent || "nodes",
			`a node is a mapping with \`id\` and a kind key, not ${describe(item)}`,
		);
		return undefined;
	}
	const { kindKeys: KIND_KEYS, kindOfKey: KIND_OF, nodeKeys: NODE_KEYS, keyOwner: KEY_OWNER, named } = ctx.kinds;
	const keys = new Map(entries.map((e) => [e.key, e]));
	const idEntry = keys.get("id");
	let id: Located<string> | undefined;
	if (!idEntry) ctx.report("missing-key", range, parent, "a node needs `id:`");
	else {
		const s = ctx.str(idEntry, parent ? `${parent}/?` : "?", "a name");
		if (s && !ID_PATTERN.test(s.value)) {
			const suggestion = s.value.replace(/[^A-Za-z0-9_]/g, "_").replace(/^(?=[0-9])/, "_");
			ctx.report(
				"invalid-id",
				s.range,
				s.value,
				`the id \`${s.value}\` is not a name a condition can read; try \`${suggestion}\``,
				{ expected: [suggestion] },
			);
			refused.add(s.value);
		} else if (s && (ADDRESS_WORDS.includes(s.value) || RESERVED_WORDS.includes(s.value))) {
			ctx.report("reserved-id", s.range, s.value, `\`${s.value}\` is a reserved word and cannot be an id`);
			refused.add(s.value);
		} else id = s;
	}
	const path = `${parent ? `${parent}/` : ""}${id?.value ?? idEntry?.key ?? "?"}`;
	const written = entries.filter((e) => (KIND_KEYS as readonly string[]).includes(e.key));
	const kinds = [...new Set(written.map((e) => KIND_OF[e.key]))];
	if (kinds.length !== 1) {
		// `choise:` is a kind key misspelt: the fault stands on that key and names the one it meant.
		const known = (key: string) =>
			key === "id" ||
			(KIND_KEYS as readonly string[]).includes(key) ||
			Object.values(NODE_KEYS).some((keys) => keys.includes(key));
		const misspelt =
			kinds.length === 0
				? entries.map((e) => ({ e, near: known(e.key) ? undefined : nearest(e.key, KIND_KEYS) })).find((x) => x.near)
				: undefined;
		const message = misspelt
			? `the node has no kind key; \`${misspelt.e.key}\` is not one. Did you mean \`${misspelt.near}\`?`
			: kinds.length === 0
				? `the node has no kind key; give it one of \`${KIND_KEYS.join("`, `")}\``
				: `the node has ${kinds.length} kind keys (\`${written.map((e) => e.key).join("`, `")}\`); a node is exactly one kind`;
		ctx.report(
			"node-kind",
			misspelt?.e.keyRange ?? id?.range ?? range,
			path,
			message,
			misspelt?.near ? { expected: [misspelt.near] } : undefined,
		);
		if (id) refused.add(id.value);
		refuseInside(entries, refused);
		return undefined;
	}
	if (written.length === 2) {
		ctx.report(
			"twin-keys",
			written[1].keyRange,
			`${path}.${written[1].key}`,
			`\`${written[0].key}\` and \`${written[1].key}\` are twins: write one (a literal, or an address with \`-from\`)`,
		);
		if (id) refused.add(id.value);
		refuseInside(entries, refused);
		return undefined;
	}
	if (!id) {
		refuseInside(entries, refused);
		return undefined;
	}
	const kind = kinds[0];
	const own = named(kind);
	const kindKey = written[0].key;
	const refuses = own.kindKeys.find((k) => k.key === kindKey)?.refuses ?? {};
	const retry = keys.get("retry");
	if (retry && own.noRetry !== undefined) {
		ctx.report(
			"retry-refused",
			retry.keyRange,
			`${path}.retry`,
			`\`retry\` is refused on ${withArticle(kind)} node: ${own.noRetry}`,
		);
		keys.delete("retry");
	}
	const allowed = ["id", kindKey, "on-fail", ...(NODE_KEYS[kind] ?? []).filter((k) => !(k in refuses))];
	const others = new Map([...KEY_OWNER].filter(([k]) => !allowed.includes(k)));
	for (const [k, owner] of Object.entries(refuses)) others.set(k, owner);
	ctx.unknownKeys(
		[...keys.values()].filter((e) => e.key !== "retry" || own.noRetry === undefined),
		allowed,
		path,
		`${withArticle(kind)} node`,
		others,
	);
	// A misspelt `output:` leaves the node untyped: reads into its output would report the same slip again.
	// Any unknown key makes the node one reported mistake (as combo): reads into its output are not reported again.
	if (!keys.has("output") && [...keys.keys()].some((k) => !allowed.includes(k) && k !== "retry"))
		refused.add(`${id.value}.output`);
	let onFail: Located<"continue"> | undefined;
	const onFailEntry = keys.get("on-fail");
	if (onFailEntry) {
		const s = ctx.str(onFailEntry, `${path}.on-fail`, "`continue`");
		if (s && s.value !== "continue")
			ctx.report("key-type", s.range, `${path}.on-fail`, `\`on-fail\` takes only \`continue\`, not \`${s.value}\``);
		else if (s) onFail = { value: "continue", range: s.range };
	}
	const reuse = readReuse(ctx, keys.get("reuse"), path, own.keys.reuse);
	const input: NodeInput = {
		ctx,
		id,
		path,
		keys,
		kindKey,
		range,
		refused,
		...(onFail ? { onFail } : {}),
		...(reuse ? { reuse } : {}),
	};
	return own.read(input);
}

/**
 * A refused block is not read, so the nodes written inside it never build; their ids are refused too, or
 * their sections and every read of them would be reported as a second, derived mistake.
 */
function refuseInside(entries: readonly Entry[], refused: Set<string>): void {
	const walk = (node: unknown) => {
		if (isMap(node)) {
			for (const pair of node.items) {
				if (
					isScalar(pair.key) &&
					pair.key.value === "id" &&
					isScalar(pair.value) &&
					typeof pair.value.value === "string"
				)
					refused.add(pair.value.value.trim());
				else walk(pair.value);
			}
		} else if (isSeq(node)) node.items.forEach(walk);
	};
	for (const e of entries) if (e.key !== "id") walk(e.value);
}

/** `reuse:` on a kind whose schema lists it, read against the values that schema allows. */
function readReuse(
	ctx: BuildContext,
	entry: Entry | undefined,
	path: string,
	schema: { enum?: unknown } | undefined,
): Located<ReuseOption> | undefined {
	const allowed = Array.isArray(schema?.enum) ? (schema.enum as string[]) : [];
	if (!entry || !allowed.length) return undefined;
	const s = ctx.str(entry, `${path}.reuse`, allowed.map((a) => `\`${a}\``).join(" or "));
	if (s && !allowed.includes(s.value)) {
		ctx.report(
			"key-type",
			s.range,
			`${path}.reuse`,
			`\`reuse\` takes ${allowed.map((a) => `\`${a}\``).join(" or ")} here, not \`${s.value}\``,
			{ expected: allowed },
		);
		return undefined;
	}
	return s ? { value: s.value as ReuseOption, range: s.range } : undefined;
}

/** The common fields of every node. */
export function base(n: NodeInput) {
	return {
		id: n.id,
		path: n.path,
		range: n.range,
		...(n.onFail ? { onFail: n.onFail } : {}),
		...(n.reuse ? { reuse: n.reuse } : {}),
	};
}
