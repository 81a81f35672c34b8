/**
 * A dry run's script file, read and checked against the addresses it may play (a flow's agent nodes, or
 * the one agent `/step <agent>` runs) before anything spawns: a key naming nothing would otherwise fail
 * only at the turn it never reaches.
 */
import { readFileSync } from "node:fs";
import type { Fault } from "../faults/index.ts";
import { checkScriptKeys, readScript, type Script } from "../script/index.ts";

/** A script that may be played, with its text (a run folder keeps it for resume); or why not. */
export type ScriptFile =
	| { ok: true; value: Script; text: string }
	| { ok: false; unreadable: true }
	| { ok: false; unreadable?: false; faults: Fault[] };

/** Reads `file` and checks its keys against `addresses`. */
export function readScriptFile(file: string, addresses: readonly string[]): ScriptFile {
	let text: string;
	try {
		text = readFileSync(file, "utf8");
	} catch {
		return { ok: false, unreadable: true };
	}
	const read = readScript(text, file);
	const faults = read.value ? checkScriptKeys(read.value, addresses) : read.faults;
	if (!read.value || faults.length) return { ok: false, faults };
	return { ok: true, value: read.value, text };
}
