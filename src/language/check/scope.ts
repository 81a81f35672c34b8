/**
 * Lexical visibility: a node reads the nodes that ended before it in its own sequence and in every
 * enclosing one, plus `input`, `diff`, a map's `item`, an enclosing loop's `previous`/`carry` and an
 * enclosing ledger. Nothing inside a sibling block is visible; what leaves a block is its own output.
 * One resolver serves `reads:`, the `-from` keys and conditions, with the fault codes of each. These rules
 * are written here only: the checker records what each address binds ({@link Binding}), the evaluator
 * fetches values from there, and the language server asks the scopes the checker kept ({@link ScopePoints}).
 */
import { byCloseness, didYouMean, type Fault, type FaultCode, fault, nearest } from "../../faults/index.ts";
import { FILE_START, type Range } from "../../text/index.ts";
import type { Segment } from "../syntax/index.ts";
import { BOOLEAN, TEXT, type Type, typeToString } from "../types/index.ts";
import { ERROR_TYPE, entryType, HANDOFF_TYPE, OBLIGATIONS_TYPE } from "./node-types.ts";

/** A node that ended and can be read. */
export interface Visible {
	id: string;
	/** Its output type (`x` and `x.output`). */
	type: Type;
	/** Agent nodes leave a handoff document. */
	handoff: boolean;
	/** Blocks with `ledger:` can be read as `<id>.ledger`. */
	ledger: boolean;
}

/** An enclosing block, as its body sees it. */
export interface Enclosing {
	id: string;
	kind: string;
	/** Inside a map body: the item's type. */
	item?: Type;
	/** Inside a loop body: the body nodes' output types, for `<loop>.previous.<node>`. */
	previous?: ReadonlyMap<string, Type>;
	/** Inside a loop body with `carry`: its type. */
	carry?: Type;
	/** Inside a map body whose list was refused (already reported): `item` has no type to check against. */
	itemRefused?: boolean;
	ledger: boolean;
}

/**
 * What an address's first name stands for where it is read, as the checker decided: the evaluator fetches
 * the value there and the language server jumps there, so neither decides again. The names after it are
 * the same at run time as in the type (`x.output.tasks`, `loop.previous.code.ok`, `input.goal`).
 */
export type Binding =
	| { kind: "input" }
	| { kind: "diff" }
	/** The item of the nearest enclosing map, by the map's id. */
	| { kind: "item"; map: string }
	/** A node that ended before this point: its record (`output`, `ok`, `error`, `handoff`, `ledger`). */
	| { kind: "node"; id: string }
	/** An enclosing block still running: its `previous`, `carry` or `ledger`. */
	| { kind: "block"; id: string };

/** An address the checker resolved: what its first name binds, and the type the whole address reads. */
export interface Resolved {
	binding: Binding;
	type: Type;
}

/**
 * The scopes an editor asks about, by node id, as the checker walked them (its last, real pass over a
 * loop body): before and after each node, and where each block's body starts and ends.
 */
export interface ScopePoints {
	root: Scope;
	before: Map<string, Scope>;
	after: Map<string, Scope>;
	bodyStart: Map<string, Scope>;
	bodyEnd: Map<string, Scope>;
}

/** An address readable at a point, and its type (what completion offers). */
export interface Readable {
	address: string;
	type: Type;
}

/** Nested fields offered by {@link Scope.readable}; deeper ones still resolve. */
const FIELD_DEPTH = 4;

/** Fault codes of a resolver: reads and conditions report the same mistakes under their own codes. */
export interface Codes {
	unknown: FaultCode;
	intoText: FaultCode;
}

export const READ_CODES: Codes = { unknown: "unknown-address", intoText: "invalid-address" };
export const CONDITION_CODES: Codes = { unknown: "condition-unknown-address", intoText: "condition-type" };

/**
 * One node that ended, linked to the one that ended before it: scopes share their history, so a node that
 * ends adds one link instead of copying everything visible. `jump` skips back (skew-binary jump pointers),
 * so whether a link is in a scope's history takes O(log n) steps.
 */
interface Link {
	v: Visible;
	parent: Link | undefined;
	depth: number;
	jump: Link | undefined;
}

function link(v: Visible, parent: Link | undefined): Link {
	if (!parent) return { v, parent, depth: 1, jump: undefined };
	const j = parent.jump;
	const jump = j?.jump && parent.depth - j.depth === j.depth - j.jump.depth ? j.jump : parent;
	return { v, parent, depth: parent.depth + 1, jump };
}

/** Whether `l` is `tip` or one of the links before it. */
function behind(l: Link, tip: Link | undefined): boolean {
	let at = tip;
	while (at && at.depth > l.depth) at = at.jump && at.jump.depth >= l.depth ? at.jump : at.parent;
	return at === l;
}

