/**
 * A pane per visit that asks for one: an event observer that writes the visit's turns (its messages and
 * tool calls) to a file and opens a terminal pane following that file, closed when the visit ends. Where no
 * terminal offers panes, the first visit that asks gets one note, never an error.
 *
 *   turn_start deliver/code (pane)  →  /tmp/pi-flows-panes-x/deliver_code.log, tmux pane `coder @ deliver/code`
 *   tool_call / message            →  appended to that file
 *   node_end deliver/code           →  pane closed, file removed
 */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EventSink, FlowEvent } from "../runtime/index.ts";
import { detectPaneBackend, type PaneBackend } from "./backend.ts";

/** What a watcher needs; every field has a default taken from the process. */
export interface PaneOptions {
	/** Default: the one the environment offers (`detectPaneBackend`). `null`: none. */
	backend?: PaneBackend | null;
	env?: NodeJS.ProcessEnv;
	/** Where a visit that asks for a pane is told none opens. Default: nowhere. */
	note?: (text: string) => void;
}

/** An event sink that opens and closes panes, and `close()` for whatever is still open when the run ends. */
export interface PaneWatcher {
	onEvent: EventSink;
	/** Closes every pane still open; called when the run ends, whoever ends it. */
	close(): Promise<void>;
	/** Panes opened so far, by visit path (for tests and the summary). */
	readonly opened: ReadonlyMap<string, string>;
}

interface Open {
	file: string;
	id: Promise<string | undefined>;
}

/** Watches a run's events for visits that ask for a pane. */
export function paneWatcher(options: PaneOptions = {}): PaneWatcher {
	const backend = options.backend === undefined ? detectPaneBackend(options.env) : (options.backend ?? undefined);
	const open = new Map<string, Open>();
	const opened = new Map<string, string>();
	let dir: string | undefined;
	let noted = false;
	const write = (path: string, text: string) => {
		const o = open.get(path);
		if (!o) return;
		try {
			appendFileSync(o.file, text);
		} catch {
			// The file went with its pane; a display concern is never the run's.
		}
	};
	const shut = async (path: string) => {
		const o = open.get(path);
		if (!o) return;
		open.delete(path);
		const id = await o.id;
		if (id && backend) await backend.close(id);
		rmSync(o.file, { force: true });
	};
	const onEvent = (event: FlowEvent) => {
		if (event.type === "turn_start" && event.pane) {
			if (!backend) {
				const text = `\`${event.path}\` asks for a pane, but this terminal is neither tmux nor herdr: the visit runs without one`;
				if (!noted) options.note?.(text);
				noted = true;
				return;
			}
			if (open.has(event.path)) return write(event.path, `\n── another turn (${event.model}) ──\n`);
			dir ??= mkdtempSync(join(tmpdir(), "pi-flows-panes-"));
			const file = join(dir, `${event.path.replace(/[^\w.#-]/g, "_")}.log`);
			writeFileSync(file, `${event.agent} @ ${event.path} · ${event.model}\n\n`);
			const id = backend.open(file, `${event.agent} @ ${event.path}`, event.pane.color);
			open.set(event.path, { file, id });
			void id.then((i) => i && opened.set(event.path, i));
		} else if (event.type === "message" && !event.draft) write(event.path, `${event.text}\n\n`);
		else if (event.type === "tool_call") write(event.path, `$ ${event.tool}${argsLine(event.args)}\n`);
		else if (event.type === "turn_end") write(event.path, `${event.ok ? "✓" : "✗"} turn ended\n`);
		else if (event.type === "node_end") void shut(event.path);
	};
	return {
		onEvent,
		opened,
		async close() {
			await Promise.all([...open.keys()].map(shut));
			if (dir) rmSync(dir, { recursive: true, force: true });
		},
	};
}

/** A one-line hint of a tool call's arguments: a pane is narrow. */
function argsLine(args: unknown): string {
	if (!args || typeof args !== "object") return "";
	const shown = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));
	const parts = Object.entries(args as Record<string, unknown>).map(([k, v]) => `${k}=${shown(v)}`);
	const line = parts.join(" ").replace(/\s+/g, " ");
	return line ? ` ${line.length > 100 ? `${line.slice(0, 99)}…` : line}` : "";
}
