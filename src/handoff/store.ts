/**
 * HANDOFF.md on disk. A write is atomic (temp file + rename), and the document it replaces is first kept
 * under `.pi/handoffs/<time>-<status>.md`, so no handoff is ever lost to the next one. Reads and writes
 * return a value or a reason; they never throw. All I/O goes through {@link FileOperations}, so tests
 * can inject failures.
 *
 *   await writeHandoff("/repo", doc) → { ok: true, path: "/repo/HANDOFF.md", archivedTo: "/repo/.pi/handoffs/2025-…-partial.md" }
 *   await readHandoff("/repo")       → { ok: true, doc, text, problems: [] } | { ok: false, reason: "missing", … }
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isLink, unsafeWrite } from "../fs-safe/index.ts";
import { writeFileAtomic } from "../package/index.ts";
import { type HandoffDocument, type HandoffProblem, parseHandoff, renderHandoff } from "./document.ts";

/** The file operations the handoff code needs; the default is the local disk. */
export interface FileOperations {
	/** Rejects with `code: "ENOENT"` when the file does not exist. */
	readFile(path: string): Promise<string>;
	/** Replaces the file whole or not at all. */
	writeFileAtomic(path: string, data: string): Promise<void>;
	/** Creates a new file; rejects with `code: "EEXIST"` rather than replace one. */
	writeFileExclusive(path: string, data: string): Promise<void>;
	/** Creates the directory and its parents; no error when it exists. */
	mkdir(path: string): Promise<void>;
}

/** Reads and writes the local disk. */
export const localFileOperations: FileOperations = {
	readFile: (path) => readFile(path, "utf8"),
	writeFileAtomic: (path, data) => writeFileAtomic(path, data, { encoding: "utf8" }),
	writeFileExclusive: (path, data) => writeFile(path, data, { encoding: "utf8", flag: "wx" }),
	mkdir: async (path) => {
		await mkdir(path, { recursive: true });
	},
};

/** The project directory pi keeps its own files in. */
export const PROJECT_CONFIG_DIR = ".pi";

/** Where the document lives: the project root, where the next agent and a human both look first. */
export function handoffPath(cwd: string): string {
	return join(cwd, "HANDOFF.md");
}

/** Where replaced documents are kept. */
export function handoffArchiveDir(cwd: string): string {
	return join(cwd, PROJECT_CONFIG_DIR, "handoffs");
}

/** A document read from disk, or why there is none. */
export type ReadHandoffResult =
	| { ok: true; path: string; doc: HandoffDocument; text: string; problems: HandoffProblem[] }
	| {
			ok: false;
			path: string;
			reason: "missing" | "unreadable" | "invalid";
			message: string;
			text?: string;
			problems: HandoffProblem[];
	  };

/** Reads HANDOFF.md; a document with only warnings is returned with them. */
export async function readHandoff(cwd: string, ops: FileOperations = localFileOperations): Promise<ReadHandoffResult> {
	const path = handoffPath(cwd);
	// A link would hand the next turn a file from outside the project (a key, a shell start-up file).
	if (isLink(path))
		return {
			ok: false,
			path,
			reason: "unreadable",
			message: `${path} is a symbolic link; pi-flows reads no handoff through a link.`,
			problems: [],
		};
	const read = await readText(path, ops);
	if (!read.ok) {
		const reason = read.missing ? "missing" : "unreadable";
		const message = read.missing ? `There is no ${path}.` : `Cannot read ${path}: ${read.message}`;
		return { ok: false, path, reason, message, problems: [] };
	}
	const parsed = parseHandoff(read.text);
	if (!parsed.value) {
		const first = parsed.problems.find((p) => p.severity === "error");
		const message = `${path} is not a handoff document${first ? ` (line ${first.line}: ${first.message})` : ""}.`;
		return { ok: false, path, reason: "invalid", message, text: read.text, problems: parsed.problems };
	}
	return { ok: true, path, doc: parsed.value, text: read.text, problems: parsed.problems };
}

/** A written document, with where the one it replaced was kept. */
export type WriteHandoffResult =
	| { ok: true; path: string; text: string; archivedTo?: string }
	| { ok: false; path: string; reason: "archive-failed" | "write-failed"; message: string };

