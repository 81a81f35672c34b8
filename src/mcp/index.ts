/**
 * The MCP server's door: `pi-flows mcp` serves every flow it can see as a tool (plus `chain`, `flow_check`,
 * `flow_plan` and the `run_*` tools) to Claude Code, Codex, Cursor, OpenCode and any MCP client, over stdio
 * or streamable HTTP on 127.0.0.1. Only `src/cli/mcp.ts` comes in here, so no other command loads the SDK;
 * `dbos.ts` (the DBOS backend) is imported by itself, so the DBOS SDK loads only for `--backend dbos`.
 */
export { type Serving, serveOverHttp, serveOverStdio } from "./server.ts";
export { DEFAULT_WAIT_MS, type McpSettings } from "./settings.ts";
export { MCP_PATH, refusal } from "./http.ts";
export type { RunBackend } from "./backend.ts";
