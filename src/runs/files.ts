/**
 * Writes that never leave half a file: temp file, fsync, rename (write-file-atomic), for snapshots,
 * usage files and results. The journal is the exception: it appends.
 */
import { writeFileAtomic } from "../package/index.ts";

/** Replaces `path` with `text` atomically. */
export function writeAtomic(path: string, text: string): void {
	writeFileAtomic.sync(path, text, { fsync: true });
}
