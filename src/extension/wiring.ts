/**
 * The commands' code, loaded on the first use of any of them: `/run`, `/step` and `/flows` register
 * themselves here against a recorder, and the extension's entry forwards to what they registered. Every
 * other call they make on `pi` (messages, dialogs, sending) reaches pi unchanged.
 */
import type { ExtensionAPI, RegisteredCommand } from "@earendil-works/pi-coding-agent";
import { registerFlowsCommand } from "./flows-command.ts";
import { registerRunCommand } from "./run-command.ts";
import { registerStepCommand } from "./step-command.ts";
import type { TrustMemory } from "./trust.ts";

/** A command as its module registered it. */
export type CommandCode = Omit<RegisteredCommand, "name" | "sourceInfo">;

/** Runs the commands' registrations and returns what each registered, by name. */
export function wireCommands(pi: ExtensionAPI, memory: TrustMemory): Map<string, CommandCode> {
	const commands = new Map<string, CommandCode>();
	const recorder = new Proxy(pi, {
		get(target, key, receiver) {
			if (key === "registerCommand") return (name: string, options: CommandCode) => void commands.set(name, options);
			return Reflect.get(target, key, receiver);
		},
	});
	registerFlowsCommand(recorder, memory);
	registerRunCommand(recorder, memory);
	registerStepCommand(recorder, memory);
	return commands;
}