/** The nodes visible at one point: the tip of a chain of links, and every link by id (shared by all scopes of a walk). */
class VisibleNodes implements ReadonlyMap<string, Visible> {
	private readonly tip: Link | undefined;
	private readonly byId: Map<string, Link[]>;

	constructor(tip: Link | undefined, byId: Map<string, Link[]>) {
		this.tip = tip;
		this.byId = byId;
	}

	plus(v: Visible): VisibleNodes {
		const l = link(v, this.tip);
		const links = this.byId.get(v.id);
		if (links) links.push(l);
		else this.byId.set(v.id, [l]);
		return new VisibleNodes(l, this.byId);
	}

	/** The latest node with this id in this scope's history. */
	get(id: string): Visible | undefined {
		let found: Link | undefined;
		for (const l of this.byId.get(id) ?? []) if ((!found || l.depth > found.depth) && behind(l, this.tip)) found = l;
		return found?.v;
	}

	has(id: string): boolean {
		return this.get(id) !== undefined;
	}

	get size(): number {
		return this.ordered().length;
	}

	/** Ids in the order they first ended, each with its latest node (as a Map rebuilt with `set` would hold them). */
	private ordered(): [string, Visible][] {
		const chain: Visible[] = [];
		for (let at = this.tip; at; at = at.parent) chain.push(at.v);
		const out = new Map<string, Visible>();
		for (let i = chain.length - 1; i >= 0; i--) out.set(chain[i].id, chain[i]);
		return [...out];
	}

	entries(): MapIterator<[string, Visible]> {
		return this.ordered()[Symbol.iterator]() as MapIterator<[string, Visible]>;
	}

	keys(): MapIterator<string> {
		return this.ordered()
			.map(([k]) => k)
			[Symbol.iterator]() as MapIterator<string>;
	}

	values(): MapIterator<Visible> {
		return this.ordered()
			.map(([, v]) => v)
			[Symbol.iterator]() as MapIterator<Visible>;
	}

	forEach(f: (value: Visible, key: string, map: ReadonlyMap<string, Visible>) => void): void {
		for (const [k, v] of this.ordered()) f(v, k, this);
	}

	[Symbol.iterator](): MapIterator<[string, Visible]> {
		return this.entries();
	}
}

/** A scope: what is visible at one point of the flow. Immutable; `with` and `inside` make new ones. */
export class Scope {
	readonly file: string;
	readonly input: Type;
	readonly visible: ReadonlyMap<string, Visible>;
	private readonly nodes: VisibleNodes;
	readonly enclosing: readonly Enclosing[];
	/** Every id of the file, to say "has not ended yet" rather than "unknown". */
	readonly allIds: ReadonlySet<string>;
	/**
	 * Ids refused by the builder or the checker, and `<id>.<field>` parts refused alone (`plan.output` of an
	 * output type that did not read, `fix.carry` of a carry that did not): reads of them are not reported again.
	 */
	readonly refused: ReadonlySet<string>;

	constructor(init: {
		file: string;
		input: Type;
		visible?: ReadonlyMap<string, Visible>;
		enclosing?: readonly Enclosing[];
		allIds: ReadonlySet<string>;
		refused: ReadonlySet<string>;
	}) {
		this.file = init.file;
		this.input = init.input;
		let nodes = init.visible instanceof VisibleNodes ? init.visible : new VisibleNodes(undefined, new Map());
		if (init.visible && !(init.visible instanceof VisibleNodes))
			for (const v of init.visible.values()) nodes = nodes.plus(v);
		this.nodes = nodes;
		this.visible = nodes;
		this.enclosing = init.enclosing ?? [];
		this.allIds = init.allIds;
		this.refused = init.refused;
	}

	/** This scope plus a node that just ended. */
	with(v: Visible): Scope {
		return new Scope({
			file: this.file,
			input: this.input,
			visible: this.nodes.plus(v),
			enclosing: this.enclosing,
			allIds: this.allIds,
			refused: this.refused,
		});
	}

	/** The scope of a block's body. */
	inside(e: Enclosing): Scope {
		return new Scope({
			file: this.file,
			input: this.input,
			visible: this.nodes,
			enclosing: [...this.enclosing, e],
			allIds: this.allIds,
			refused: this.refused,
		});
	}

	/** The nearest enclosing block with this id. */
	block(id: string): Enclosing | undefined {
		return [...this.enclosing].reverse().find((e) => e.id === id);
	}

