/**
 * A run's seal: proof that a run folder is one this person's pi-flows made, here, and that its record
 * was not changed since. A resume runs what a snapshot says (agents, tools, check scripts), so a snapshot
 * a repository shipped, or one a turn's `write` edited, would otherwise run whatever it names.
 *
 * The key is 32 random bytes in the person's pi agent folder (`<agent dir>/pi-flows/run-key`, mode 0600),
 * never in the project. The seal file `seal` in the run folder holds one line per fact:
 *   line 1: `{"v":1,"dir":"<real run folder>","mac":"<HMAC(key, dir, snapshot.json's bytes)>"}`
 *   line k+1: the chained HMAC of the journal's line k (`HMAC(key, previous mac, line)`).
 * A journal line without its seal line was cut by a crash between the two appends: like a torn line,
 * the fact it held never happened, and the resume cuts it off before it appends.
 *
 * Example: `sealSnapshot(key, dir, text)` at the start; `journalSealer(key, dir, from)` wraps each
 * append; `verifyRun(key, dir)` → `{ ok: true, lines: 12 }` or `{ ok: false, why: "…" }`.
 */
import {
	closeSync,
	fsyncSync,
	mkdirSync,
	openSync,
	readFileSync,
	realpathSync,
	truncateSync,
	writeFileSync,
	writeSync,
} from "node:fs";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { join } from "node:path";
import { agentDir } from "../agents/index.ts";
import { APPEND_NO_LINK } from "./files.ts";

/** The seal file's name inside a run folder. */
export const SEAL_FILE = "seal";

/**
 * What a seal is over: a run folder's `snapshot.json`, or a drive's `drive.json` (src/drive keeps its
 * records in the repository's `.pi/drive`, sealed the same way). The domain keeps a run's seal from
 * passing for a drive's.
 */
export interface SealKind {
	domain: string;
	/** The file the first seal line covers. */
	head: string;
	/** What the messages call the sealed thing. */
	what: "run" | "drive";
}

/** A run folder's seal. */
export const RUN_SEAL: SealKind = { domain: "pi-flows run", head: "snapshot.json", what: "run" };

/** Where the person's run key lives: their pi agent folder, never the project. */
export function runKeyPath(dir: string = agentDir()): string {
	return join(dir, "pi-flows", "run-key");
}

/** The person's run key, made on first use; or why it cannot be had. */
export function runKey(dir: string = agentDir()): { ok: true; key: Buffer } | { ok: false; error: string } {
	const path = runKeyPath(dir);
	const read = (): Buffer | undefined => {
		try {
			const hex = readFileSync(path, "utf8").trim();
			return /^[0-9a-f]{64}$/.test(hex) ? Buffer.from(hex, "hex") : undefined;
		} catch {
			return undefined;
		}
	};
	const found = read();
	if (found) return { ok: true, key: found };
	try {
		mkdirSync(join(dir, "pi-flows"), { recursive: true, mode: 0o700 });
		// Exclusive: two first runs at once agree on the one key that won.
		writeFileSync(path, `${randomBytes(32).toString("hex")}\n`, { flag: "wx", mode: 0o600 });
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
			return { ok: false, error: `cannot make the run key ${path}: ${(error as Error).message}` };
		}
	}
	const made = read();
	if (made) return { ok: true, key: made };
	return {
		ok: false,
		error: `the run key ${path} is not 64 hex digits; remove it to make a new one (older runs then cannot be resumed)`,
	};
}

/** An HMAC over the parts, each length-prefixed: what a seal line or a sealed pointer holds. */
export function mac(key: Buffer, ...parts: string[]): string {
	const h = createHmac("sha256", key);
	for (const p of parts) h.update(`${Buffer.byteLength(p)}:`).update(p);
	return h.digest("hex");
}

