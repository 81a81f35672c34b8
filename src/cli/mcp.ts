/**
 * `pi-flows mcp`: the flows this folder can see, served as MCP tools to another agent host (Claude Code,
 * Codex, Cursor, OpenCode) over stdio, or over streamable HTTP on 127.0.0.1 with `--http`. The run flags
 * (`--model`, `--script`, the budget, `--timeout`, the retries, `--backend`) apply to every run the server
 * starts, as `pi-flows run` applies them. Runs until the host closes stdio, or until Ctrl-C for HTTP;
 * either way the runs of this process still going are stopped as Ctrl-C stops them, and stay resumable
 * (runs on the DBOS backend go on in its workers). Nothing of the MCP SDK loads before this command runs.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseDuration } from "../language/syntax/index.ts";
import { DEFAULT_WAIT_MS, type McpSettings, type RunBackend, serveOverHttp, serveOverStdio } from "../mcp/index.ts";
import { redactText, rememberSecret } from "../secrets/index.ts";
import { type Args, flag } from "./args.ts";
import { backendOf } from "./backend.ts";
import type { Io } from "./io.ts";
import { cliTrusted } from "./project.ts";
import { readRunFlags } from "./run-flags.ts";

/** Where a generated HTTP token is written for the person to copy into their host's settings. */
export const TOKEN_FILE = "pi-flows-mcp.token";

/** Runs `mcp`. */
export async function mcpCommand(args: Args, io: Io): Promise<number> {
	const say = (line: string) => io.stderr(redactText(`pi-flows mcp: ${line}`));
	const flags = readRunFlags(args);
	if (!flags.ok) {
		say(flags.error);
		return 2;
	}
	const backend = backendOf(args, io);
	if (!backend.ok) {
		say(backend.error);
		return 2;
	}
	const waitText = flag(args, "wait");
	const waitMs = waitText === undefined ? DEFAULT_WAIT_MS : parseDuration(waitText);
	if (waitMs === undefined || waitMs <= 0) {
		say(`--wait takes a duration like 20s or 2m, not \`${waitText}\``);
		return 2;
	}
	const runsDir = flag(args, "runs-dir");
	const settings: McpSettings = {
		cwd: io.cwd,
		env: io.env,
		agentDir: io.agentDir,
		project: cliTrusted(args, io),
		flags: flags.value,
		...(runsDir ? { runsDir } : {}),
		waitMs,
		note: say,
	};
	const portText = flag(args, "port") ?? "0";
	const port = Number(portText);
	if (!Number.isInteger(port) || port < 0 || port > 65535) {
		say(`--port takes a port number (0 for a free one), not \`${portText}\``);
		return 2;
	}
	let runs: RunBackend | undefined;
	if (backend.value === "dbos") {
		// The DBOS SDK loads only for this backend, as for `run --backend dbos`.
		const opened = await (await import("../mcp/dbos.ts")).dbosBackend(settings, flag(args, "database"));
		if (!opened.ok) {
			io.stderr(opened.error);
			return 2;
		}
		runs = opened.value;
	}
	if (!args.flags.has("http")) {
		const serving = serveOverStdio(settings, runs);
		await serving.closed;
		return 0;
	}
	const token = tokenOf(io, say);
	let serving: Awaited<ReturnType<typeof serveOverHttp>>;
	try {
		serving = await serveOverHttp(settings, port, token, runs);
	} catch (error) {
		await runs?.close();
		say(`cannot listen on 127.0.0.1:${port}: ${(error as Error).message}`);
		return 2;
	}
	say(`serving ${serving.url} (Authorization: Bearer <token>); Ctrl-C stops it`);
	await new Promise<void>((resolve) => {
		const stop = () => {
			process.removeListener("SIGINT", stop);
			process.removeListener("SIGTERM", stop);
			say("stopping: every run still going is stopped and lands its handoff");
			void serving.close().then(resolve);
		};
		process.on("SIGINT", stop);
		process.on("SIGTERM", stop);
	});
	return 0;
}

/**
 * The bearer token: `PI_FLOWS_MCP_TOKEN` when set (a host's settings keep it), else a new one written to
 * the agent folder, readable by its owner only. Remembered as a secret, so no record shows it.
 */
function tokenOf(io: Io, say: (line: string) => void): string {
	const given = io.env.PI_FLOWS_MCP_TOKEN?.trim();
	if (given) return rememberSecret(given);
	const token = rememberSecret(randomBytes(24).toString("base64url"));
	const file = join(io.agentDir, TOKEN_FILE);
	mkdirSync(io.agentDir, { recursive: true });
	writeFileSync(file, `${token}\n`, { mode: 0o600 });
	chmodSync(file, 0o600);
	say(`a new bearer token is in ${file} (set PI_FLOWS_MCP_TOKEN to choose one)`);
	return token;
}
