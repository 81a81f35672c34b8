/**
 * read → build → check for one file, with the flows it calls found in the same catalogue and checked
 * whole: the complete static judgement of a flow, every fault at once. It sits above both src/language (the
 * language's stages) and src/chain (the chain syntax, which builds flow nodes): a flow file may hold a
 * `chain:` and a pi-subagents `.chain.md` file is a flow, so the loader needs both, and neither needs it.
 * It is also where the kind table (`LANGUAGE`) is handed to the builder and the checker: the stages import
 * no kind, since the kinds import them.
 */
import { readFileSync } from "node:fs";
import { findSkill, type Roster, type Sources, skillNames } from "../agents/index.ts";
import { type Fault, fault, sortFaults } from "../faults/index.ts";
import { chainExpander } from "../chain/index.ts";
import { chainMdToFlow, isChainMd, placeInChainFile } from "../chain/index.ts";
import { FILE_START, lineTable } from "../text/index.ts";
import { buildFlow, type ChainExpander } from "../language/build/index.ts";
import { LANGUAGE } from "../kinds/language.ts";
import { flowNameOf, listFlows } from "./index.ts";
import {
	agentNotes,
	type CalleeResolver,
	type CheckedFlow,
	checkFlow,
	type ScopePoints,
	type SkillResolver,
} from "../language/check/index.ts";
import { readFlow } from "../language/read/index.ts";

/** Where called flows come from, and the options every check shares. */
export interface LoadOptions {
	/** Finds callees by name; default: none (calls are then `unknown-flow`). */
	flows?: (name: string) => { file: string } | undefined;
	/** Every flow name, for did-you-mean. */
	flowNames?: () => string[];
	expandChain?: ChainExpander;
	/** Flows being checked around this one. */
	stack?: readonly string[];
	/** Checked callees by file, shared across one judgement. */
	cache?: Map<string, { value?: CheckedFlow; faults: Fault[] }>;
	/** Finds skills named by `skills:`. */
	skills?: SkillResolver;
	/** Reads a flow file's text (a resume reads its snapshot, not the disk). Default: the disk. */
	read?: (file: string) => string | undefined;
}

/** A flow's judgement: the checked flow or its faults, and notes that never stop a run. */
export interface Judged {
	value?: CheckedFlow;
	faults: Fault[];
	/** What the checker tells without refusing (an agent's kept keys), in file order. */
	notes?: Fault[];
	/** The scopes the checker walked, when the flow built far enough to be checked (what an editor completes). */
	scopes?: ScopePoints;
}

/** Judges a flow's text; `file` names it in faults and gives the expected `name:`. */
export function checkFlowText(text: string, file: string, roster: Roster, options: LoadOptions = {}): Judged {
	if (isChainMd(file)) {
		// pi-subagents' chain file: judged as the flow it stands for, its faults placed back in the chain file.
		const chain = chainMdToFlow(text, file, flowNameOf(file));
		if (!chain.ok) return { faults: chain.faults };
		const judged = judgeFlowText(chain.value.text, file, roster, options);
		const faults = placeInChainFile(judged.faults, chain.value, text, file);
		const notes = sortFaults([
			...chainNotes(chain.value.notes, text, file),
			...placeInChainFile(judged.notes ?? [], chain.value, text, file),
		]);
		return { ...judged, faults, ...(notes.length ? { notes } : {}) };
	}
	return judgeFlowText(text, file, roster, options);
}

function judgeFlowText(text: string, file: string, roster: Roster, options: LoadOptions): Judged {
	const read = readFlow(text, file);
	if (!read.value) return { faults: sortFaults(read.faults) };
	const built = buildFlow(LANGUAGE, read.value, flowNameOf(file), options.expandChain);
	if (!built.value) return { faults: sortFaults([...read.faults, ...built.faults]) };
	const cache = options.cache ?? new Map();
	const calls: CalleeResolver = {
		check(name, stack) {
			const at = stack.indexOf(name);
			if (at >= 0) return { cycle: [...stack.slice(at), name] };
			const found = options.flows?.(name);
			if (!found) return { missing: options.flowNames?.() ?? [] };
			let judged = cache.get(found.file);
			if (!judged) {
				judged = checkFlowFile(found.file, roster, { ...options, stack, cache });
				cache.set(found.file, judged);
			}
			if (judged.value) return { value: judged.value };
			// A cycle found inside the callee is this caller's cycle only when it passes through the caller;
			// it is then the same ring, turned to start here. A ring elsewhere makes the callee merely broken.
			const cycle = judged.faults.find((f: Fault) => f.code === "call-cycle");
			const ring = cycle?.cycle ?? [];
			const from = ring.indexOf(stack[stack.length - 1] ?? "");
			if (from >= 0) return { cycle: [...ring.slice(from), ...ring.slice(1, from + 1)] };
			return { faults: judged.faults, file: found.file };
		},
	};
	const notes = agentNotes(built.value, roster);
	const judged = checkFlow(built.value, {
		kinds: LANGUAGE,
		roster,
		refused: built.refused,
		earlier: [...read.faults, ...built.faults],
		calls,
		stack: options.stack ?? [],
		...(options.skills ? { skills: options.skills } : {}),
	});
	return notes.length ? { ...judged, notes } : judged;
}

/** A chain file's reading notes (chain-md-read.ts) as `peer-note` notes, each on its whole line. */
function chainNotes(notes: readonly { line: number; message: string }[], text: string, file: string): Fault[] {
	const table = lineTable(text);
	return notes.map((n) => {
		const start = table.offset(n.line, 1);
		const end = text.indexOf("\n", start);
		return fault("peer-note", file, table.range(start, end < 0 ? text.length : end), "", n.message);
	});
}

/** Reads and judges a flow file; an unreadable file is a fault too. */
export function checkFlowFile(file: string, roster: Roster, options: LoadOptions = {}): Judged {
	let text: string;
	try {
		text = options.read?.(file) ?? readFileSync(file, "utf8");
	} catch (error) {
		const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "the file does not exist" : String(error);
		return { faults: [fault("not-a-flow", file, FILE_START, "", `cannot read the flow file: ${reason}`)] };
	}
	return checkFlowText(text, file, roster, options);
}

/** Load options that find callees in the flow catalogue of `cwd` (the same sources as the caller). */
export function catalogueOptions(
	cwd: string,
	sources: Sources = {},
	env: NodeJS.ProcessEnv = process.env,
): LoadOptions {
	const { flows } = listFlows(cwd, sources, env);
	const byName = new Map(flows.map((f) => [f.name, f]));
	return {
		flows: (name) => byName.get(name),
		flowNames: () => [...byName.keys()],
		skills: { find: (name) => findSkill(name, cwd, sources, env), names: () => skillNames(cwd, sources, env) },
		expandChain: chainExpander(cwd, sources, env),
	};
}
