/**
 * Addresses at one point of a flow: every one a node can read there (for completion) and the type one
 * reads (for hover and for the values an enum comparison may take). The rules are the checker's
 * (`check/scope.ts`); an address whose node is known but whose type is not yet reads as "type unknown"
 * rather than nothing, so half-typed flows still complete.
 */
import {
	BOOLEAN,
	ERROR_TYPE,
	field,
	HANDOFF_TYPE,
	OBLIGATIONS_TYPE,
	objectOf,
	TEXT,
	type Type,
} from "../flow/check-only.ts";
import type { Here } from "./scope.ts";

/** An address and, when known, its type. */
export interface Readable {
	address: string;
	type?: Type;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Nested fields offered in completion; deeper ones are still resolved for hover. */
const FIELD_DEPTH = 4;

/** How one body node of a loop ended, as `<loop>.previous.<node>` reads it. */
function entryType(output: Type | undefined): Type {
	return objectOf([
		field("ok", BOOLEAN),
		...(output ? [field("output", output, true)] : []),
		field("error", ERROR_TYPE, true),
	]);
}

function known(type: Type | undefined): { type?: Type } {
	return type ? { type } : {};
}

/** Walks `names[from..]` as fields of `type`; an unknown type stays unknown, a missing field reads nothing. */
function into(type: Type | undefined, names: readonly string[], from: number): { type?: Type } | undefined {
	let t = type;
	for (let i = from; i < names.length; i++) {
		if (!t) return {};
		if (t.kind !== "object") return undefined;
		t = t.fields.find((f) => f.name === names[i])?.type;
		if (!t) return undefined;
	}
	return known(t);
}

/** The type `text` reads at `here`: `{}` when readable with an unknown type, undefined when it reads nothing. */
export function resolveAddress(here: Here, text: string): { type?: Type } | undefined {
	const names = text.split(".");
	if (!names.every((n) => NAME.test(n))) return undefined;
	const [head, second, third] = names;
	if (head === "input") return into(here.input, names, 1);
	if (head === "diff") return names.length === 1 ? { type: TEXT } : undefined;
	if (head === "item") {
		const map = [...here.around].reverse().find((a) => a.map);
		return map ? into(map.item, names, 1) : undefined;
	}
	const seen = here.seen.find((s) => s.id === head);
	const around = [...here.around].reverse().find((a) => a.id === head);
	if (second === undefined) return seen ? known(seen.type) : undefined;
	if (seen) {
		if (second === "output") return into(seen.type, names, 2);
		if (second === "ok") return names.length === 2 ? { type: BOOLEAN } : undefined;
		if (second === "error") return into(ERROR_TYPE, names, 2);
		if (second === "handoff" && seen.agent) return into(HANDOFF_TYPE, names, 2);
		if (second === "ledger" && seen.ledger) return into(OBLIGATIONS_TYPE, names, 2);
	}
	if (!around) return undefined;
	if (second === "previous" && third !== undefined && around.previous?.has(third))
		return into(entryType(around.previous.get(third)), names, 3);
	if (second === "carry" && around.carry) return into(around.carryType, names, 2);
	if (second === "ledger" && around.ledger) return into(OBLIGATIONS_TYPE, names, 2);
	return undefined;
}

/**
 * Every address readable at `here`, in the order a person looks for them: the run's input, the diff, the
 * map's item, what enclosing blocks offer, then each node that ended, in file order.
 */
export function readableAt(here: Here): Readable[] {
	const out: Readable[] = [];
	const add = (address: string, type: Type | undefined) => out.push({ address, ...known(type) });
	const fields = (prefix: string, type: Type | undefined, depth = 0) => {
		if (type?.kind !== "object" || depth >= FIELD_DEPTH) return;
		for (const f of type.fields) {
			add(`${prefix}.${f.name}`, f.type);
			fields(`${prefix}.${f.name}`, f.type, depth + 1);
		}
	};
	add("input", here.input);
	fields("input", here.input);
	add("diff", TEXT);
	const map = [...here.around].reverse().find((a) => a.map);
	if (map) {
		add("item", map.item);
		fields("item", map.item);
	}
	for (const a of here.around) {
		for (const [node, type] of a.previous ?? []) add(`${a.id}.previous.${node}`, entryType(type));
		if (a.carry) {
			add(`${a.id}.carry`, a.carryType);
			fields(`${a.id}.carry`, a.carryType);
		}
		if (a.ledger) add(`${a.id}.ledger`, OBLIGATIONS_TYPE);
	}
	for (const s of here.seen) {
		add(s.id, s.type);
		add(`${s.id}.output`, s.type);
		fields(`${s.id}.output`, s.type);
		add(`${s.id}.ok`, BOOLEAN);
		add(`${s.id}.error`, ERROR_TYPE);
		fields(`${s.id}.error`, ERROR_TYPE);
		if (s.agent) add(`${s.id}.handoff`, HANDOFF_TYPE);
		if (s.ledger) add(`${s.id}.ledger`, OBLIGATIONS_TYPE);
	}
	return out;
}

/** Whether a condition may read a value of this type: an agent's text and a person's free answer it may not. */
export function conditionReadable(r: Readable): boolean {
	return r.type?.kind !== "text" && r.type?.kind !== "freeString";
}
