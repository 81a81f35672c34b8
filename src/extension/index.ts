/**
 * The pi extension: what pi-flows adds to a pi session: `/run`, `/step` and `/flows`, the `subagent`
 * tool, the messages they post, and the handoff protocol. Its wiring may import pi's types; everything it
 * runs goes through the same core as the CLI.
 *
 * pi loads this file on every start, whether or not a flow runs, so it registers everything from small
 * modules and loads the code behind a command or the tool (the roster, the flow layer, the evaluator) when
 * one first runs: a pi start with pi-flows costs about what one without does (docs/performance.md).
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import type { AutocompleteItem } from "@earendil-works/pi-tui";
import { COMMAND_CARDS } from "./cards.ts";
import { registerHandoff } from "./handoff/index.ts";
import { registerMessages } from "./messages.ts";
import { registerSubagentTool } from "./tool/subagent-tool.ts";
import type { TrustMemory } from "./trust.ts";
import type { CommandCode } from "./wiring.ts";

/** pi calls this once per session with its extension API. */
export default function piFlows(pi: ExtensionAPI): void {
	// One trust decision per project for this pi process, shared by every command and the tool.
	const trust: TrustMemory = new Map();
	registerMessages(pi);
	registerHandoff(pi);
	registerSubagentTool(pi, trust);
	let wired: Promise<Map<string, CommandCode>> | undefined;
	const code = async (name: string): Promise<CommandCode> => {
		wired ??= import("./wiring.ts").then((m) => m.wireCommands(pi, trust));
		const command = (await wired).get(name);
		if (!command) throw new Error(`pi-flows: /${name} has a card but registered no code; this is a bug in pi-flows`);
		return command;
	};
	for (const [name, description] of Object.entries(COMMAND_CARDS)) {
		pi.registerCommand(name, {
			description,
			getArgumentCompletions: async (prefix): Promise<AutocompleteItem[] | null> =>
				(await (await code(name)).getArgumentCompletions?.(prefix)) ?? null,
			handler: async (args, ctx) => (await code(name)).handler(args, ctx),
		});
	}
}
