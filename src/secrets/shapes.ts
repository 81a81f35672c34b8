/**
 * Secret-shaped values: text that looks like a credential whether or not this process was ever told it
 * (a key a tool printed, a token a model repeated). The remembered-secret redaction cannot know these; a
 * record meant to be committed (a cassette) masks them too, and names each kind it masked, so the person
 * sees what was in the run and can refuse to write it (`record --strict`).
 *
 *   maskShapes("key sk-proj-abcdefghijklmnop1234")
 *     → { text: "key [redacted: openai-key]", found: ["openai-key"] }
 */

/** One shape: its name and the pattern of the whole value. */
interface Shape {
	name: string;
	pattern: RegExp;
}

/**
 * The shapes, most specific first (an Anthropic key is also `sk-` shaped). Each demands enough characters
 * after its prefix that prose (`sk-learn`, `AKIA` in a sentence) does not match.
 */
const SHAPES: readonly Shape[] = [
	{ name: "private-key", pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g },
	{ name: "anthropic-key", pattern: /\bsk-ant-[A-Za-z0-9_-]{16,}/g },
	{ name: "openai-key", pattern: /\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}/g },
	{ name: "aws-access-key", pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g },
	{ name: "github-token", pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/g },
	{ name: "slack-token", pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g },
	{ name: "google-api-key", pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
];

/** What a masked value is replaced with: the kind stays readable in a diff, the value is gone. */
export function shapeMask(name: string): string {
	return `[redacted: ${name}]`;
}

/** The text with every secret-shaped value masked, and the kinds found (one entry per value, in order). */
export function maskShapes(text: string): { text: string; found: string[] } {
	const found: string[] = [];
	let out = text;
	for (const shape of SHAPES) {
		out = out.replace(shape.pattern, () => {
			found.push(shape.name);
			return shapeMask(shape.name);
		});
	}
	return { text: out, found };
}
