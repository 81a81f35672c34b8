/**
 * Writes that never leave half a file: temp file, fsync, rename (write-file-atomic), for snapshots,
 * usage files and results. The journal is the exception: it appends.
 */
import { closeSync, constants, openSync, writeSync } from "node:fs";
import { isLink } from "../fs-safe/index.ts";
import { writeFileAtomic } from "../package/index.ts";
import { redactedJson } from "../secrets/index.ts";

/** Replaces `path` with `text` atomically; never through a link (write-file-atomic would follow one). */
export function writeAtomic(path: string, text: string): void {
	if (isLink(path)) throw new Error(`${path} is a symbolic link; pi-flows never writes through a link`);
	writeFileAtomic.sync(path, text, { fsync: true });
}

/**
 * Replaces `path` with `value` as indented JSON, every known secret masked: result.json, usage.json and
 * the drive's records all come through here, so none can carry a key a provider echoed.
 */
export function writeJsonAtomic(path: string, value: unknown): void {
	writeAtomic(path, `${redactedJson(value, 2)}\n`);
}

/** Appends one JSON line per value, every known secret masked, never through a link. */
export function appendJsonLines(path: string, values: readonly unknown[]): void {
	if (values.length) appendNoLink(path, `${values.map((v) => redactedJson(v)).join("\n")}\n`);
}

/** Flags to append to a run's own file: created when missing, and never opened through a link. */
export const APPEND_NO_LINK = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;

/** Appends `text` to one of the run's own files, never through a link. */
export function appendNoLink(path: string, text: string): void {
	const fd = openSync(path, APPEND_NO_LINK, 0o644);
	try {
		writeSync(fd, text);
	} finally {
		closeSync(fd);
	}
}
