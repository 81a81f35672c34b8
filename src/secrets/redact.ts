/**
 * Credentials never reach a message, a log line, an event or an error: everything the distributed backend
 * prints about its database goes through {@link redact} first. Postgres and `pg` can echo a connection string
 * (a malformed URL, a DNS failure naming the whole string, a driver's debug text), so redaction works on any
 * text, not only on URLs we built: the passwords of every database URL this process has parsed are
 * remembered and cut out wherever they appear, and password-shaped parts of URLs and `key=value` strings are
 * masked even when the password was never seen.
 */

/** What stands where a password was. */
export const MASK = "***";

/** Passwords of the URLs parsed in this process, in every spelling a message could carry them. */
const secrets = new Set<string>();
/** {@link secrets}, longest first, made again only when one was added: redaction runs at every write. */
let longestFirst: string[] = [];

/**
 * A password shorter than this is not cut out of arbitrary text by itself (a password "1" would turn every
 * digit 1 into the mask); the URL and `password=` patterns still mask it where it stands as a password.
 */
const SHORTEST_LITERAL = 4;

/**
 * Remembers a password so that {@link redact} removes it from any text from now on, raw and in the
 * percent-encoded and decoded spellings a URL gives it. Returns the password for chaining.
 */
export function rememberSecret(password: string): string {
	if (password.length === 0) return password;
	const spellings = new Set([password, encodeURIComponent(password)]);
	try {
		spellings.add(decodeURIComponent(password));
	} catch {
		// Not valid percent-encoding: the raw spelling is the only one.
	}
	const before = secrets.size;
	for (const s of spellings) if (s.length >= SHORTEST_LITERAL) secrets.add(s);
	if (secrets.size !== before) longestFirst = [...secrets].sort((a, b) => b.length - a.length);
	return password;
}

/** `scheme://user:password@` (the password running to the last `@` of the token, so a raw `@` in it is covered). */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@'"`]*):[^\s'"`]*@/gi;
/** The shape hints print (`postgres://USER:PASSWORD@HOST…`): not a password, so not masked. */
const PLACEHOLDER = ":PASSWORD@";
/**
 * `password=…`, `PGPASSWORD=…`, `"password": "…"`, `password: …` as libpq, env and JSON spell them. A quoted
 * value runs past its escaped quotes and a bare one stops at a backslash, so masking the text of a JSON
 * line never leaves a quote unescaped in it.
 */
const KEY_PASSWORD =
	/\b((?:pg)?(?:passw(?:or)?d|pwd)\b["']?\s*[=:]\s*)("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^\s,;&}"'\\]+)/gi;

/**
 * The text with every password in it replaced by {@link MASK}: the remembered ones wherever they occur,
 * URL userinfo passwords and `password=` values whatever they are. Idempotent; leaves user names, hosts,
 * ports and database names alone, since those are what a reader needs to fix a connection.
 */
export function redact(text: string): string {
	let out = text;
	// Longest first, so a password that contains another remembered one is cut whole.
	for (const s of longestFirst) if (out.includes(s)) out = out.split(s).join(MASK);
	out = out.replace(URL_PASSWORD, (whole, head: string) => (whole.endsWith(PLACEHOLDER) ? whole : `${head}:${MASK}@`));
	out = out.replace(KEY_PASSWORD, (_m, head: string, value: string) => {
		const quote = value[0] === '"' || value[0] === "'" ? value[0] : "";
		return `${head}${quote}${MASK}${quote}`;
	});
	return out;
}

/**
 * A database URL as it may be shown: the password (if any) masked, everything else kept. A text that is not
 * a URL is still {@link redact}ed rather than returned as is.
 */
export function redactUrl(url: string): string {
	try {
		const parsed = new URL(url);
		if (parsed.password) parsed.password = MASK;
		return redact(parsed.toString());
	} catch {
		return redact(url);
	}
}

/**
 * Any thrown value as one line of redacted text: an `Error`'s message (and its `code`, when it has one),
 * or the value's string form. The stack is left out: it repeats the message and names our files.
 */
export function redactError(error: unknown): string {
	if (error instanceof Error) {
		const code = (error as { code?: unknown }).code;
		const text = error.message || error.name;
		return redact(typeof code === "string" && !text.includes(code) ? `${text} (${code})` : text);
	}
	return redact(String(error));
}
