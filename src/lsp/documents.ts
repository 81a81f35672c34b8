/**
 * What the server knows about each open flow: where its project is, the agents and flows it can name, the
 * last version of it that built, the checker's scopes over it and the last version that checked. Judging is
 * the checker's own `checkFlowText`, so an editor shows exactly what `pi-flows check` prints, and reads
 * what addresses bind from the checker too; the last good versions are what completion reads while the
 * text in the editor is half-written.
 */
import { basename, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { loadRoster, type Roster } from "../agents/index.ts";
import type { Fault } from "../faults/index.ts";
import { LANGUAGE } from "../kinds/language.ts";
import { buildFlow, type CheckedFlow, type Flow, readFlow, type ScopePoints } from "../language/index.ts";
import { type FlowEntry, listFlows } from "../load/index.ts";
import { catalogueOptions, checkFlowText } from "../load/index.ts";

/** Project sources are read: the person opened the project's own files in their editor. */
const SOURCES = { project: true } as const;

/** One open document's memory. */
interface DocState {
	file: string;
	/** The folder whose nearest `.pi/` supplies project agents and flows. */
	cwd: string;
	checked?: CheckedFlow;
	built?: Flow;
	/** The checker's scopes from the last text that built (faults or not). */
	scopes?: ScopePoints;
	roster?: Roster;
	notes?: Fault[];
}

/** The file path a document URI names; untitled documents get their URI's path, which names no project. */
export function fileOf(uri: string): string {
	try {
		return fileURLToPath(uri);
	} catch {
		// Not a file: URI (an untitled buffer); it still gets a name for the checker's messages.
		return uri.replace(/^[a-z-]+:/i, "");
	}
}

/**
 * Whether a document is a flow: Markdown that opens with `---` and either sits in a `flows/` folder (where
 * every source keeps its flows) or has `nodes:` or `chain:` in its frontmatter. Agents and other Markdown
 * open beside flows are left alone.
 */
export function isFlowDocument(uri: string, text: string): boolean {
	const file = fileOf(uri);
	if (!file.endsWith(".md") || !/^---[ \t]*\r?\n/.test(text)) return false;
	if (basename(dirname(file)) === "flows") return true;
	const close = /\n(---|\.\.\.)[ \t]*(\r?\n|$)/.exec(text.slice(3));
	const frontmatter = close ? text.slice(0, close.index + 3) : text;
	return /^(nodes|chain)[ \t]*:/m.test(frontmatter);
}

/** Every open flow's memory, and the judging of one. */
export class FlowDocuments {
	readonly #env: NodeJS.ProcessEnv;
	readonly #fallbackCwd: string;
	readonly #docs = new Map<string, DocState>();

	/** @param cwd the folder for documents that are not files (untitled buffers) */
	constructor(env: NodeJS.ProcessEnv, cwd: string) {
		this.#env = env;
		this.#fallbackCwd = cwd;
	}

	#state(uri: string): DocState {
		let state = this.#docs.get(uri);
		if (!state) {
			const file = fileOf(uri);
			state = { file, cwd: uri.startsWith("file:") ? dirname(file) : this.#fallbackCwd };
			this.#docs.set(uri, state);
		}
		return state;
	}

	/** Forgets a closed document. */
	close(uri: string): void {
		this.#docs.delete(uri);
	}

	/**
	 * Judges the text as `pi-flows check --project` would from the document's folder, and remembers what
	 * built and what checked. Faults of other files (a callee's) are already reported at the call here.
	 */
	judge(uri: string, text: string): Fault[] {
		const state = this.#state(uri);
		state.roster = loadRoster(state.cwd, SOURCES, this.#env);
		const judged = checkFlowText(text, state.file, state.roster, catalogueOptions(state.cwd, SOURCES, this.#env));
		if (judged.value) {
			state.checked = judged.value;
			state.built = judged.value;
		} else {
			const built = this.#build(state, text);
			if (built) state.built = built;
		}
		if (judged.scopes) state.scopes = judged.scopes;
		state.notes = (judged.notes ?? []).filter((f) => f.file === state.file);
		return judged.faults.filter((f) => f.file === state.file);
	}

	/** The notes of the last judgement (an agent's kept keys): shown, never errors. */
	notes(uri: string): Fault[] {
		return this.#state(uri).notes ?? [];
	}

	#build(state: DocState, text: string): Flow | undefined {
		const read = readFlow(text, state.file);
		return read.value ? buildFlow(LANGUAGE, read.value).value : undefined;
	}

	/** The flow as the text builds now, else as it last built: ids and shapes for the cursor's node. */
	flow(uri: string, text: string): Flow | undefined {
		const state = this.#state(uri);
		const now = this.#build(state, text);
		if (now) state.built = now;
		return state.built;
	}

	/** The checker's scopes from the last version that built: what each point reads and binds. */
	scopes(uri: string): ScopePoints | undefined {
		return this.#state(uri).scopes;
	}

	/** The last version that checked, for bounds. */
	checked(uri: string): CheckedFlow | undefined {
		return this.#state(uri).checked;
	}

	/** The roster the document's flow is judged against. */
	roster(uri: string): Roster {
		const state = this.#state(uri);
		state.roster ??= loadRoster(state.cwd, SOURCES, this.#env);
		return state.roster;
	}

	/** The flows a `flow:` node of the document can call. */
	flows(uri: string): FlowEntry[] {
		return listFlows(this.#state(uri).cwd, SOURCES, this.#env).flows;
	}
}
