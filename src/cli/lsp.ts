/**
 * `pi-flows lsp`: the flow language server on stdin/stdout, for any editor's LSP client. It runs until the
 * client sends `exit` (or closes stdin); nothing else may write to stdout, which carries the protocol.
 */
import { startServer } from "../lsp/index.ts";
import type { Args } from "./args.ts";
import type { Io } from "./io.ts";

/**
 * Runs `lsp`. `--stdio` is accepted because most clients pass it; `--clientProcessId` is read by the
 * protocol library itself, so the server also ends when the editor dies without saying `exit`.
 */
export function lspCommand(args: Args, io: Io): Promise<number> {
	if (args.positionals.length > 0) {
		io.stderr("usage: pi-flows lsp [--stdio]");
		return Promise.resolve(2);
	}
	// stdout carries the protocol: a stray log line from anywhere would break the client's framing.
	for (const method of ["log", "info", "debug", "warn"] as const)
		console[method] = (...parts: unknown[]) => console.error(...parts);
	const connection = startServer({ input: process.stdin, output: process.stdout, env: io.env, cwd: io.cwd });
	return new Promise((resolve) => connection.onExit(() => resolve(0)));
}
