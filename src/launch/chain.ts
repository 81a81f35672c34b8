/**
 * A chain typed at a prompt (`pi-flows chain "…"`, `/run --chain "…"`, the `subagent` tool) judged as the
 * flow it stands for. The chain is written into a flow file's text and the whole file checked like any
 * other, so a chain and a flow holding the same `chain:` can never be judged apart. Every fault the check
 * finds is then placed back on the chain as the person typed it, through the map the translation itself
 * records: no column arithmetic guessed from a line number, whatever quoting the translation needed.
 */
import type { Sources } from "../agents/index.ts";
import { loadRoster } from "../agents/index.ts";
import { parseChain, withGlobals } from "../chain/index.ts";
import type { Fault } from "../faults/index.ts";
import type { CheckedFlow } from "../language/index.ts";
import { catalogueOptions, checkFlowText } from "../load/index.ts";
import { lineTable } from "../text/index.ts";

/** The file name faults inside a typed chain carry: `chain:1:17: unknown-agent: …`. */
export const CHAIN_FILE = "chain";

/** A chain written as a flow file, and where each of its characters landed in that file. */
export interface ChainFlow {
	/** The flow file's text. */
	text: string;
	/**
	 * `at[i]` is the offset in {@link text} of the chain's UTF-16 unit `i`; `at[chain.length]` is the offset
	 * just past its last one. Recorded while writing, so it holds for any escaping the writing does.
	 */
	at: readonly number[];
}

/**
 * Writes `chain` as the `chain:` of a flow named `chain`. The chain goes on one line of a literal block
 * (`|2-`): the one YAML form with no escapes, so `'`, `"` and `\` stand as typed and the reader places what
 * it finds in the chain at exact columns (see `scalarBase`). A chain typed over several lines is written
 * on one, each line break a space (what YAML's quoted strings made of it before), and its map says where.
 */
export function chainAsFlow(chain: string, description: string): ChainFlow {
	let text = `---\nname: chain\ndescription: ${JSON.stringify(description)}\ninput: string\nchain: |2-\n  `;
	const at: number[] = [];
	for (let i = 0; i < chain.length; i++) {
		at.push(text.length);
		const c = chain[i];
		text += c === "\n" ? " " : c === "\r" ? (chain[i + 1] === "\n" ? "" : " ") : c;
	}
	at.push(text.length);
	text += "\n---\n";
	return { text, at };
}

/**
 * Places faults found in a {@link chainAsFlow} file on the chain as typed: file `chain`, line and column
 * counted in the chain itself. A fault before the chain's first character (the whole `chain:` value)
 * starts at the chain's start; one past its end ends at its end.
 */
export function placeOnChain(faults: readonly Fault[], chain: string, flow: ChainFlow, file: string): Fault[] {
	const table = lineTable(chain);
	const index = (offset: number): number => {
		// The last chain unit written at or before `offset` (a binary search over the recorded offsets).
		let lo = 0;
		let hi = flow.at.length - 1;
		while (lo < hi) {
			const mid = (lo + hi + 1) >> 1;
			if (flow.at[mid] <= offset) lo = mid;
			else hi = mid - 1;
		}
		return lo;
	};
	return faults.map((f) => {
		if (f.file !== file) return f;
		const start = index(f.offset);
		const range = table.range(start, Math.max(start, index(f.endOffset)));
		return {
			...f,
			file: CHAIN_FILE,
			line: range.start.line,
			column: range.start.column,
			endLine: range.end.line,
			endColumn: range.end.column,
			offset: range.start.offset,
			endOffset: range.end.offset,
		};
	});
}

/** Where a typed chain is judged: the working folder, which definitions count, and how the run is named. */
export interface ChainRequest {
	cwd: string;
	scope: Sources;
	env?: NodeJS.ProcessEnv;
	/** The flow's `description:` (who asked for the chain). */
	description: string;
	/** The name the flow file gets (faults outside the chain keep it; there should be none). */
	file: string;
	/** Chain-wide flags given beside the chain (a command line's `--global-model X`), read as its `--` part. */
	globals?: { text: string; file: string };
}

/** A typed chain's judgement; every fault is already placed on the chain (or on its globals) as typed. */
export type JudgedChain =
	| {
			ok: true;
			flow: CheckedFlow;
			/** The chain with its globals written in: what the flow holds, and what faults' columns count in. */
			chain: string;
			/** Places later faults (a `--model` pi cannot resolve) on the chain the same way. */
			place: (faults: readonly Fault[]) => Fault[];
	  }
	| { ok: false; stage: "read" | "check"; chain: string; faults: Fault[] };

/**
 * Reads and checks a typed chain: its own syntax first (faults at its columns, and at the globals' for
 * flags given beside it), then the flow it stands for, against the roster and catalogue of `cwd`.
 */
export function judgeChain(typed: string, request: ChainRequest): JudgedChain {
	const globals = request.globals?.text.trim() ? request.globals : undefined;
	const parsed = parseChain(typed, { file: CHAIN_FILE, ...(globals ? { globals } : {}) });
	if (!parsed.value) return { ok: false, stage: "read", chain: typed, faults: parsed.faults };
	const chain = withGlobals(typed, globals?.text ?? "");
	const flow = chainAsFlow(chain, request.description);
	const place = (faults: readonly Fault[]) => placeOnChain(faults, chain, flow, request.file);
	const { cwd, scope, env } = request;
	const checked = checkFlowText(
		flow.text,
		request.file,
		loadRoster(cwd, scope, env),
		catalogueOptions(cwd, scope, env),
	);
	if (!checked.value) return { ok: false, stage: "check", chain, faults: place(checked.faults) };
	return { ok: true, flow: checked.value, chain, place };
}
