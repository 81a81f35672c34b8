/**
 * A visit's identity: the parts that decide what its turn is asked and can do, each hashed on its own, so
 * two visits with equal keys would be asked the same thing with the same means, and a difference is named
 * by the part that differs ("`## answer` changed", "`scout.md` tools changed", "3 files of the tree
 * changed"). The evaluator gathers the facts of a visit; this module alone decides which fact goes into
 * which part, so reuse across runs, cassettes and their explanations all read one definition.
 *
 *   agentIdentity({ node: "look", section: "Read the notes.", reads: [{ address: "input", text: "q" }], ... })
 *     → { v: 1, key: "9f…", parts: { section: "1c…", "read:input": "77…", prompt: "…", tools: "…", model: "…", … } }
 *
 * Policy is left out on purpose (retries, timeouts, concurrency, `on-fail`): they decide how often a turn
 * is tried, not what it is asked, so changing them keeps every identity (pi-taskflow strips them alike).
 */
import { canonical, digest, digestOf, stable } from "./hash.ts";

/** Bumped when the parts are computed differently: every visit of an older identity then misses, said once. */
export const IDENTITY_VERSION = 1;

/** The tree part of a visit that reads none (no tools that reach the repository, or `reuse: ignore-tree`). */
export const NO_TREE = "none";

/** The words a difference is named with: they never enter the key. */
export interface IdentityShown {
	/** The agent file's name, `scout.md`. */
	agent?: string;
	/** Whether the tools are the agent file's own, or narrowed by the node's `tools:`. */
	toolsFrom?: "agent" | "node";
	/** The model as resolved, `anthropic/claude-sonnet-4-5`. */
	model?: string;
	thinking?: string;
	/** The git tree the visit saw, to name the files that changed since (absent: no repository). */
	tree?: string;
}

/** What a visit is, as the journal keeps it for every visit (`identity` entries). */
export interface VisitIdentity {
	/** {@link IDENTITY_VERSION} of the code that computed it. */
	v: number;
	/** The digest of every part (name and hash, in name order): equal keys, equal visits. */
	key: string;
	/** Each part's digest, by part name (`section`, `read:input`, `tools`, `tree`, …). */
	parts: Record<string, string>;
	/** The digest of the task as the first request carried it (agent and swarm visits), for cassettes. */
	task?: string;
	shown?: IdentityShown;
}

/** An agent file as the visit loaded it. */
export interface AgentPart {
	name: string;
	file: string;
	prompt: string;
	tools: readonly string[];
	/** The agent's own skills, with their text when the roster found them. */
	skills?: readonly { name: string; text?: string }[];
	mustCallTool?: true | string;
	lifetime?: string;
}

/** A tool the evaluator adds to a turn (`submit`, `verdict`, `finish`, `checkpoint`), as the model sees it. */
export interface AnswerTool {
	name: string;
	description?: string;
	parameters: unknown;
}

/** One read of a turn: the address as written and the text under its heading. */
export interface ReadPart {
	address: string;
	text: string;
}

/**
 * The facts of an agent visit that every visit of its node shares: who is asked, with what means and
 * settings. A caller handing the same objects to every visit (identify.ts does) has their parts hashed once.
 */
export interface AgentShared {
	agent: AgentPart;
	/** The node's `tools:` narrowing, when it has one. */
	nodeTools?: readonly string[];
	/** The built-in tools' schemas by name, as the host declares them (absent: names alone are hashed). */
	toolSchemas?: Readonly<Record<string, unknown>>;
	answerTools: readonly AnswerTool[];
	/** The node's `skills:`, with their text. */
	nodeSkills: readonly { name: string; text: string }[];
	/** The model as resolved before the run; absent: pi's settings decide. */
	model?: string;
	thinking: string;
	/** The node's `## <id>` prose. */
	section: string;
	/** The flow's settings that reach the turn (the handoff policy and its caps). */
	settings: unknown;
}

/** The facts of one agent visit. */
export interface AgentFacts extends AgentShared {
	reads: readonly ReadPart[];
	/** The task's closing words (how to answer, a ledger's open obligations) and any plugin's addendum. */
	closing?: string;
	/** The tree the visit saw, or {@link NO_TREE}. */
	tree: string;
	/** The whole task of the first request. */
	task: string;
}