// Two checkpoints in one tool batch must not interleave their archive-then-replace steps.
const queues = new Map<string, Promise<unknown>>();

/** Writes HANDOFF.md after keeping the previous one; if keeping it fails, nothing is overwritten. */
export function writeHandoff(
	cwd: string,
	doc: HandoffDocument,
	ops: FileOperations = localFileOperations,
): Promise<WriteHandoffResult> {
	const path = handoffPath(cwd);
	const previous = queues.get(path) ?? Promise.resolve();
	const next = previous.then(() => writeNow(cwd, path, doc, ops));
	const tail = next.finally(() => {
		if (queues.get(path) === tail) queues.delete(path);
	});
	queues.set(path, tail);
	return next;
}

async function writeNow(
	cwd: string,
	path: string,
	doc: HandoffDocument,
	ops: FileOperations,
): Promise<WriteHandoffResult> {
	const text = renderHandoff(doc);
	// A repository's HANDOFF.md may be a link out of it; neither the old text nor the new goes through one.
	const unsafe = unsafeWrite(path, [cwd]) ?? unsafeWrite(join(handoffArchiveDir(cwd), "archive.md"), [cwd]);
	if (unsafe) return { ok: false, path, reason: "write-failed", message: `Refused to write ${path}: ${unsafe}.` };
	const old = await readText(path, ops);
	if (!old.ok && !old.missing) {
		return {
			ok: false,
			path,
			reason: "archive-failed",
			message: `Cannot read the current ${path} to keep a copy: ${old.message}`,
		};
	}
	let archivedTo: string | undefined;
	if (old.ok && old.text !== text) {
		const kept = await archive(cwd, old.text, ops);
		if (!kept.ok) return { ok: false, path, reason: "archive-failed", message: kept.message };
		archivedTo = kept.path;
	}
	const written = await attempt(() => ops.writeFileAtomic(path, text));
	if (!written.ok)
		return { ok: false, path, reason: "write-failed", message: `Cannot write ${path}: ${written.message}` };
	return archivedTo ? { ok: true, path, text, archivedTo } : { ok: true, path, text };
}

/** The archive name comes from the old document's own time and status, so the folder reads as a history. */
async function archive(
	cwd: string,
	text: string,
	ops: FileOperations,
): Promise<{ ok: true; path: string } | { ok: false; message: string }> {
	const dir = handoffArchiveDir(cwd);
	const made = await attempt(() => ops.mkdir(dir));
	if (!made.ok) return { ok: false, message: `Cannot create ${dir}: ${made.message}` };
	const doc = parseHandoff(text).value;
	const stamp = safeName(doc?.writtenAt || new Date().toISOString());
	const base = `${stamp}-${doc ? doc.status : "unparsed"}`;
	// Exclusive creation picks the first free name even when another process archives at the same moment.
	for (let n = 0; n < 1000; n++) {
		const file = join(dir, `${base}${n === 0 ? "" : `-${n}`}.md`);
		const wrote = await attempt(() => ops.writeFileExclusive(file, text));
		if (wrote.ok) return { ok: true, path: file };
		if (wrote.code !== "EEXIST")
			return { ok: false, message: `Cannot keep the previous handoff as ${file}: ${wrote.message}` };
	}
	return {
		ok: false,
		message: `Cannot keep the previous handoff: 1000 archives named ${base} already exist in ${dir}.`,
	};
}

function safeName(text: string): string {
	return (
		text
			.replace(/[^A-Za-z0-9._-]+/g, "-")
			.replace(/^-+|-+$/g, "")
			.slice(0, 60) || "undated"
	);
}

/** Reads text, telling "absent" from "broken". Shared with the switch, whose settings files behave alike. */
export async function readText(
	path: string,
	ops: FileOperations,
): Promise<{ ok: true; text: string } | { ok: false; missing: boolean; message: string }> {
	const got = await attempt(() => ops.readFile(path));
	if (got.ok) return { ok: true, text: got.value };
	return { ok: false, missing: got.code === "ENOENT", message: got.message };
}

/** Runs one I/O step and turns a rejection into a value with the error's code. */
export async function attempt<T>(
	step: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; code?: string; message: string }> {
	try {
		return { ok: true, value: await step() };
	} catch (error) {
		const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined;
		return { ok: false, code, message: error instanceof Error ? error.message : String(error) };
	}
}
