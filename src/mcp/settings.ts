/**
 * What `pi-flows mcp` was started with: the working folder and trust, the run flags it applies to every
 * run it starts (as `pi-flows run` takes them), and how long a call waits before it hands back a handle.
 */
import type { RunFlags } from "../launch/index.ts";

/** The server's settings, read from its command line by `src/cli/mcp.ts`. */
export interface McpSettings {
	cwd: string;
	env: NodeJS.ProcessEnv;
	/** pi's agent folder: credentials, the user's flows and agents, the run key. */
	agentDir: string;
	/** `--project`: the project's flows, agents and scripts are trusted (the trust rule of every command). */
	project: boolean;
	/** `--model`, `--script`, `--timeout`, `--idle-timeout`, the budget and the transport retries. */
	flags: RunFlags;
	/** `--runs-dir`: where run folders go. Default: the project's `.pi/runs`. */
	runsDir?: string;
	/**
	 * `--wait`: how long a call waits for its run before it returns a handle that `run_status` and
	 * `run_result` follow. Default: {@link DEFAULT_WAIT_MS}, below the ~60 s after which hosts cut calls off.
	 */
	waitMs: number;
	/** How long a question waits for a call that can answer it. Default: `QUESTION_GRACE_MS`. */
	graceMs?: number;
	/** A line for the person running the server (stderr; redacted there). */
	note(line: string): void;
}

/** The default bound of a call's wait: Claude Desktop and claude.ai cut a call off at about 60 s. */
export const DEFAULT_WAIT_MS = 25_000;