/** The shared parts last hashed for an agent part, with the facts they were hashed from. */
interface SharedDigests {
	facts: AgentShared;
	hashed: Record<string, string>;
}

/**
 * The digests of the shared parts, by the agent part: a map's thousand visits hand the same objects, so
 * the parts are hashed on the first visit and looked up by reference after. Objects are compared by
 * reference only, so the caller must not change one it handed in (a changed copy is simply hashed anew).
 */
const SHARED = new WeakMap<AgentPart, SharedDigests>();

function sameShared(a: AgentShared, b: AgentShared): boolean {
	return (
		a.agent === b.agent &&
		a.nodeTools === b.nodeTools &&
		a.toolSchemas === b.toolSchemas &&
		a.answerTools === b.answerTools &&
		a.nodeSkills === b.nodeSkills &&
		a.model === b.model &&
		a.thinking === b.thinking &&
		a.section === b.section &&
		a.settings === b.settings
	);
}

function sharedDigests(f: AgentShared): Record<string, string> {
	const known = SHARED.get(f.agent);
	if (known && sameShared(known.facts, f)) return known.hashed;
	const tools = f.nodeTools ?? f.agent.tools;
	const parts: Record<string, unknown> = {
		section: f.section.trim(),
		prompt: f.agent.prompt,
		tools: tools.map((name) => ({ name, schema: schemaDigest(f.toolSchemas?.[name]) })),
		answer: f.answerTools.map(stableSchema),
		skills: { agent: f.agent.skills ?? [], node: f.nodeSkills },
		model: f.model ?? "pi's settings",
		thinking: f.thinking,
		settings: { flow: f.settings, mustCallTool: f.agent.mustCallTool ?? null, lifetime: f.agent.lifetime ?? null },
	};
	const hashed: Record<string, string> = {};
	for (const name of Object.keys(parts)) hashed[name] = partDigest(name, parts[name]);
	SHARED.set(f.agent, {
		facts: {
			agent: f.agent,
			...(f.nodeTools ? { nodeTools: f.nodeTools } : {}),
			...(f.toolSchemas ? { toolSchemas: f.toolSchemas } : {}),
			answerTools: f.answerTools,
			nodeSkills: f.nodeSkills,
			...(f.model !== undefined ? { model: f.model } : {}),
			thinking: f.thinking,
			section: f.section,
			settings: f.settings,
		},
		hashed,
	});
	return hashed;
}

/** The identity of an agent visit. */
export function agentIdentity(f: AgentFacts): VisitIdentity {
	const own: Record<string, string> = {};
	for (const [name, text] of Object.entries(readParts(f.reads))) own[name] = partDigest(name, text);
	own.closing = partDigest("closing", f.closing ?? "");
	own.tree = partDigest("tree", f.tree);
	return fromDigests(
		{ ...sharedDigests(f), ...own },
		{
			agent: baseName(f.agent.file),
			toolsFrom: f.nodeTools ? "node" : "agent",
			...(f.model ? { model: f.model } : {}),
			thinking: f.thinking,
			...(f.tree !== NO_TREE ? { tree: f.tree } : {}),
		},
		f.task,
	);
}

/** The facts of a swarm visit: its goal and reads, its members as loaded, its settings, the tree. */
export interface SwarmFacts {
	section: string;
	reads: readonly ReadPart[];
	members: readonly { agent: AgentPart; model?: string; schemas?: Readonly<Record<string, unknown>> }[];
	settings: unknown;
	tree: string;
	task: string;
}

/** The identity of a swarm visit. */
export function swarmIdentity(f: SwarmFacts): VisitIdentity {
	return built(
		{
			section: f.section.trim(),
			...readParts(f.reads),
			members: f.members.map((m) => ({
				name: m.agent.name,
				prompt: m.agent.prompt,
				tools: m.agent.tools.map((name) => ({ name, schema: schemaDigest(m.schemas?.[name]) })),
				skills: m.agent.skills ?? [],
				model: m.model ?? "pi's settings",
			})),
			settings: f.settings,
			tree: f.tree,
		},
		{
			...(f.tree !== NO_TREE ? { tree: f.tree } : {}),
			// The model its members share, in words (a cassette's replay asks it of a flow that names none).
			...(f.members[0]?.model && f.members.every((m) => m.model === f.members[0]?.model)
				? { model: f.members[0].model }
				: {}),
		},
		f.task,
	);
}

