/**
 * Agent files written for a peer load as they are. combo's and Claude Code's agents carry keys of their own;
 * those with a counterpart here are honoured, the others are kept and reported as notes, never a broken
 * agent (one unknown key used to refuse every flow naming the agent, so a folder of Claude Code agents, or
 * combo's own, could not be used at all).
 *
 *   tools: Read, Grep, Glob, WebFetch   →  tools read, grep, find; a note: `WebFetch` has no counterpart
 *   lifetime: workflow                  →  the node keeps its subagent across its visits (as `memory:`)
 *   mustCallTool: true                  →  a turn that calls no tool fails and is retried like a bad answer
 *   openInHerdr: true / pane: true      →  the visit opens a terminal pane that follows its transcript
 */
import { SUBAGENT_TOOLS } from "./tools.ts";

/** Something an agent file says that pi-flows keeps but does not act on, with where it says it. */
export interface AgentNote {
	/** The frontmatter key. */
	key: string;
	/** 1-based line and column of the key in the agent file. */
	line: number;
	column: number;
	message: string;
}

/** How long a subagent lives, in combo's words; `workflow` and `session` keep it across the node's visits. */
export type Lifetime = "task" | "workflow" | "session";

export const LIFETIMES: readonly Lifetime[] = ["task", "workflow", "session"];

/**
 * Keys pi-flows reads, its own and peers' with a counterpart. Any other key is kept and noted.
 * `skills` and `thinking` are ours; `lifetime`, `mustCallTool`, `openInHerdr` are combo's; `color` and
 * `disallowedTools` are Claude Code's; `pane` is ours for `openInHerdr`.
 */
export const AGENT_KEYS: ReadonlySet<string> = new Set([
	"name",
	"description",
	"tools",
	"model",
	"thinking",
	"skills",
	"lifetime",
	"mustCallTool",
	"openInHerdr",
	"pane",
	"color",
	"disallowedTools",
	"package",
	"skill",
]);

/**
 * Keys only pi-subagents writes. They say who a file in a pi folder was written for: such a file that names
 * no `tools:` gets pi-subagents' default (pi's default tools), where combo's and ours would be read-only.
 */
export const PI_SUBAGENTS_KEYS: ReadonlySet<string> = new Set([
	"package",
	"skill",
	"systemPromptMode",
	"inheritProjectContext",
	"inheritSkills",
	"defaultContext",
	"defaultReads",
	"defaultProgress",
	"output",
	"extensions",
	"subagentOnlyExtensions",
	"fallbackModels",
	"acceptanceRole",
	"completionGuard",
	"maxSubagentDepth",
	"maxOutput",
	"skillPath",
]);

/** Keys peers define that have no counterpart here, with what a note should say of them. */
const PEER_ONLY: Readonly<Record<string, string>> = {
	concurrency: "combo's delegation width; a flow bounds its fan-outs with `max:`",
	permissionMode: "Claude Code's permission mode; pi-flows grants exactly the tools listed",
	hooks: "Claude Code's hooks do not run inside pi",
	mcpServers: "Claude Code's MCP servers are not loaded by flow subagents",
	memory: "Claude Code's agent memory; a flow node keeps a session with `memory:`",
	effort: "Claude Code's effort; pi-flows reads `thinking:`",
	systemPromptMode: "pi-subagents' prompt mode; a flow subagent's system prompt is the agent's body",
	inheritProjectContext: "pi-subagents' context inheritance; a flow subagent sees what its node reads",
	inheritSkills: "pi-subagents' skill inheritance; a flow subagent has the skills its agent and node name",
	defaultContext: "pi-subagents' context mode; a flow subagent sees what its node reads",
	defaultReads: "pi-subagents' files a step reads; a flow node reads what its `reads:` names",
	defaultProgress: "pi-subagents' progress file; a flow node reads earlier nodes by `reads:`",
	output: "pi-subagents writes the answer to a file; a flow node's answer travels by `reads:`",
	extensions: "flow subagents load no pi extensions",
	subagentOnlyExtensions: "flow subagents load no pi extensions",
	fallbackModels: "pi-subagents' fallback models; a flow node's transport retries are `--retries`",
	acceptanceRole: "pi-subagents' acceptance gates; a flow node's checks are its `verdict:` and `check:` nodes",
	completionGuard: "pi-subagents' completion guard",
	maxSubagentDepth: "delegation depth is bounded by PI_FLOWS_MAX_DEPTH",
	maxOutput: "pi-subagents' output limit",
	skillPath: "skills are looked up beside the agent file, in `.pi/skills` and the agent dir",
};

