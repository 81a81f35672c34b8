/**
 * The handoff document: the only memory that survives a context reset or a new session, so it must come
 * back from disk exactly as it was written. Input: a {@link HandoffDocument}; output: `HANDOFF.md` text, and
 * back again with {@link parseHandoff}, which reports problems instead of throwing.
 *
 *   renderHandoff({ status: "partial", summary: "Parser done.", decisions: [], artifacts: ["src/p.ts"],
 *     next_task: "Write the checker.", writtenAt: "2025-01-01T00:00:00.000Z", by: "finish" })
 *   → "# HANDOFF — 2025-…\n\n## Status\npartial\n\n## What was done\nParser done.\n\n…\n---\nhandoff-format: pi-flows/1\n…"
 */

/** Every status a document can carry, in the order the tools list them. */
export const HANDOFF_STATUSES = ["done", "partial", "blocked", "in-progress"] as const;

/** `done`: contract met; `partial`: stopped early, rest in next_task; `blocked`: needs a human; `in-progress`: a checkpoint. */
export type HandoffStatus = (typeof HANDOFF_STATUSES)[number];

/** Which tool wrote the document, so a driver can tell a landing from a mid-task save. */
export type HandoffAuthor = "finish" | "checkpoint";

/** What one agent leaves for the next one (or for itself after a reset). */
export interface HandoffDocument {
	status: HandoffStatus;
	/** What was accomplished, in the agent's words. */
	summary: string;
	/** One line each, with the reason; `[]` when none. */
	decisions: string[];
	/** Paths of files created or changed; `[]` when none. */
	artifacts: string[];
	/** Self-contained instructions for a fresh agent; absent when the chain ends here. */
	next_task?: string;
	/** What needs a human or is at risk; absent when nothing. */
	blocked?: string;
	/** ISO time of writing. */
	writtenAt: string;
	/** The session file that wrote it; absent for in-memory sessions. */
	session?: string;
	/** Context used when written, as a fraction of the window (0.42, not 42). */
	contextAtWrite?: number;
	by: HandoffAuthor;
}

/** Stable codes; tests and tools rely on them, never on the message. */
export type HandoffProblemCode =
	| "missing-section"
	| "duplicate-section"
	| "unknown-section"
	| "bad-status"
	| "bad-list-item"
	| "missing-footer-field"
	| "bad-footer-field"
	| "unknown-footer-field";

/** Something wrong with a document's text; errors leave no value, warnings fall back to a default. */
export interface HandoffProblem {
	code: HandoffProblemCode;
	severity: "error" | "warning";
	/** 1-based line of the text given to the parser. */
	line: number;
	message: string;
}

/** A parse: a value when there is no error, and every problem found either way. */
export interface ParsedHandoff {
	value?: HandoffDocument;
	problems: HandoffProblem[];
}

/** Written in the footer so a later format can be told apart. */
export const HANDOFF_FORMAT = "pi-flows/1";

const HEADINGS = {
	status: "Status",
	summary: "What was done",
	decisions: "Key decisions",
	artifacts: "Artifacts",
	next: "Next task",
	blocked: "Open issues / risks",
} as const;

type SectionKey = keyof typeof HEADINGS;

const NONE_LIST = "(none)";
const NONE_NEXT = "(none — chain ends here)";
const NONE_BLOCKED = "(none)";
const FOOTER_RULE = "---";

/**
 * Lines the reader treats as structure get one leading backslash, and so do lines that already start with
 * one, so removing exactly one backslash on read restores any text.
 */
