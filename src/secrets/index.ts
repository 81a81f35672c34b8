/**
 * The one redaction every record pi-flows writes goes through (journal, events, transcripts, result, report,
 * stderr, cassettes, traces, pages): a writer calls it, a caller never has to remember to. It knows the
 * secrets it was told ({@link rememberSecret}: database passwords, the keys pi resolved for a request), and
 * learns by itself, once per process, the environment's key-shaped variables (`*_API_KEY`, `*_TOKEN`, ...)
 * and the credentials of the person's pi agent folder (`auth.json`, `models.json`).
 */
import { agentDir } from "../agents/locations.ts";
import { learnSecrets } from "./learn.ts";
import { redact, rememberSecret as rememberPassword } from "./redact.ts";

export { MASK, redact, redactError, redactUrl } from "./redact.ts";
export { learnAuth, learnSecrets, SECRET_ENV_NAME } from "./learn.ts";
export { maskShapes, shapeMask } from "./shapes.ts";

let ambient = false;

/** Learns the process's own environment and agent folder the first time anything is redacted. */
function learnAmbient(): void {
	if (ambient) return;
	ambient = true;
	learnSecrets({ env: process.env, agentDir: agentDir(process.env) });
}

/** Remembers a secret so that every later {@link redactText} cuts it out. Returns it for chaining. */
export function rememberSecret(secret: string): string {
	return rememberPassword(secret);
}

/** The text with every known secret, and every password-shaped part, masked. Idempotent. */
export function redactText(text: string): string {
	learnAmbient();
	return redact(text);
}

/** A JSON-shaped value with {@link redactText} applied to every string in it (keys kept); a new value. */
export function redactJson<T>(value: T): T {
	learnAmbient();
	return redactDeep(value) as T;
}

/** `JSON.stringify` of the value redacted: what every JSON record writer writes. */
export function redactedJson(value: unknown, indent?: number): string {
	return JSON.stringify(redactJson(value), null, indent);
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
