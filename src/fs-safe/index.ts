/**
 * Writes that stay where they were meant to go. A repository is third-party content: a committed
 * `HANDOFF.md -> ../../.bashrc`, or a `.pi/runs` that links to the home folder, would turn a write of
 * pi-flows' own file into a write of the person's. Every file pi-flows writes on its own account is asked
 * here first: a path that is a symbolic link, or whose folder resolves outside the allowed roots (the
 * project, the person's own folders), is refused with a sentence saying which and why.
 *
 * In: the path to write and the roots it must stay in. Out: undefined (safe) or the refusal.
 * Example: `unsafeWrite("/repo/HANDOFF.md", ["/repo"])` → "/repo/HANDOFF.md is a symbolic link (to
 * ../../.bashrc); pi-flows never writes through a link".
 *
 * The safe writers below ask it first and then write without following a link: a record pi-flows keeps in
 * a repository-controlled folder (`.pi/drive`, a run folder) can never become a write of the person's
 * files through a link the repository shipped or a turn's `bash` left behind.
 */
import { randomBytes } from "node:crypto";
import {
	closeSync,
	constants,
	fsyncSync,
	lstatSync,
	mkdirSync,
	openSync,
	readlinkSync,
	realpathSync,
	renameSync,
	rmSync,
	writeSync,
} from "node:fs";
import { dirname, join, resolve, sep } from "node:path";

/** The real location of `path`'s nearest existing ancestor (itself included), with what was missing below it. */
function realNearest(path: string): string {
	let dir = resolve(path);
	const missing: string[] = [];
	for (;;) {
		try {
			const real = realpathSync(dir);
			return missing.length ? resolve(real, ...missing.reverse()) : real;
		} catch {
			const parent = dirname(dir);
			if (parent === dir) return resolve(path);
			missing.push(dir.slice(parent.length).replace(/^[\\/]+/, ""));
			dir = parent;
		}
	}
}

/** Whether `path` (resolved, links followed where they exist) is `root` or inside it. */
export function resolvesInside(root: string, path: string): boolean {
	const r = realNearest(root);
	const p = realNearest(path);
	return p === r || p.startsWith(r.endsWith(sep) ? r : `${r}${sep}`);
}

/** Whether `path` exists as a symbolic link (a dangling one included). */
export function isLink(path: string): boolean {
	try {
		return lstatSync(path).isSymbolicLink();
	} catch {
		return false;
	}
}

/**
 * Why writing `path` would go through a link or leave `roots`; undefined when it is safe. The file itself
 * must not be a link (a rename would replace the link, but an in-place write or a read of the old
 * content for an archive would follow it), and its folder must resolve inside one of `roots`.
 */
export function unsafeWrite(path: string, roots: readonly string[]): string | undefined {
	const file = resolve(path);
	if (isLink(file)) {
		let target = "";
		try {
			target = ` (to ${readlinkSync(file)})`;
		} catch {
			// The link's target is only for the message.
		}
		return `${file} is a symbolic link${target}; pi-flows never writes through a link`;
	}
	if (!roots.some((root) => resolvesInside(root, dirname(file)))) {
		const outside = roots.map((r) => resolve(r)).join(" and ");
		return `${file} resolves to ${realNearest(file)}, outside ${outside}; pi-flows never writes there on a repository's say-so`;
	}
	return undefined;
}

const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;
const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

function refuseUnsafe(path: string, roots: readonly string[]): void {
	const why = unsafeWrite(path, roots);
	if (why) throw new Error(why);
}

/** Makes `dir` and its parents, refusing first when it would be made through a link or outside `roots`. */
export function safeMkdir(dir: string, roots: readonly string[]): void {
	refuseUnsafe(dir, roots);
	mkdirSync(dir, { recursive: true });
	// Made: it must still be where it was meant to be (a link put in its way meanwhile is refused).
	refuseUnsafe(dir, roots);
}

/** Replaces `path` with `text` whole: a temp file beside it (made exclusively, never through a link), fsync, rename. */
export function safeWrite(path: string, text: string, roots: readonly string[]): void {
	refuseUnsafe(path, roots);
	const temp = join(dirname(path), `.${randomBytes(6).toString("hex")}.tmp`);
	const fd = openSync(temp, CREATE, 0o644);
	let written = false;
	try {
		writeSync(fd, text);
		fsyncSync(fd);
		written = true;
	} finally {
		closeSync(fd);
		if (!written) rmSync(temp, { force: true });
	}
	// rename replaces a link at `path` rather than following it (and the check above refused one).
	renameSync(temp, path);
}

/** Opens `path` for appending (created when missing), never through a link nor outside `roots`; the caller closes it. */
export function safeAppendFd(path: string, roots: readonly string[]): number {
	refuseUnsafe(path, roots);
	return openSync(path, APPEND, 0o644);
}
