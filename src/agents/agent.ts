/**
 * An agent is data: a Markdown file whose frontmatter says who it is and what it may touch, and whose body
 * is its system prompt. A file that does not parse keeps its name and its cause, so a broken project
 * `scout.md` is reported as broken instead of silently falling back to the user's `scout`. Keys written for
 * a peer (combo, Claude Code) never break an agent: peer-keys.ts says which are honoured and which noted.
 */
import { keyPosition, parseSkills, parseTools, peerFields } from "./agent-fields.ts";
import { readFrontmatter } from "./frontmatter.ts";
import {
	AGENT_KEYS,
	type AgentNote,
	type AgentPeer,
	DEFAULT_TOOLS,
	inheritsModel,
	type Lifetime,
	PEER_DEFAULT_TOOLS,
	PI_SUBAGENTS_KEYS,
	unknownKeyNote,
} from "./peer-keys.ts";
import type { Skill } from "./skills.ts";

/** Where an agent or flow file was found; later sources win a name. */
export type Source = "shipped" | "user" | "project";

/** A parsed agent file. */
export interface AgentDef {
	readonly kind: "agent";
	name: string;
	description: string;
	/**
	 * An allowlist of pi tool names: a prompt is not a permission boundary, an absent tool is. An agent that
	 * names no `tools:` gets read-only ones (`read, grep, find, ls`, as combo), or the default of the peer it
	 * was written for ({@link AgentDef.toolsFrom}); `tools:` left empty gets none.
	 */
	tools: string[];
	/**
	 * The file names no `tools:` and was written for a peer whose default gives more than ours: Claude Code
	 * (every tool) or pi-subagents (pi's default tools). The check and the plan say so where the agent is named.
	 */
	toolsFrom?: "Claude Code" | "pi-subagents";
	/** `provider/id[:thinking]` or a name pi resolves (`sonnet`); shipped agents pin none. */
	model?: string;
	thinking?: string;
	/** combo's lifetime: `workflow` and `session` keep the subagent across a node's visits. Default `task`. */
	lifetime?: Lifetime;
	/** combo's `mustCallTool`: `true` (any tool) or a tool name; a turn calling none fails. */
	mustCallTool?: true | string;
	/** Open a terminal pane following this agent's turns (`pane:`, or combo's `openInHerdr:`). */
	pane?: boolean;
	/** Claude Code's `color`: the pane's border colour. */
	color?: string;
	/**
	 * combo's `skills:`: skills the agent's subagent is offered, as pi offers skills (name, description and
	 * where its `SKILL.md` is; the model opens one with `read`). The roster looks each one up (skills.ts).
	 */
	skills?: AgentSkill[];
	/** Keys kept but not acted on, and peer values adapted, as notes for `check` and the language server. */
	notes?: AgentNote[];
	/** The body: the agent's system prompt. */
	prompt: string;
	file: string;
	source: Source;
}

/** One name of an agent's `skills:`, where the agent file writes it, and the skill it names once looked up. */
export interface AgentSkill {
	name: string;
	/** 1-based line and column of the name in the agent file. */
	line: number;
	column: number;
	/** The skill, when a folder has it (skills.ts); absent, the name is `unknown-skill` wherever the agent runs. */
	skill?: Skill;
	/** The nearest skill name there is, for an unknown one. */
	near?: string;
}

/** An agent file that exists but cannot be used, with the reason. */
export interface BrokenAgent {
	readonly kind: "broken";
	name: string;
	file: string;
	source: Source;
	cause: string;
}

const THINKING = new Set(["off", "minimal", "low", "medium", "high", "xhigh", "max"]);

/** How an agent file is read, beyond its text: who its folder says wrote it. */
export interface ParseOptions {
	/** The folder is a peer's (`.claude/agents` is Claude Code's): its defaults and tool names apply. */
	peer?: AgentPeer;
}

