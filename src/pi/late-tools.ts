/**
 * Tools a subagent's session registers only when a turn offers them. A tool spawned `later` (the handoff
 * tools, offered at the watermark) is wanted by few turns, yet a tool registered at creation is paid by
 * every spawn: pi converts and wraps it, indexes its prompt snippets, and keeps all of it for the session's
 * life, long enough for the young-generation collector to copy it. So the session is created with an
 * extension of its own that holds no tools, and the tools are put in it, and pi's registry rebuilt once,
 * the first time a turn offers them (`register`). pi reads an extension's tools each time it rebuilds its
 * registry, and the extension runtime handed to the session is the one pi binds its `refreshTools` to, so
 * this is the path an extension's own `pi.registerTool` after start-up takes.
 */
import {
	createExtensionRuntime,
	createSyntheticSourceInfo,
	type Extension,
	type ExtensionRuntime,
	type RegisteredTool,
} from "@earendil-works/pi-coding-agent";
import type { ToolSpec } from "../runtime/index.ts";
import { toPiTool } from "./tools.ts";

const PATH = "<pi-flows:later-tools>";
const SOURCE = createSyntheticSourceInfo(PATH, { source: "pi-flows" });
/** Never written: pi writes an extension's maps only through the API object a loaded extension is given. */
const NONE = new Map<never, never>();

/** One session's later tools: the extension and runtime to create it with, and their registration. */
export interface LateTools {
	extension: Extension;
	runtime: ExtensionRuntime;
	/** Registers the tools in the session (once; they stay registered, and inactive until activated). */
	register(): void;
}

/** The holder of `specs` for one session, registering none of them yet. */
export function lateTools(specs: readonly ToolSpec[]): LateTools {
	const runtime = createExtensionRuntime();
	const extension: Extension = {
		path: PATH,
		resolvedPath: PATH,
		hidden: true,
		sourceInfo: SOURCE,
		handlers: NONE,
		tools: NONE,
		messageRenderers: NONE,
		commands: NONE,
		flags: NONE,
		shortcuts: NONE,
	};
	let registered = false;
	return {
		extension,
		runtime,
		register() {
			if (registered) return;
			registered = true;
			extension.tools = new Map<string, RegisteredTool>(
				specs.map((s) => [s.name, { definition: toPiTool(s), sourceInfo: SOURCE }]),
			);
			runtime.refreshTools();
		},
	};
}
