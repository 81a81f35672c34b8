/**
 * An agent is data: a Markdown file whose frontmatter says who it is and what it may touch, and whose body
 * is its system prompt. A file that does not parse keeps its name and its cause, so a broken project
 * `scout.md` is reported as broken instead of silently falling back to the user's `scout`. Keys written for
 * a peer (combo, Claude Code) never break an agent: peer-keys.ts says which are honoured and which noted.
 */
import { isMap, isScalar, isSeq, type LineCounter } from "yaml";
import { readFrontmatter } from "./frontmatter.ts";
import {
	AGENT_KEYS,
	type AgentNote,
	type AgentPeer,
	DEFAULT_TOOLS,
	inheritsModel,
	LIFETIMES,
	type Lifetime,
	PEER_DEFAULT_TOOLS,
	PI_SUBAGENTS_KEYS,
	peerOnlyTool,
	peerTool,
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

type Note = (key: string, message: string) => void;

/** combo's and Claude Code's keys with a counterpart; a value pi-flows cannot use is noted, not fatal. */
function peerFields(fm: Record<string, unknown>, note: Note): Partial<AgentDef> {
	const out: Partial<AgentDef> = {};
	if (fm.lifetime !== undefined) {
		const known = typeof fm.lifetime === "string" && (LIFETIMES as readonly string[]).includes(fm.lifetime);
		if (known) out.lifetime = fm.lifetime as Lifetime;
		else note("lifetime", `\`lifetime:\` is one of ${LIFETIMES.join(", ")}; this one is ignored`);
	}
	if (fm.mustCallTool !== undefined && fm.mustCallTool !== false) {
		if (fm.mustCallTool === true) out.mustCallTool = true;
		else if (typeof fm.mustCallTool === "string" && fm.mustCallTool.trim()) out.mustCallTool = fm.mustCallTool.trim();
		else note("mustCallTool", "`mustCallTool:` is true or a tool name; this one is ignored");
	}
	for (const key of ["pane", "openInHerdr"] as const) {
		if (fm[key] === undefined) continue;
		if (typeof fm[key] === "boolean") out.pane = out.pane || (fm[key] as boolean);
		else note(key, `\`${key}:\` is true or false; this one is ignored`);
	}
	if (fm.color !== undefined) {
		if (typeof fm.color === "string" && /^[A-Za-z0-9#-]+$/.test(fm.color.trim())) out.color = fm.color.trim();
		else note("color", "`color:` is a colour name; this one is ignored");
	}
	return out;
}

/** Where `key` sits in the frontmatter, as a 1-based position in the file (the fence is line 1). */
function keyPosition(contents: unknown, lines: LineCounter, key: string): { line: number; column: number } {
	if (isMap(contents)) {
		for (const item of contents.items) {
			if (isScalar(item.key) && item.key.value === key && item.key.range) {
				const pos = lines.linePos(item.key.range[0]);
				return { line: pos.line + 1, column: pos.col };
			}
		}
	}
	return { line: 1, column: 1 };
}

/**
 * `read, bash` or a YAML list. Absent is `undefined` (the default tools apply); present and empty is none
 * (an agent that only answers). Claude Code's names are mapped to pi's, and one without a counterpart is
 * dropped with a note, so its file loads as it is.
 */
function parseTools(value: unknown, note: Note, peer: AgentPeer | undefined): string[] | string | undefined {
	if (value === undefined) return undefined;
	if (value === null || value === "") return [];
	const list = typeof value === "string" ? value.split(",") : Array.isArray(value) ? value : undefined;
	if (!list || list.some((t) => typeof t !== "string"))
		return "`tools:` must be a comma-separated string or a list of names";
	const names: string[] = [];
	const mapped = new Set<string>();
	for (const raw of (list as string[]).map((t) => t.trim()).filter(Boolean)) {
		const claude = peerTool(raw);
		const dropped = claude && "dropped" in claude ? claude.dropped : claude ? undefined : peerOnlyTool(raw, peer);
		if (dropped) {
			note("tools", `${dropped}; it is left out`);
			continue;
		}
		const name = claude && "tool" in claude ? claude.tool : raw;
		if (claude) {
			// Two peer names for one pi tool (Edit, MultiEdit) are one grant, not a repetition.
			if (mapped.has(name) || names.includes(name)) continue;
			mapped.add(name);
		}
		if (!/^[A-Za-z_][\w-]*$/.test(name)) return `\`tools:\` has an invalid tool name \`${name}\``;
		if (names.includes(name)) return `\`tools:\` names \`${name}\` twice`;
		names.push(name);
	}
	return names;
}

/**
 * `skills: a, b` or a YAML list, each name with its place in the file (the fence is line 1), so a fault about
 * one can say where the agent file names it. A name written twice is one skill.
 */
function parseSkills(
	value: unknown,
	key: "skills" | "skill",
	contents: unknown,
	lines: LineCounter,
): AgentSkill[] | string | undefined {
	if (value === undefined || value === null || value === "") return undefined;
	const list = typeof value === "string" ? value.split(",") : Array.isArray(value) ? value : undefined;
	if (!list || list.some((s) => typeof s !== "string"))
		return `\`${key}:\` must be a comma-separated string or a list of names`;
	const node = isMap(contents) ? contents.items.find((i) => isScalar(i.key) && i.key.value === key)?.value : undefined;
	const at = (offset: number | undefined) => {
		if (offset === undefined) return { line: 1, column: 1 };
		const pos = lines.linePos(offset);
		return { line: pos.line + 1, column: pos.col };
	};
	const out: AgentSkill[] = [];
	let from = 0;
	for (const [i, raw] of (list as string[]).entries()) {
		const name = raw.trim();
		if (!name) continue;
		let offset: number | undefined;
		if (isSeq(node)) {
			const item = node.items[i];
			offset = isScalar(item) && item.range ? item.range[0] : undefined;
		} else if (isScalar(node) && node.range && typeof node.source === "string") {
			// A plain one-line scalar: the name sits at its offset within the text as written.
			const k = node.source.indexOf(name, from);
			if (k >= 0 && node.type === "PLAIN") {
				offset = node.range[0] + k;
				from = k + name.length;
			} else offset = node.range[0];
		}
		if (!out.some((s) => s.name === name)) out.push({ name, ...at(offset) });
	}
	return out;
}