/** The note for a key pi-flows does not act on. */
export function unknownKeyNote(key: string): string {
	const peer = PEER_ONLY[key];
	if (peer) return `\`${key}\` is kept but has no effect here (${peer})`;
	return `\`${key}\` is not an agent key pi-flows knows; it is kept and has no effect`;
}

/**
 * Claude Code's tool names and pi's counterparts. Claude Code capitalises its tools, so a capitalised name
 * (or a permission pattern like `Bash(git:*)`) is read as Claude Code's; pi's own names are lower case.
 */
const CLAUDE_TOOLS: Readonly<Record<string, string>> = {
	Read: "read",
	Write: "write",
	Edit: "edit",
	MultiEdit: "edit",
	Bash: "bash",
	Grep: "grep",
	Glob: "find",
	LS: "ls",
	Task: "subagent",
	Agent: "subagent",
};

/** A tool name as written, mapped to pi's; `undefined` with a reason when pi has no such tool. */
export function peerTool(name: string): { tool: string } | { dropped: string } | undefined {
	const bare = name.replace(/\(.*\)$/, "");
	if (bare.startsWith("mcp__")) return { dropped: `\`${name}\` is an MCP tool, which flow subagents do not load` };
	if (!/^[A-Z]/.test(bare)) return undefined;
	const tool = CLAUDE_TOOLS[bare];
	if (tool) return { tool };
	return { dropped: `Claude Code's \`${bare}\` has no pi counterpart` };
}

/**
 * A lower-case tool a peer's agent lists that no flow subagent can have, with why, when the peer says what
 * it is: pi-subagents' `intercom` and `mcp:` tools, a tool-extension path, or (in Claude Code's folders,
 * where lower-case names are MCP servers and plug-ins, never pi's) any name pi lacks. `undefined`: not a
 * peer's, so the checker judges it (`unknown-tool`).
 */
export function peerOnlyTool(name: string, peer: AgentPeer | undefined): string | undefined {
	if (name.startsWith("mcp:")) return `\`${name}\` is an MCP tool, which flow subagents do not load`;
	if (name === "intercom" || name === "contact_supervisor")
		return `pi-subagents' \`${name}\` has no counterpart: a flow subagent hands its answer on by \`reads:\``;
	if (/[/\\]|\.(ts|js|mjs)$/.test(name))
		return `\`${name}\` is a tool extension's path; flow subagents load no extensions`;
	if (peer === "claude-code" && !SUBAGENT_TOOLS.includes(name)) return `\`${name}\` is not a tool pi has`;
	return undefined;
}

/** Who wrote an agents folder's files, when the folder says so (`.claude/agents` is Claude Code's). */
export type AgentPeer = "claude-code";

/**
 * `model:` values that mean "no model of its own": Claude Code's `inherit`, pi-vault's `default`, and
 * pi-crew's `false` (given here as written, `false`).
 */
export function inheritsModel(model: string | boolean): boolean {
	return model === false || (typeof model === "string" && ["inherit", "default"].includes(model.toLowerCase()));
}

/**
 * The tools of an agent that names none, written for combo or for pi-flows: read-only, combo's default. A
 * prompt is not a permission boundary, so a file that says nothing about tools must not be able to edit
 * the repository (docs/decisions.md). A file written for a peer gets that peer's default instead, and the
 * check and the plan say so (PEER_DEFAULT_TOOLS).
 */
export const DEFAULT_TOOLS: readonly string[] = ["read", "grep", "find", "ls"];

/**
 * What a peer gives an agent that names no `tools:`, in pi's tools: Claude Code gives every tool it has
 * (pi's built-ins here, `powershell` being Windows' `bash`; Claude Code's subagents get no `Task`), and
 * pi-subagents passes no tool list, so pi's default tools apply.
 */
export const PEER_DEFAULT_TOOLS: Readonly<Record<"Claude Code" | "pi-subagents", readonly string[]>> = {
	"Claude Code": ["read", "bash", "edit", "write", "grep", "find", "ls"],
	"pi-subagents": ["read", "bash", "edit", "write"],
};
