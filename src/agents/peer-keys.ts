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
]);

/** Keys peers define that have no counterpart here, with what a note should say of them. */
const PEER_ONLY: Readonly<Record<string, string>> = {
	concurrency: "combo's delegation width; a flow bounds its fan-outs with `max:`",
	permissionMode: "Claude Code's permission mode; pi-flows grants exactly the tools listed",
	hooks: "Claude Code's hooks do not run inside pi",
	mcpServers: "Claude Code's MCP servers are not loaded by flow subagents",
	memory: "Claude Code's agent memory; a flow node keeps a session with `memory:`",
	effort: "Claude Code's effort; pi-flows reads `thinking:`",
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

/** Claude Code's `model:` aliases that mean "no model of its own". */
export function inheritsModel(model: string): boolean {
	return model === "inherit";
}

/**
 * The tools of an agent that names none. combo gives such an agent read-only tools; pi-subagents gives pi's
 * defaults (which write). We take combo's: a prompt is not a permission boundary, so a file that says
 * nothing about tools must not be able to edit the repository (docs/decisions.md).
 */
export const DEFAULT_TOOLS: readonly string[] = ["read", "grep", "find", "ls"];