/** Parses one agent file; `fallbackName` (the file name) names it when the file is broken. */
export function parseAgentFile(
	text: string,
	file: string,
	source: Source,
	fallbackName: string,
	options: ParseOptions = {},
): AgentDef | BrokenAgent {
	const broken = (cause: string, name = fallbackName): BrokenAgent => ({ kind: "broken", name, file, source, cause });
	const read = readFrontmatter(text);
	if (!read.ok) return broken(read.cause);
	const { data: fm, doc, lines, lenient } = read.value;
	const notes: AgentNote[] = [];
	// The frontmatter starts on the file's second line, after the opening fence.
	const note = (key: string, message: string) => notes.push({ key, message, ...keyPosition(doc.contents, lines, key) });
	if (lenient) {
		const message = `its frontmatter is not strict YAML (${lenient.error}); its \`key: value\` lines were read as text, as Claude Code and pi-subagents read them`;
		notes.push({ key: "frontmatter", message, line: lenient.line, column: 1 });
	}
	for (const key of Object.keys(fm)) if (!AGENT_KEYS.has(key)) note(key, unknownKeyNote(key));
	if (typeof fm.name !== "string" || !fm.name.trim()) return broken("it lacks `name:`");
	const name = runtimeName(fm.name.trim(), fm.package);
	if (typeof fm.description !== "string" || !fm.description.trim()) return broken("it lacks `description:`", name);
	const tools = parseTools(fm.tools, note, options.peer);
	if (typeof tools === "string") return broken(tools, name);
	const denied = parseTools(fm.disallowedTools, note, options.peer);
	if (typeof denied === "string") return broken(denied.replace("`tools:`", "`disallowedTools:`"), name);
	if (fm.model !== undefined && fm.model !== false && (typeof fm.model !== "string" || !fm.model.trim()))
		return broken("`model:` must be a string", name);
	if (fm.thinking !== undefined && (typeof fm.thinking !== "string" || !THINKING.has(fm.thinking))) {
		return broken(`\`thinking:\` must be one of ${[...THINKING].join(", ")}`, name);
	}
	const prompt = read.value.body.trim();
	if (!prompt) return broken("its body (the system prompt) is empty", name);
	const model = typeof fm.model === "string" && !inheritsModel(fm.model.trim()) ? fm.model.trim() : undefined;
	// pi-subagents reads `skill:` as `skills:`; the plural wins when a file has both.
	const skills = parseSkills(fm.skills ?? fm.skill, fm.skills !== undefined ? "skills" : "skill", doc.contents, lines);
	if (typeof skills === "string") return broken(skills, name);
	const peer = peerFields(fm, note);
	const toolsFrom = tools ? undefined : defaultFrom(fm, options.peer);
	return {
		kind: "agent",
		name,
		description: fm.description.trim(),
		tools: (tools ?? (toolsFrom ? PEER_DEFAULT_TOOLS[toolsFrom] : DEFAULT_TOOLS)).filter(
			(t) => !(denied ?? []).includes(t),
		),
		...(toolsFrom ? { toolsFrom } : {}),
		...(model ? { model } : {}),
		...(typeof fm.thinking === "string" ? { thinking: fm.thinking } : {}),
		...peer,
		...(skills?.length ? { skills } : {}),
		...(notes.length ? { notes } : {}),
		prompt,
		file,
		source,
	};
}

/**
 * Whose default an agent naming no `tools:` gets: Claude Code's in its folders, pi-subagents' for a file
 * carrying its keys; none (pi-flows' read-only default) for combo's, ours, and a file that does not say.
 */
function defaultFrom(fm: Record<string, unknown>, peer: AgentPeer | undefined): AgentDef["toolsFrom"] {
	if (peer === "claude-code") return "Claude Code";
	if (Object.keys(fm).some((k) => PI_SUBAGENTS_KEYS.has(k))) return "pi-subagents";
	return undefined;
}

/**
 * pi-subagents names a packaged agent `<package>.<name>` (its chains call `zflow.verifier`); the package is
 * lower-cased with its spaces as dashes, as pi-subagents tidies it.
 */
function runtimeName(name: string, pkg: unknown): string {
	if (typeof pkg !== "string" || !pkg.trim()) return name;
	const tidy = pkg
		.trim()
		.toLowerCase()
		.replace(/\s+/g, "-")
		.replace(/[^a-z0-9.-]/g, "");
	return tidy ? `${tidy}.${name}` : name;
}