function escapeLine(line: string): string {
	return /^(\\|## |---|\(none)/.test(line) ? `\\${line}` : line;
}

function unescapeLine(line: string): string {
	return line.startsWith("\\") ? line.slice(1) : line;
}

function blockLines(value: string): string[] {
	return value.split("\n").map(escapeLine);
}

function listLines(items: readonly string[]): string[] {
	if (items.length === 0) return [NONE_LIST];
	return items.flatMap((item) => item.split("\n").map((line, i) => (i === 0 ? `- ${line}` : `  ${line}`)));
}

/** A footer value is written bare when a hand editor cannot damage it, else as a JSON string. */
function footerValue(value: string): string {
	const bare = value !== "" && value === value.trim() && !value.startsWith('"') && !/[\u0000-\u001f\u007f]/.test(value);
	return bare ? value : JSON.stringify(value);
}

/** The Markdown of a document; {@link parseHandoff} gives the same document back. */
export function renderHandoff(doc: HandoffDocument): string {
	const titleTime = footerValue(doc.writtenAt) === doc.writtenAt ? ` — ${doc.writtenAt}` : "";
	const out = [`# HANDOFF${titleTime}`, ""];
	const section = (key: SectionKey, body: string[]) => out.push(`## ${HEADINGS[key]}`, ...body, "");
	section("status", [doc.status]);
	section("summary", blockLines(doc.summary));
	section("decisions", listLines(doc.decisions));
	section("artifacts", listLines(doc.artifacts));
	section("next", doc.next_task === undefined ? [NONE_NEXT] : blockLines(doc.next_task));
	section("blocked", doc.blocked === undefined ? [NONE_BLOCKED] : blockLines(doc.blocked));
	out.push(
		FOOTER_RULE,
		`handoff-format: ${HANDOFF_FORMAT}`,
		`by: ${doc.by}`,
		`written-at: ${footerValue(doc.writtenAt)}`,
	);
	if (doc.session !== undefined) out.push(`session: ${footerValue(doc.session)}`);
	if (doc.contextAtWrite !== undefined) out.push(`context-at-write: ${String(doc.contextAtWrite)}`);
	return `${out.join("\n")}\n`;
}

/** True when no fresh agent should be started from this document: nothing left to do, or a human is needed. */
export function isChainEnd(doc: HandoffDocument): boolean {
	return doc.status === "blocked" || doc.next_task === undefined || doc.next_task.trim() === "";
}

type Report = (code: HandoffProblemCode, severity: HandoffProblem["severity"], line: number, message: string) => void;

interface Body {
	lines: string[];
	/** 1-based line of the heading. */
	line: number;
}

/** Reads a document back; never throws. Errors (no status, no summary, a section twice) leave no value. */
export function parseHandoff(markdown: string): ParsedHandoff {
	const problems: HandoffProblem[] = [];
	const report: Report = (code, severity, line, message) => void problems.push({ code, severity, line, message });
	let text = markdown.startsWith("\uFEFF") ? markdown.slice(1) : markdown;
	// A file saved by a CRLF editor is read as if it were LF; a single stray CR inside a value is kept.
	if (text.includes("\r\n") && !/(^|[^\r])\n/.test(text)) text = text.replaceAll("\r\n", "\n");
	const lines = text.split("\n");
	const headingAt = lines.flatMap((line, i) => (line.startsWith("## ") ? [i] : []));
	const lastHeading = headingAt.at(-1) ?? lines.length;
	const footerRule = lines.indexOf(FOOTER_RULE, lastHeading + 1);
	const contentEnd = footerRule >= 0 ? footerRule : lines.length;
	const bodies = new Map<SectionKey, Body>();
	headingAt.forEach((at, n) => {
		const title = lines[at].slice(3).trim();
		const key = (Object.keys(HEADINGS) as SectionKey[]).find((k) => HEADINGS[k] === title);
		let body = lines.slice(at + 1, headingAt[n + 1] ?? contentEnd);
		// The blank line before the next heading is layout, not part of the value.
		if (body.at(-1) === "") body = body.slice(0, -1);
		if (key === undefined) report("unknown-section", "warning", at + 1, `Unknown section "## ${title}" is ignored.`);
		else if (bodies.has(key)) report("duplicate-section", "error", at + 1, `Section "## ${title}" appears twice.`);
		else bodies.set(key, { lines: body, line: at + 1 });
	});
	const missing = (key: SectionKey, severity: HandoffProblem["severity"]) => {
		if (!bodies.has(key)) report("missing-section", severity, 1, `No "## ${HEADINGS[key]}" section.`);
		return bodies.get(key);
	};
	const block = (body: Body) => body.lines.map(unescapeLine).join("\n");
	const optionalBlock = (body: Body | undefined) =>
		body === undefined || (body.lines.length === 1 && body.lines[0].startsWith("(none")) ? undefined : block(body);

	const statusBody = missing("status", "error");
	const statusText = statusBody?.lines.join("\n").trim();
	const status = HANDOFF_STATUSES.find((s) => s === statusText);
	if (statusBody && !status) {
		// At the status's first written line; an empty status is reported at its heading.
		const written = statusBody.lines.findIndex((l) => l.trim() !== "");
		report(
			"bad-status",
			"error",
			written >= 0 ? statusBody.line + 1 + written : statusBody.line,
			`Status "${statusText}" is not one of ${HANDOFF_STATUSES.join(", ")}.`,
		);
	}
	const summaryBody = missing("summary", "error");
	const decisions = parseList(missing("decisions", "warning"), report);
	const artifacts = parseList(missing("artifacts", "warning"), report);
	const next_task = optionalBlock(missing("next", "warning"));
	const blocked = optionalBlock(missing("blocked", "warning"));
	// A missing footer field is reported at the rule that opens the footer (line 1 with no footer at all).
	const footer = parseFooter(
		footerRule >= 0 ? lines.slice(footerRule + 1) : [],
		footerRule + 2,
		footerRule + 1 || 1,
		report,
	);

	if (problems.some((p) => p.severity === "error") || !status || !summaryBody) return { problems };
	const value: HandoffDocument = { status, summary: block(summaryBody), decisions, artifacts, ...footer };
	if (next_task !== undefined) value.next_task = next_task;
	if (blocked !== undefined) value.blocked = blocked;
	return { value, problems };
}

function parseList(body: Body | undefined, report: Report): string[] {
	if (body === undefined || (body.lines.length === 1 && body.lines[0] === NONE_LIST)) return [];
	const items: string[] = [];
	let blanks = 0;
	body.lines.forEach((line, i) => {
		const bullet = /^[-*]( |$)/.exec(line);
		if (bullet) {
			items.push(line.slice(bullet[0].length));
		} else if (line === "") {
			blanks++;
			return;
		} else if (line.startsWith("  ") && items.length > 0) {
			// Blank lines an editor trimmed out of an item are empty continuation lines.
			items[items.length - 1] += "\n".repeat(blanks + 1) + line.slice(2);
		} else {
			report(
				"bad-list-item",
				"warning",
				body.line + i + 1,
				"A list line that is neither `- item` nor indented; read as an item.",
			);
			items.push(line);
		}
		blanks = 0;
	});
	return items;
}

interface Footer {
	by: HandoffAuthor;
	writtenAt: string;
	session?: string;
	contextAtWrite?: number;
}

function parseFooter(lines: readonly string[], firstLine: number, ruleLine: number, report: Report): Footer {
	const fields = new Map<string, { value: string; line: number }>();
	for (const [i, line] of lines.entries()) {
		if (line.trim() === "") continue;
		const m = /^([A-Za-z-]+):(.*)$/.exec(line);
		const at = firstLine + i;
		if (!m) {
			report("bad-footer-field", "warning", at, "A footer line that is not `key: value` is ignored.");
			continue;
		}
		const raw = m[2].trim();
		if (!raw.startsWith('"')) {
			fields.set(m[1], { value: raw, line: at });
			continue;
		}
		const decoded = decodeJsonString(raw);
		if (decoded === undefined)
			report("bad-footer-field", "warning", at, `Footer field "${m[1]}" is not a valid quoted string.`);
		else fields.set(m[1], { value: decoded, line: at });
	}
	const take = (key: string) => {
		const field = fields.get(key);
		fields.delete(key);
		return field;
	};
	const format = take("handoff-format");
	if (format && format.value !== HANDOFF_FORMAT) {
		report(
			"bad-footer-field",
			"warning",
			format.line,
			`Unknown handoff-format "${format.value}"; read as ${HANDOFF_FORMAT}.`,
		);
	}
	const by = take("by");
	const writtenAt = take("written-at");
	const session = take("session");
	const context = take("context-at-write");
	for (const [key, field] of fields)
		report("unknown-footer-field", "warning", field.line, `Unknown footer field "${key}" is ignored.`);
	if (!by) report("missing-footer-field", "warning", ruleLine, 'No "by:" in the footer; read as finish.');
	else if (by.value !== "finish" && by.value !== "checkpoint") {
		report(
			"bad-footer-field",
			"warning",
			by.line,
			`"by: ${by.value}" is neither finish nor checkpoint; read as finish.`,
		);
	}
	if (!writtenAt) report("missing-footer-field", "warning", ruleLine, 'No "written-at:" in the footer.');
	const footer: Footer = {
		by: by?.value === "checkpoint" ? "checkpoint" : "finish",
		writtenAt: writtenAt?.value ?? "",
	};
	if (session) footer.session = session.value;
	if (context) {
		const n = context.value.trim() === "" ? Number.NaN : Number(context.value);
		if (Number.isFinite(n) && n >= 0) footer.contextAtWrite = n;
		else
			report(
				"bad-footer-field",
				"warning",
				context.line,
				`context-at-write "${context.value}" is not a fraction; ignored.`,
			);
	}
	return footer;
}

function decodeJsonString(raw: string): string | undefined {
	try {
		const value: unknown = JSON.parse(raw);
		return typeof value === "string" ? value : undefined;
	} catch {
		// Malformed quoting is reported by the caller as a bad field; nothing else can go wrong here.
		return undefined;
	}
}
