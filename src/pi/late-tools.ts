/**
 * Tools a subagent's session makes and registers only when a turn offers them. A spawn's later tools
 * (`SpawnRequest.laterTools`: the handoff tools, offered at the watermark) are wanted by few turns, yet a
 * tool registered at creation is paid by every spawn: pi converts and wraps it, indexes its prompt
 * snippets, and keeps all of it for the session's life, long enough for the young-generation collector to
 * copy it. So the session is created with an empty list of extensions, and the first time a turn offers
 * the tools (`register`) they are made, an extension holding them joins the list, and pi's registry is
 * rebuilt once. pi keeps the list it was given and reads every
 * extension's tools each time it rebuilds its registry, and the extension runtime handed to the session is
 * the one pi binds its `refreshTools` to, so this is the path an extension's own `pi.registerTool` after
 * start-up takes. The list stays empty until then because pi walks it on every event of the session
 * (test/pi/late-tools.test.ts holds that the tools arrive).
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

/** One session's later tools: the extensions and runtime to create it with, and their registration. */
export interface LateTools {
	/** The session's extensions: none until `register`. */
	extensions: Extension[];
	runtime: ExtensionRuntime;
	/** Registers the tools in the session (once; they stay registered, and inactive until activated). */
	register(): void;
}

/** The holder of the tools `make` makes for one session, making and registering none of them yet. */
export function lateTools(make: () => readonly ToolSpec[]): LateTools {
	const runtime = createExtensionRuntime();
	const extensions: Extension[] = [];
	return {
		extensions,
		runtime,
		register() {
			if (extensions.length) return;
			extensions.push({
				path: PATH,
				resolvedPath: PATH,
				hidden: true,
				sourceInfo: SOURCE,
				handlers: NONE,
				tools: new Map<string, RegisteredTool>(
					make().map((s) => [s.name, { definition: toPiTool(s, true), sourceInfo: SOURCE }]),
				),
				messageRenderers: NONE,
				commands: NONE,
				flags: NONE,
				shortcuts: NONE,
			});
			runtime.refreshTools();
		},
	};
}
