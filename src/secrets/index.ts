/**
 * The one redaction every record pi-flows writes goes through (journal, events, transcripts, result, report,
 * stderr, cassettes, traces, pages): a writer calls it, a caller never has to remember to. This door is the
 * seam the writers import; what it knows (resolved provider keys, `auth.json` and `models.json` keys,
 * database passwords, the environment's `*_API_KEY`/`*_TOKEN` values) grows behind it.
 */
import { redact, rememberSecret as rememberPassword } from "./redact.ts";

export { MASK, redact, redactError, redactUrl } from "./redact.ts";

/** Remembers a secret so that every later {@link redactText} cuts it out. Returns it for chaining. */
export function rememberSecret(secret: string): string {
	return rememberPassword(secret);
}

/** The text with every known secret, and every password-shaped part, masked. Idempotent. */
export function redactText(text: string): string {
	return redact(text);
}

/** A JSON-shaped value with {@link redactText} applied to every string in it (keys kept); a new value. */
export function redactJson<T>(value: T): T {
	return redactDeep(value) as T;
}

function redactDeep(value: unknown): unknown {
	if (typeof value === "string") return redact(value);
	if (Array.isArray(value)) return value.map(redactDeep);
	if (value !== null && typeof value === "object") {
		const out: Record<string, unknown> = {};
		for (const [k, v] of Object.entries(value)) out[k] = redactDeep(v);
		return out;
	}
	return value;
}
