/**
 * What the CLI prints: faults as `path:line:col: code: message` (paths relative to the working folder),
 * and one progress line per node on stderr.
 */
import { isAbsolute, relative } from "node:path";
import { type Fault, formatFault } from "../faults/index.ts";
import type { FlowEvent } from "../runtime/events.ts";
import { formatUsage } from "../runtime/usage.ts";

/** A path as a person in `cwd` would type it. */
export function displayPath(file: string, cwd: string): string {
	if (!isAbsolute(file)) return file;
	const rel = relative(cwd, file);
	return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : file;
}

/** Fault lines for a terminal. */
export function formatFaults(faults: readonly Fault[], cwd: string): string {
	return faults.map((f) => formatFault(f, displayPath(f.file, cwd))).join("\n");
}

/** A progress reporter writing to `write` (stderr): one line when a node starts, one when it ends. */
export function progressReporter(write: (line: string) => void): (event: FlowEvent) => void {
	return (event) => {
		if (event.type === "node_start") write(`▶ ${event.path} · ${event.agent ?? event.kind} · ${event.model ?? ""}`);
		else if (event.type === "node_end") {
			const mark = event.ok ? "✓" : "✗";
			const why = event.ok ? "" : ` · ${event.error ?? "failed"}`;
			write(`${mark} ${event.path} · ${event.agent ?? event.kind} · ${event.model ?? ""} · ${formatUsage(event.usage)}${why}`);
		}
	};
}
