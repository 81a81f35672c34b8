/**
 * read → build → check for one file: the whole static judgement of a flow, with every fault at once.
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import type { Roster } from "../agents/index.ts";
import { type Fault, fault, sortFaults } from "../faults/index.ts";
import { FILE_START } from "../text/index.ts";
import { buildFlow } from "./build/index.ts";
import { type CheckedFlow, checkFlow } from "./check/index.ts";
import { readFlow } from "./read/index.ts";

/** Judges a flow's text; `file` names it in faults and gives the expected `name:`. */
export function checkFlowText(text: string, file: string, roster: Roster): { value?: CheckedFlow; faults: Fault[] } {
	const read = readFlow(text, file);
	if (!read.value) return { faults: sortFaults(read.faults) };
	const built = buildFlow(read.value, basename(file, ".md"));
	if (!built.value) return { faults: sortFaults([...read.faults, ...built.faults]) };
	return checkFlow(built.value, { roster, refused: built.refused ?? new Set(), earlier: [...read.faults, ...built.faults] });
}

/** Reads and judges a flow file; an unreadable file is a fault too. */
export function checkFlowFile(file: string, roster: Roster): { value?: CheckedFlow; faults: Fault[] } {
	let text: string;
	try {
		text = readFileSync(file, "utf8");
	} catch (error) {
		const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "the file does not exist" : String(error);
		return { faults: [fault("not-a-flow", file, FILE_START, "", `cannot read the flow file: ${reason}`)] };
	}
	return checkFlowText(text, file, roster);
}
