/**
 * What the CLI prints: faults as `path:line:col: code: message` (paths relative to the working folder),
 * and one progress line per node on stderr.
 */
import { isAbsolute, relative } from "node:path";
import { type Fault, formatFault } from "../faults/index.ts";
import type { FlowEvent } from "../runtime/index.ts";
import { formatUsage } from "../runtime/index.ts";
import { reuseWords } from "../identity/index.ts";

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

/** Notes in the same `file:line:col:` form, marked `note:` so nobody reads them as faults. */
export function formatNotes(notes: readonly Fault[], cwd: string): string {
	return notes
		.map((f) => formatFault(f, displayPath(f.file, cwd)).replace(/^([^:]*:\d+:\d+: )/, "$1note: "))
		.join("\n");
}

/**
 * A progress reporter writing to `write` (stderr): a line when a turn starts (agent, model) and a line
 * when each visit ends (agent or kind, model, tokens, seconds, and why it failed).
 */
export function progressReporter(
	write: (line: string) => void,
	show: (path: string) => string = (p) => p,
): (event: FlowEvent) => void {
	const models = new Map<string, string>();
	return (event) => {
		if (event.type === "turn_start") {
			if (!models.has(event.path)) write(`▶ ${event.path} · ${event.agent} · ${event.model}`);
			models.set(event.path, event.model);
		} else if (event.type === "node_end") {
			const mark = event.ok ? "✓" : "✗";
			const why = event.ok ? "" : ` · ${event.error ?? "failed"}`;
			const model = models.get(event.path);
			const reuse = event.reuse ? reuseWords(event.reuse, show(event.reuse.from), event.path) : undefined;
			if (event.reuse?.outcome === "reused") write(`${mark} ${event.path} · ${event.agent ?? event.kind} · ${reuse}`);
			else
				write(
					`${mark} ${event.path} · ${event.agent ?? event.kind}${model ? ` · ${model}` : ""} · ${formatUsage(event.usage)}${why}${reuse ? ` · ${reuse}` : ""}`,
				);
		} else if (event.type === "provider_retry") {
			write(
				`↻ ${event.path} · ${event.reason}: request sent again in ${(event.delayMs / 1000).toFixed(1)}s (attempt ${event.attempt + 1})`,
			);
		}
	};
}