	/**
	 * An address given as its names (`plan.output.tasks`, as an editor has it under the cursor) resolved here,
	 * or undefined when it reads nothing here. Faults are the checker's business, not the caller's.
	 */
	resolveNames(names: readonly string[]): Resolved | undefined {
		if (names.length === 0 || !names.every((n) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(n))) return undefined;
		const segments = names.map((name) => ({ name, range: FILE_START }));
		const r = this.resolve(segments, "", READ_CODES);
		return r && "binding" in r ? r : undefined;
	}

	/**
	 * Every address readable here with its type, in the order a person looks for them: the run's input, the
	 * diff, the map's item, what enclosing blocks offer, then each node that ended, in the order it ended.
	 */
	readable(): Readable[] {
		const out: Readable[] = [];
		const add = (address: string, type: Type) => out.push({ address, type });
		const fields = (prefix: string, type: Type, depth = 0) => {
			if (type.kind !== "object" || depth >= FIELD_DEPTH) return;
			for (const f of type.fields) {
				add(`${prefix}.${f.name}`, f.type);
				fields(`${prefix}.${f.name}`, f.type, depth + 1);
			}
		};
		add("input", this.input);
		fields("input", this.input);
		add("diff", TEXT);
		const map = [...this.enclosing].reverse().find((e) => e.item);
		if (map?.item) {
			add("item", map.item);
			fields("item", map.item);
		}
		for (const e of this.enclosing) {
			for (const [node, type] of e.previous ?? []) add(`${e.id}.previous.${node}`, entryType(type));
			if (e.carry) {
				add(`${e.id}.carry`, e.carry);
				fields(`${e.id}.carry`, e.carry);
			}
			if (e.ledger) add(`${e.id}.ledger`, OBLIGATIONS_TYPE);
		}
		for (const v of this.visible.values()) {
			add(v.id, v.type);
			add(`${v.id}.output`, v.type);
			fields(`${v.id}.output`, v.type);
			add(`${v.id}.ok`, BOOLEAN);
			add(`${v.id}.error`, ERROR_TYPE);
			fields(`${v.id}.error`, ERROR_TYPE);
			if (v.handoff) add(`${v.id}.handoff`, HANDOFF_TYPE);
			if (v.ledger) add(`${v.id}.ledger`, OBLIGATIONS_TYPE);
		}
		return out;
	}

	/**
	 * The type `segments` read here and what their first name binds, or the fault. `undefined` means "refused
	 * elsewhere, say nothing". `path` is the node path plus key, for the fault.
	 */
	resolve(segments: readonly Segment[], path: string, codes: Codes): Resolved | { fault: Fault } | undefined {
		const [head, ...rest] = segments;
		const name = head.name;
		const f = (code: FaultCode, range: Range, message: string, expected?: string) =>
			this.refuse(code, range, path, message, expected);
		const bind = (binding: Binding, r: { type: Type } | { fault: Fault }) =>
			"fault" in r ? r : { type: r.type, binding };
		if (name === "input")
			return this.refused.has("input")
				? undefined
				: bind({ kind: "input" }, this.fields(this.input, segments, 1, path, codes));
		if (name === "diff") {
			if (rest.length) return f(codes.intoText, rest[0].range, "`diff` is text and has no fields");
			return { type: TEXT, binding: { kind: "diff" } };
		}
		if (name === "item") {
			const map = [...this.enclosing].reverse().find((e) => e.item || e.itemRefused);
			if (map?.itemRefused) return undefined;
			if (!map?.item) return f(codes.unknown, head.range, "`item` is readable only inside a map's body");
			return bind({ kind: "item", map: map.id }, this.fields(map.item, segments, 1, path, codes));
		}
		if (this.refused.has(name)) return undefined;
		const node = this.visible.get(name);
		const block = this.block(name);
		if (!node && !block) {
			if (this.allIds.has(name))
				return f(
					codes.unknown,
					head.range,
					`\`${name}\` has not ended before this point; a node reads only what ran before it`,
				);
			const candidates = ["input", ...this.visible.keys(), ...this.enclosing.map((e) => e.id)];
			const near = nearest(name, candidates);
			const listed = near ? didYouMean(near) : ` Readable here: ${byCloseness(name, candidates, 5).join(", ")}.`;
			return f(codes.unknown, head.range, `\`${name}\` names nothing readable here.${listed}`, near);
		}
		const [second] = rest;
		if (second && this.refused.has(`${name}.${second.name}`)) return undefined;
		if (!second) {
			if (node) return { type: node.type, binding: { kind: "node", id: name } };
			return f(
				codes.unknown,
				head.range,
				`\`${name}\` is still running here; read \`${name}.previous\`, \`${name}.carry\` or \`${name}.ledger\``,
			);
		}
		const fieldNames: string[] = [];
		if (node)
			fieldNames.push(
				"output",
				"ok",
				"error",
				...(node.handoff ? ["handoff"] : []),
				...(node.ledger ? ["ledger"] : []),
			);
		if (block) {
			if (block.previous) fieldNames.push("previous");
			if (block.carry) fieldNames.push("carry");
			if (block.ledger && !fieldNames.includes("ledger")) fieldNames.push("ledger");
		}
		// A node that ended owns the parts a record has; a block still running, what only it offers its body.
		const blockOnly =
			second.name === "previous" || second.name === "carry" || (second.name === "ledger" && !node?.ledger);
		const owner: Binding = node && !(block && blockOnly) ? { kind: "node", id: name } : { kind: "block", id: name };
		return bind(owner, this.part(node, block, segments, fieldNames, path, codes));
	}

