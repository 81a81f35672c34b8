/**
 * Writes that never leave half a file: temp file, fsync, rename (write-file-atomic), for snapshots,
 * usage files and results. The journal is the exception: it appends.
 */
import { createRequire } from "node:module";

// write-file-atomic ships no types; its sync API is what we need for run folders.
const require = createRequire(import.meta.url);
const writeFileAtomic = require("write-file-atomic") as { sync(path: string, data: string, options?: { fsync?: boolean }): void };

/** Replaces `path` with `text` atomically. */
export function writeAtomic(path: string, text: string): void {
	writeFileAtomic.sync(path, text, { fsync: true });
}
