/**
 * `delegateTool`: how a subagent gets subagents of its own. It is a tool, built by the caller and handed
 * over like any other, so a model delegates by calling it. It is a plain pi tool definition (JSON schema
 * parameters, no pi import), which keeps this folder free of pi.
 *
 *   customTools: (parentId) => [delegateTool({ agents: [scout], parentId, cwd, spawn, depth: 1 })]
 */
import type { AgentDef } from "../agents/index.ts";
import { createPool } from "../runtime/index.ts";
import type { Result } from "../runtime/index.ts";
import type { Spawn } from "../runtime/index.ts";
import type { WorkflowEvent } from "../runtime/index.ts";

/** Levels below the session a tree of delegations may reach: the session, a child, a grandchild. */
export const DEFAULT_MAX_DEPTH = 2;

/** Options of {@link delegateTool}. */
export interface DelegateToolOptions {
	/** The roster the tool may name, and nothing else. */
	agents: readonly AgentDef[];
	/** The id of the subagent the tool is given to, so its children are measured under it. */
	parentId: string;
	cwd: string;
	spawn: Spawn;
	/** The depth of the subagent holding the tool: 0 for the session itself. Default: 0. */
	depth?: number;
	/** At this depth the tool refuses, and says so. Default: 2. */
	maxDepth?: number;
	/** Per-turn deadline of a child; no default. */
	timeoutMs?: number;
	/** Puts every child on this model. */
	model?: string;
	onEvent?: (event: WorkflowEvent) => void;
}

/** The tool's arguments. */
export interface DelegateParams {
	agent: string;
	task: string;
}

/** What a call reports besides its text: enough to measure the child under its parent. */
export interface DelegateDetails {
	parentId: string;
	depth: number;
	/** Set when the call was refused (the depth bound, an unknown agent, bad arguments). */
	refused?: "depth" | "unknown-agent" | "arguments";
	result?: Result;
}

/** A pi tool result: text for the model, details for the caller. */
export interface DelegateToolResult {
	content: { type: "text"; text: string }[];
	details: DelegateDetails;
	isError?: boolean;
}

/** A pi `ToolDefinition`, written as a plain object. */
export interface DelegateTool {
	name: "subagent";
	label: string;
	description: string;
	parameters: Record<string, unknown>;
	execute(toolCallId: string, params: DelegateParams, signal?: AbortSignal): Promise<DelegateToolResult>;
}

/**
 * Builds the `subagent` tool over a roster. A call runs one turn of the named agent (task lifetime) and
 * answers its output; a failed turn answers its error. At the depth bound, or for a name not in the
 * roster, the tool refuses in words: it is never withheld, which would leave a model calling something
 * that is not there.
 */
export function delegateTool(options: DelegateToolOptions): DelegateTool {
	const depth = options.depth ?? 0;
	const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
	const names = options.agents.map((a) => a.name);
	let calls = 0;
	const answer = (
		text: string,
		details: Omit<DelegateDetails, "parentId" | "depth">,
		isError = false,
	): DelegateToolResult => ({
		content: [{ type: "text", text }],
		details: { parentId: options.parentId, depth, ...details },
		...(isError ? { isError } : {}),
	});
	return {
		name: "subagent",
		label: "Subagent",
		description: `Delegates one self-contained task to a subagent and returns its answer. Agents: ${options.agents.map((a) => `${a.name} (${a.description})`).join("; ")}.`,
		parameters: {
			type: "object",
			properties: {
				agent: { type: "string", enum: names, description: "Which agent does the task: one of the names listed." },
				task: { type: "string", description: "The whole task: the subagent sees nothing else of this conversation." },
			},
			required: ["agent", "task"],
			additionalProperties: false,
		},
		async execute(_toolCallId, params, signal) {
			if (depth >= maxDepth) {
				return answer(
					`Refused: delegation is bounded at depth ${maxDepth} and this subagent is at depth ${depth}. Do the task yourself.`,
					{ refused: "depth" },
					true,
				);
			}
			if (typeof params?.agent !== "string" || typeof params.task !== "string" || !params.task.trim()) {
				return answer(
					"Refused: the call needs `agent` (a name) and `task` (the whole task).",
					{ refused: "arguments" },
					true,
				);
			}
			const agent = options.agents.find((a) => a.name === params.agent);
			if (!agent)
				return answer(
					`Refused: no agent \`${params.agent}\`. The agents are: ${names.join(", ")}.`,
					{ refused: "unknown-agent" },
					true,
				);
			calls++;
			const pool = createPool({
				cwd: options.cwd,
				spawn: options.spawn,
				lifetime: "task",
				parentId: options.parentId,
				...(signal ? { signal } : {}),
				...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
				...(options.model ? { model: options.model } : {}),
				...(options.onEvent ? { onEvent: options.onEvent } : {}),
			});
			let result: Result;
			try {
				// Numbered per tool, so parallel calls to one agent never share a scripted visit.
				result = await pool.turn(agent, params.task, { label: `${agent.name}#${calls}` });
			} finally {
				await pool.closeAll();
			}
			if (!result.ok)
				return answer(`The subagent ${agent.name} failed: ${result.error ?? "unknown error"}`, { result }, true);
			return answer(result.output, { result });
		},
	};
}