	/** The type of `<id>.<part>…` where `<id>` is a node that ended, a block still running, or both. */
	private part(
		node: Visible | undefined,
		block: Enclosing | undefined,
		segments: readonly Segment[],
		fieldNames: readonly string[],
		path: string,
		codes: Codes,
	): { type: Type } | { fault: Fault } {
		const [head, second, ...more] = segments;
		const name = head.name;
		const rest = [second, ...more];
		const f = (code: FaultCode, range: Range, message: string, expected?: string) =>
			this.refuse(code, range, path, message, expected);
		switch (fieldNames.includes(second.name) ? second.name : "") {
			case "output":
				return this.fields((node as Visible).type, segments, 2, path, codes);
			case "ok":
				return rest.length > 1
					? f(codes.intoText, rest[1].range, "`ok` is true or false and has no fields")
					: { type: { kind: "boolean" } };
			case "error":
				return this.fields(ERROR_TYPE, segments, 2, path, codes);
			case "handoff":
				return this.fields(HANDOFF_TYPE, segments, 2, path, codes);
			case "ledger":
				return this.fields(OBLIGATIONS_TYPE, segments, 2, path, codes);
			case "carry":
				return this.fields((block as Enclosing).carry as Type, segments, 2, path, codes);
			case "previous": {
				const third = rest[1];
				const types = (block as Enclosing).previous as ReadonlyMap<string, Type>;
				if (!third)
					return f(codes.unknown, second.range, `\`${name}.previous\` needs a body node: \`${name}.previous.<node>\``);
				const t = types.get(third.name);
				if (!t) {
					const near = nearest(third.name, types.keys());
					return f(
						codes.unknown,
						third.range,
						`\`${third.name}\` is not a node of the loop \`${name}\`.${didYouMean(near)}`,
						near,
					);
				}
				return this.fields(entryType(t), segments, 3, path, codes);
			}
			default: {
				const near = nearest(second.name, fieldNames);
				return f(
					codes.unknown,
					second.range,
					`\`${name}\` has no \`${second.name}\`; it has ${fieldNames.map((x) => `\`${x}\``).join(", ")}.${didYouMean(near)}`,
					near,
				);
			}
		}
	}

	/** A fault of this file, with its did-you-mean when there is one. */
	private refuse(code: FaultCode, range: Range, path: string, message: string, expected?: string): { fault: Fault } {
		return { fault: fault(code, this.file, range, path, message, expected ? { expected: [expected] } : {}) };
	}

	/** Walks fields from `from` into `type`. */
	fields(
		type: Type,
		segments: readonly Segment[],
		from: number,
		path: string,
		codes: Codes,
	): { type: Type } | { fault: Fault } {
		let t = type;
		for (let i = from; i < segments.length; i++) {
			const seg = segments[i];
			if (t.kind !== "object") {
				const why =
					t.kind === "text"
						? "an agent's untyped text has no fields; give the node an `output:` type"
						: `it is ${typeToString(t)}, which has no fields`;
				const hint =
					t.kind === "text"
						? "Give the node an `output:` type with that field (`output: { ok: boolean }`) and read it."
						: t.kind === "list"
							? "A list has no fields: use `size(x)`, `all` or `exists`, or read the field of its items inside them."
							: "Read the value itself, without the field.";
				return {
					fault: fault(codes.intoText, this.file, seg.range, path, `\`.${seg.name}\` cannot be read: ${why}`, { hint }),
				};
			}
			const next = t.fields.find((x) => x.name === seg.name);
			if (!next) {
				const names = t.fields.map((x) => x.name);
				const near = nearest(seg.name, names);
				return {
					fault: fault(
						codes.unknown,
						this.file,
						seg.range,
						path,
						`there is no field \`${seg.name}\`; the fields are ${names.join(", ")}.${didYouMean(near)}`,
						near ? { expected: [near] } : {},
					),
				};
			}
			t = next.type;
		}
		return { type: t };
	}
}
