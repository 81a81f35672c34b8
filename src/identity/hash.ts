/**
 * The hashing every identity part goes through: a value is written as canonical JSON (object keys sorted,
 * `undefined` dropped, as `JSON.stringify` drops it) and digested with SHA-256, so two values that mean the
 * same thing hash the same whatever order their keys were built in, and a part's hash changes only when
 * what it holds does.
 *
 *   digestOf({ b: 1, a: [2, "x"] }) === digestOf({ a: [2, "x"], b: 1 })   // true
 */
import { hash } from "node:crypto";

/** Hex characters kept of a SHA-256 digest: 128 bits, far past any collision a run's history could meet. */
const KEPT = 32;

/**
 * The SHA-256 of `text`, cut to {@link KEPT} hex characters. Node's one-shot `hash` gives the same hex as a
 * `createHash` stream at under half the cost for the short texts parts are: every visit hashes a dozen.
 */
export function digest(text: string): string {
	return hash("sha256", text).slice(0, KEPT);
}

/**
 * Canonical texts of objects promised never to change (tool schemas: the same object reaches every visit
 * of a run), by the object, so a schema of a kilobyte or more is written out once and not on every visit.
 */
const STABLE = new WeakMap<object, string>();

/**
 * Marks `value` as never changing from now on, so {@link canonical} writes it out once and reuses the text.
 * Only for objects nobody mutates (schemas, frozen definitions): a change after marking would not be seen.
 *
 *   canonical({ tools: [stable(schema)] })   // schema's text computed on the first call only
 */
export function stable<T extends object>(value: T): T {
	if (!STABLE.has(value)) STABLE.set(value, write(value));
	return value;
}

/** `value` as canonical JSON: keys sorted at every depth, so equal values give equal text. */
export function canonical(value: unknown): string {
	switch (typeof value) {
		case "object":
			return value === null ? "null" : (STABLE.get(value) ?? write(value));
		case "string":
			return JSON.stringify(value);
		case "boolean":
			return value ? "true" : "false";
		case "number":
			// What JSON.stringify writes: finite numbers as `String` does, the rest as null.
			return Number.isFinite(value) ? String(value) : "null";
		default:
			return JSON.stringify(value) ?? "null";
	}
}

/**
 * Object keys as JSON strings, by key: a run's identities use a few dozen names over and over, and
 * quoting them was a third of writing a small part.
 */
const QUOTED = new Map<string, string>();

function quoted(key: string): string {
	let q = QUOTED.get(key);
	if (q === undefined) {
		q = JSON.stringify(key);
		// Keys that come from data (read addresses) are many; the cache keeps the first few hundred only.
		if (QUOTED.size < 512) QUOTED.set(key, q);
	}
	return q;
}

// Written with string appends rather than arrays joined: a visit writes a dozen small parts, and the
// arrays were most of their cost.
function write(value: object): string {
	if (Array.isArray(value)) {
		let out = "[";
		for (let i = 0; i < value.length; i++) {
			const v = value[i];
			out += `${i ? "," : ""}${v === undefined ? "null" : canonical(v)}`;
		}
		return `${out}]`;
	}
	const keys = Object.keys(value);
	if (keys.length > 1) keys.sort();
	let out = "{";
	for (const k of keys) {
		const v = (value as Record<string, unknown>)[k];
		if (v === undefined || typeof v === "function") continue;
		out += `${out.length > 1 ? "," : ""}${quoted(k)}:${canonical(v)}`;
	}
	return `${out}}`;
}

/** Digests of the objects marked {@link stable}, by the object. */
const STABLE_DIGESTS = new WeakMap<object, string>();

/** The digest of a value's canonical JSON; a string is digested as itself (a prompt, a task). */
export function digestOf(value: unknown): string {
	if (typeof value === "string") return digest(value);
	if (value === null || typeof value !== "object" || !STABLE.has(value)) return digest(canonical(value));
	let d = STABLE_DIGESTS.get(value);
	if (d === undefined) STABLE_DIGESTS.set(value, (d = digest(canonical(value))));
	return d;
}
