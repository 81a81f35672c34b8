/**
 * The tools a flow's subagent can be given: pi's built-in tools (pi 1.6) and pi-flows' own `subagent`.
 * Flow subagents load no pi extensions, and pi takes an unknown name in a tool list without a word, so an
 * agent that lists `fetch_url` would run with no such tool and its model would never know why. The checker
 * refuses such an agent instead (`unknown-tool`); test/agents/tools.test.ts holds this list against pi.
 *
 *   tools: read, fetch_url   →  unknown-tool: … lists `fetch_url`, which a flow's subagent cannot have
 */
export const SUBAGENT_TOOLS: readonly string[] = [
	"read",
	"bash",
	"powershell",
	"edit",
	"write",
	"grep",
	"find",
	"ls",
	"subagent",
];

/**
 * The tools whose turns may change the tree: a visit that has one starts on a recorded tree, is in doubt
 * when a crash cuts its turn, has its change recorded for reuse, and needs its own copy in a parallel
 * block. One list for all of these; `powershell` writes as `bash` does.
 */
export const WRITING_TOOLS: ReadonlySet<string> = new Set(["write", "edit", "bash", "powershell", "subagent"]);

/** Whether any of `tools` may change the tree (a loop: every visit of a run asks). */
export function mayWriteWith(tools: readonly string[]): boolean {
	for (const t of tools) if (WRITING_TOOLS.has(t)) return true;
	return false;
}

/** The agent's tools that a flow's subagent cannot have, in the order the agent lists them. */
export function unknownTools(tools: readonly string[]): string[] {
	return tools.filter((t) => !SUBAGENT_TOOLS.includes(t));
}