/** Whether two seal lines are equal, in constant time. */
export function same(a: string, b: string): boolean {
	return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** The folder as the seal names it: its real path, so a copy or a move is another folder. */
function realDir(runDir: string): string {
	try {
		return realpathSync(runDir);
	} catch {
		return runDir;
	}
}

/** Starts the seal of a new run over its snapshot's exact text (or of a drive over its `drive.json`). */
export function sealSnapshot(key: Buffer, runDir: string, snapshotText: string, kind: SealKind = RUN_SEAL): string {
	const dir = realDir(runDir);
	const first = mac(key, kind.domain, dir, snapshotText);
	writeFileSync(join(runDir, SEAL_FILE), `${JSON.stringify({ v: 1, dir, mac: first })}\n`, { flag: "wx", mode: 0o600 });
	return first;
}

/** Seals each journal line as it is appended, continuing the chain from `previous`. */
export interface JournalSealer {
	/** Seals one appended line (without its newline); fsynced when the journal's append was. */
	seal(line: string, durable: boolean): void;
	close(): void;
}

/** A sealer appending to the run's seal file. */
export function journalSealer(key: Buffer, runDir: string, previous: string): JournalSealer {
	const fd = openSync(join(runDir, SEAL_FILE), APPEND_NO_LINK, 0o600);
	let last = previous;
	let closed = false;
	return {
		seal(line, durable) {
			if (closed) return;
			last = mac(key, last, line);
			writeSync(fd, `${last}\n`);
			if (durable) fsyncSync(fd);
		},
		close() {
			if (closed) return;
			closed = true;
			fsyncSync(fd);
			closeSync(fd);
		},
	};
}

/** A run folder whose record this person made here: how many journal lines are sealed, and the chain's end. */
export type Verified = { ok: true; lines: number; last: string; snapshot: string } | { ok: false; why: string };

/**
 * Checks a run folder's snapshot and journal against its seal. Anything else (no seal, another folder,
 * another key, a changed snapshot or journal line) is refused with the reason.
 */
export function verifyRun(key: Buffer, runDir: string, kind: SealKind = RUN_SEAL): Verified {
	let sealText: string;
	try {
		sealText = readFileSync(join(runDir, SEAL_FILE), "utf8");
	} catch {
		const why = `${runDir} has no seal: it was not made by this person's pi-flows (or by one older than the seal)`;
		return { ok: false, why: `${why}; a ${kind.what} folder from elsewhere is never resumed` };
	}
	const seals = sealText.split("\n");
	// A seal line cut mid-write (no newline) sealed nothing.
	seals.pop();
	let head: { v?: number; dir?: string; mac?: string };
	try {
		head = JSON.parse(seals[0] ?? "") as typeof head;
	} catch {
		return { ok: false, why: `${runDir}/${SEAL_FILE} is damaged` };
	}
	const dir = realDir(runDir);
	if (head.v !== 1 || typeof head.mac !== "string" || typeof head.dir !== "string") {
		return { ok: false, why: `${runDir}/${SEAL_FILE} is damaged` };
	}
	if (head.dir !== dir) {
		return {
			ok: false,
			why: `the ${kind.what} was made in ${head.dir}, not here (${dir}); a ${kind.what} folder copied or moved from elsewhere is never resumed`,
		};
	}
	let snapshot: string;
	try {
		snapshot = readFileSync(join(runDir, kind.head), "utf8");
	} catch (error) {
		return { ok: false, why: `${runDir} holds no readable ${kind.head}: ${(error as Error).message}` };
	}
	if (!same(mac(key, kind.domain, dir, snapshot), head.mac)) {
		const why = `${kind.head} of ${runDir} does not match its seal`;
		return {
			ok: false,
			why: `${why}: it was changed after the ${kind.what} started, or the ${kind.what} was made with another person's key`,
		};
	}
	let journal = "";
	try {
		journal = readFileSync(join(runDir, "journal.jsonl"), "utf8");
	} catch {
		// No journal yet: the run stopped before its first fact.
	}
	const lines = journal.split("\n");
	lines.pop();
	const sealed = seals.slice(1);
	if (sealed.length > lines.length) {
		return { ok: false, why: `journal.jsonl of ${runDir} is shorter than its seal: lines were removed` };
	}
	let last = head.mac;
	for (const [i, line] of lines.entries()) {
		if (i >= sealed.length) break;
		last = mac(key, last, line);
		if (!same(last, sealed[i])) {
			return {
				ok: false,
				why: `journal.jsonl of ${runDir} does not match its seal at line ${i + 1}: it was changed after it was written`,
			};
		}
	}
	return { ok: true, lines: sealed.length, last, snapshot };
}

/**
 * Cuts the journal back to its sealed lines, so the next life's appends continue the chain; says what it
 * cut, once, so a resume can tell the person (a line torn by the crash, or whole lines the crash left
 * without their seal).
 */
export function trimJournal(runDir: string, lines: number): string | undefined {
	const path = join(runDir, "journal.jsonl");
	let text: string;
	try {
		text = readFileSync(path, "utf8");
	} catch {
		return undefined;
	}
	let end = 0;
	for (let i = 0; i < lines; i++) end = text.indexOf("\n", end) + 1;
	const keep = Buffer.byteLength(text.slice(0, end));
	if (keep === Buffer.byteLength(text)) return undefined;
	truncateSync(path, keep);
	const cut = text.slice(end);
	const whole = cut.split("\n").length - 1;
	if (!cut.endsWith("\n"))
		return "the journal's last line was cut mid-write by the crash; that unfinished fact was dropped";
	return `${whole} journal line(s) written after the last seal were dropped: the crash came between each and its seal`;
}
