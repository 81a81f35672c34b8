/**
 * An agent file's frontmatter as its peers read it. Claude Code and pi-subagents read `key: value` lines,
 * so a description such as `Use this agent when: the tests fail` loads there, where strict YAML refuses it
 * ("nested mappings are not allowed"). Strict YAML comes first; when it fails, each top-level plain value
 * (and its indented continuation lines) is read as text and the YAML parsed again, line for line, so every
 * key keeps its place in the file; a key written twice is its last line. The caller notes that it happened.
 *
 *   description: Use when: tests fail   →  { description: "Use when: tests fail" }, lenient: true
 */
import { type Document, LineCounter, parseDocument } from "yaml";

/** A frontmatter read: its data, the YAML document and line table (for keys' places), and how it was read. */
export interface Frontmatter {
	data: Record<string, unknown>;
	doc: Document;
	lines: LineCounter;
	/** The body after the closing fence. */
	body: string;
	/** Strict YAML refused it, with this first error, and its values were read as text. */
	lenient?: { error: string; line: number };
}

/** Reads the `---` block at the top of `text`, or says why it is not one. */
export function readFrontmatter(text: string): { ok: true; value: Frontmatter } | { ok: false; cause: string } {
	const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
	if (!match) return { ok: false, cause: "it has no `---` frontmatter" };
	const body = text.slice(match[0].length);
	let lines = new LineCounter();
	let doc = parseDocument(match[1], { lineCounter: lines });
	let lenient: Frontmatter["lenient"];
	if (doc.errors.length > 0) {
		const first = doc.errors[0];
		const retryLines = new LineCounter();
		// A key written twice is the last one, as a line-by-line reader takes it.
		const retry = parseDocument(asText(match[1]), { lineCounter: retryLines, uniqueKeys: false });
		if (retry.errors.length > 0)
			return { ok: false, cause: `its frontmatter is not valid YAML: ${first.message.split("\n")[0]}` };
		// The fence is line 1, so the frontmatter's first line is the file's second.
		lenient = { error: first.message.split("\n")[0], line: (first.linePos?.[0].line ?? 0) + 1 };
		doc = retry;
		lines = retryLines;
	}
	let data: unknown;
	try {
		// An alias is expanded here; a missing one or an alias bomb is yaml's exception, so the agent's fault.
		data = doc.toJS({ maxAliasCount: 100 });
	} catch (error) {
		const said = (error instanceof Error ? error.message : String(error)).split("\n")[0];
		return { ok: false, cause: `its frontmatter cannot be read: ${said}` };
	}
	if (!data || typeof data !== "object" || Array.isArray(data))
		return { ok: false, cause: "its frontmatter is not a mapping" };
	return {
		ok: true,
		value: { data: data as Record<string, unknown>, doc, lines, body, ...(lenient ? { lenient } : {}) },
	};
}

/**
 * The frontmatter with each top-level plain value quoted, its indented continuation lines folded into it
 * and left blank, so the line count and every key's line stay as written.
 */
function asText(yaml: string): string {
	const lines = yaml.split(/\r?\n/);
	for (let i = 0; i < lines.length; i++) {
		const m = /^([A-Za-z_][\w.-]*):[ \t]+(.*?)[ \t]*$/.exec(lines[i]);
		// Values YAML reads as something other than plain text (quoted, a list, a block, an anchor) stay YAML.
		if (!m?.[2] || /^["'[{|>&*!#]/.test(m[2])) continue;
		const at = i;
		let value = m[2];
		while (i + 1 < lines.length && /^[ \t]+\S/.test(lines[i + 1])) {
			value += ` ${lines[i + 1].trim()}`;
			lines[i + 1] = "";
			i++;
		}
		lines[at] = `${m[1]}: ${JSON.stringify(value)}`;
	}
	return lines.join("\n");
}
