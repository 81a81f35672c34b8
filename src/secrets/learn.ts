/**
 * What pi-flows knows to be secret without being told: the environment's key-shaped variables and the
 * person's pi credentials (`auth.json`, `models.json`). A provider that echoes its key in an error body,
 * or a check script that prints `env`, would otherwise put it in every record of the run.
 *
 * In: an environment and a pi agent folder. Out: the secrets, remembered for redaction.
 * Example: `learnSecrets({ env: { OPENAI_API_KEY: "sk-…" }, agentDir })` → every later `redactText`
 * masks `sk-…`, and the keys `auth.json` and `models.json` hold.
 *
 * Nothing is executed: a `!command` key is learned when pi resolves it (src/pi asks for the auth of every
 * model it opens and hands the key here), never by running the command a second time.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { rememberSecret } from "./redact.ts";

/**
 * A value this short is not learned from the environment or a file: `FOO_TOKEN=true` or a four-letter
 * placeholder would mask ordinary words everywhere. Real keys and tokens are far longer.
 */
const SHORTEST_LEARNED = 8;

/** Variables whose value is a credential by name: `OPENAI_API_KEY`, `GITHUB_TOKEN`, `PGPASSWORD`. */
export const SECRET_ENV_NAME = /(?:_API_KEY|_APIKEY|_TOKEN|_SECRET|_SECRET_KEY|_ACCESS_KEY|_PASSWORD)$|^PGPASSWORD$/i;

function learn(value: unknown): void {
	if (typeof value === "string" && value.trim().length >= SHORTEST_LEARNED) rememberSecret(value.trim());
}

/**
 * A configured value as pi resolves it without running anything: a literal, or `$VAR`/`${VAR}` from the
 * environment. A `!command` is left to the request-time resolution (and learned there).
 */
function resolved(value: unknown, env: NodeJS.ProcessEnv): string[] {
	if (typeof value !== "string" || value.startsWith("!")) return [];
	const out: string[] = [];
	const literal = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_m, a, b) => {
		const name = (a ?? b) as string;
		const v = env[name];
		if (v) out.push(v);
		return v ?? "";
	});
	out.push(literal);
	return out;
}

function readJson(path: string): unknown {
	try {
		return JSON.parse(readFileSync(path, "utf8"));
	} catch {
		// No file, or not JSON: pi itself says so; there is nothing to learn from it.
		return undefined;
	}
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** Every string under a value: an OAuth entry's `access` and `refresh`, a stored key, its `env`. */
function everyString(value: unknown, into: (s: string) => void): void {
	if (typeof value === "string") into(value);
	else if (Array.isArray(value)) for (const v of value) everyString(v, into);
	else if (isObject(value)) for (const v of Object.values(value)) everyString(v, into);
}

/** Where to learn from. */
export interface LearnFrom {
	env?: NodeJS.ProcessEnv;
	/** The pi agent folder whose `auth.json` and `models.json` hold the person's credentials. */
	agentDir?: string;
}

/** Remembers the secrets of an environment and an agent folder; safe to call again (a set remembers them once). */
export function learnSecrets(from: LearnFrom): void {
	const env = from.env ?? {};
	for (const [name, value] of Object.entries(env)) if (SECRET_ENV_NAME.test(name)) learn(value);
	if (!from.agentDir) return;
	const auth = readJson(join(from.agentDir, "auth.json"));
	if (isObject(auth)) {
		for (const entry of Object.values(auth)) {
			if (!isObject(entry)) continue;
			// The type and the expiry are not secret; everything else an entry holds is a credential.
			const { type: _type, expires: _expires, ...rest } = entry;
			everyString(rest, (s) => {
				for (const v of resolved(s, env)) learn(v);
			});
		}
	}
	const models = readJson(join(from.agentDir, "models.json"));
	const providers = isObject(models) && isObject(models.providers) ? models.providers : {};
	for (const provider of Object.values(providers)) {
		if (!isObject(provider)) continue;
		for (const v of resolved(provider.apiKey, env)) learn(v);
		if (isObject(provider.headers)) for (const h of Object.values(provider.headers)) learnHeader(h, env);
	}
}

/** A header value (`Bearer sk-…`, `$TOKEN`): the credential part of it. */
function learnHeader(value: unknown, env: NodeJS.ProcessEnv): void {
	for (const v of resolved(value, env)) {
		learn(v);
		const bearer = /^(?:Bearer|Basic|Token)\s+(\S+)$/i.exec(v.trim());
		if (bearer) learn(bearer[1]);
	}
}

/** Remembers what a request's auth resolved to: its key, the credential part of its headers, its env values. */
export function learnAuth(auth: {
	apiKey?: string;
	headers?: Record<string, string | null | undefined>;
	env?: Record<string, string | null | undefined>;
}): void {
	learn(auth.apiKey);
	for (const h of Object.values(auth.headers ?? {})) learnHeader(h, {});
	for (const [name, v] of Object.entries(auth.env ?? {})) if (SECRET_ENV_NAME.test(name)) learn(v);
}