/** The identity of a check visit: the script's text as snapshotted, and the tree it judges. */
export function checkIdentity(f: { script: string; content?: string; tree: string }): VisitIdentity {
	return built(
		{ script: { path: f.script, content: f.content ?? null }, tree: f.tree },
		f.tree !== NO_TREE ? { tree: f.tree } : {},
	);
}

/** The identity of a question: the card as the person would see it, its reads apart. */
export function askIdentity(f: { question: unknown; reads: readonly ReadPart[] }): VisitIdentity {
	return built({ question: f.question, ...readParts(f.reads) });
}

/** The identity of a commit: its message (commits always run; the identity is kept for the record). */
export function commitIdentity(f: { message: string }): VisitIdentity {
	return built({ message: f.message });
}

/** The identity of a block or a call: its definition as written (its children have their own). */
export function blockIdentity(f: { definition: string }): VisitIdentity {
	return built({ definition: f.definition });
}

/** Digests of the host's tool schemas, by the schema object: the host hands the same objects to every visit. */
const SCHEMAS = new WeakMap<object, string>();

function schemaDigest(schema: unknown): string | null {
	if (schema === undefined || schema === null) return null;
	if (typeof schema !== "object") return digestOf(schema);
	let d = SCHEMAS.get(schema);
	if (d === undefined) SCHEMAS.set(schema, (d = digestOf(schema)));
	return d;
}

/** An answer tool whose schema is written out once: a tool's parameters never change once it is made. */
function stableSchema(tool: AnswerTool): AnswerTool {
	const p = tool.parameters;
	if (p !== null && typeof p === "object") stable(p);
	return tool;
}

function readParts(reads: readonly ReadPart[]): Record<string, string> {
	const out: Record<string, string> = {};
	for (const r of reads) out[`read:${r.address}`] = r.text;
	return out;
}

/**
 * Part digests by the part's canonical text, for the parts a node's visits share (its prompt, tools,
 * answer tools, settings, section): a map of a thousand items hashed the same ten texts a thousand times.
 * Bounded: texts past 4 KiB are hashed each time, and the table starts afresh past 1,024 texts.
 */
const PART_DIGESTS = new Map<string, string>();

function partDigest(name: string, value: unknown): string {
	// A read is the visit's own (the item, the output read): it would only fill the table.
	if (name.startsWith("read:")) return digestOf(value);
	const text = typeof value === "string" ? value : canonical(value);
	if (text.length > 4096) return digest(text);
	let d = PART_DIGESTS.get(text);
	if (d === undefined) {
		if (PART_DIGESTS.size >= 1024) PART_DIGESTS.clear();
		PART_DIGESTS.set(text, (d = digest(text)));
	}
	return d;
}

function built(parts: Record<string, unknown>, shown?: IdentityShown, task?: string): VisitIdentity {
	const hashed: Record<string, string> = {};
	for (const name of Object.keys(parts)) hashed[name] = partDigest(name, parts[name]);
	return fromDigests(hashed, shown, task);
}

/** An identity from its parts' digests, kept in name order (the key's canonical text sorts them anyway). */
function fromDigests(digests: Record<string, string>, shown?: IdentityShown, task?: string): VisitIdentity {
	const hashed: Record<string, string> = {};
	// The key's text is `canonical(hashed)`, written here in the same pass: every value is a digest string.
	let text = "{";
	for (const name of Object.keys(digests).sort()) {
		const d = digests[name];
		hashed[name] = d;
		text += `${text.length > 1 ? "," : ""}${JSON.stringify(name)}:${JSON.stringify(d)}`;
	}
	return {
		v: IDENTITY_VERSION,
		key: digest(`${text}}`),
		parts: hashed,
		...(task !== undefined ? { task: digestOf(task) } : {}),
		...(shown && Object.keys(shown).length ? { shown } : {}),
	};
}

function baseName(file: string): string {
	const i = Math.max(file.lastIndexOf("/"), file.lastIndexOf("\\"));
	return i >= 0 ? file.slice(i + 1) : file;
}
