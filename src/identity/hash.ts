/**
 * The hashing every identity part goes through: a value is written as canonical JSON (object keys sorted,
 * `undefined` dropped, as `JSON.stringify` drops it) and digested with SHA-256, so two values that mean the
 * same thing hash the same whatever order their keys were built in, and a part's hash changes only when
 * what it holds does.
 *
 *   digestOf({ b: 1, a: [2, "x"] }) === digestOf({ a: [2, "x"], b: 1 })   // true
 */
import { createHash } from "node:crypto";

/** Hex characters kept of a SHA-256 digest: 128 bits, far past any collision a run's history could meet. */
const KEPT = 32;

/** The SHA-256 of `text`, cut to {@link KEPT} hex characters. */
export function digest(text: string): string {
	return createHash("sha256").update(text).digest("hex").slice(0, KEPT);
}

/** `value` as canonical JSON: keys sorted at every depth, so equal values give equal text. */
export function canonical(value: unknown): string {
	if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
	if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : canonical(v))).join(",")}]`;
	const keys = Object.keys(value as Record<string, unknown>).sort();
	const parts: string[] = [];
	for (const k of keys) {
		const v = (value as Record<string, unknown>)[k];
		if (v === undefined || typeof v === "function") continue;
		parts.push(`${JSON.stringify(k)}:${canonical(v)}`);
	}
	return `{${parts.join(",")}}`;
}

/** The digest of a value's canonical JSON; a string is digested as itself (a prompt, a task). */
export function digestOf(value: unknown): string {
	return digest(typeof value === "string" ? value : canonical(value));
}
