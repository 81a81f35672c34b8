/**
 * The real `pi --mode rpc` as a test drives it: one child process, `request` sends a command and resolves
 * with its response, `close` ends stdin and waits for the exit. Shared by the install tests.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { node, piCli } from "./packed.ts";

/** A running pi in RPC mode. */
export interface PiRpc {
	/** Every JSON line pi printed so far. */
	lines: Record<string, unknown>[];
	request(message: Record<string, unknown>): Promise<Record<string, unknown>>;
	close(): Promise<void>;
	stderr(): string;
}

/** Starts pi in RPC mode (`--no-session`, plus `args`) in `cwd` with `env`. */
export function piRpc(cwd: string, env: NodeJS.ProcessEnv, args: string[] = []): PiRpc {
	const child: ChildProcessWithoutNullStreams = spawn(node, [piCli, "--mode", "rpc", "--no-session", ...args], {
		cwd,
		env,
	});
	const lines: Record<string, unknown>[] = [];
	let stderr = "";
	let buffer = "";
	const waiters = new Set<() => void>();
	child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
	child.stdout.on("data", (d: Buffer) => {
		buffer += d.toString();
		for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
			const text = buffer.slice(0, nl).trim();
			buffer = buffer.slice(nl + 1);
			if (text.startsWith("{")) lines.push(JSON.parse(text) as Record<string, unknown>);
		}
		for (const wake of [...waiters]) wake();
	});
	let id = 0;
	const request = (message: Record<string, unknown>) =>
		new Promise<Record<string, unknown>>((resolveLine, reject) => {
			const mine = `r${++id}`;
			const check = () => {
				const found = lines.find((l) => l.type === "response" && l.id === mine);
				if (!found) return;
				waiters.delete(check);
				clearTimeout(timer);
				resolveLine(found);
			};
			const timer = setTimeout(() => {
				waiters.delete(check);
				reject(
					new Error(
						`no response to ${JSON.stringify(message)}; stderr:\n${stderr}\nlines:\n${lines.map((l) => JSON.stringify(l).slice(0, 300)).join("\n")}`,
					),
				);
			}, 120_000);
			waiters.add(check);
			child.stdin.write(`${JSON.stringify({ id: mine, ...message })}\n`);
		});
	const close = () =>
		new Promise<void>((done) => {
			if (child.exitCode !== null) return done();
			child.once("exit", () => done());
			child.stdin.end();
			setTimeout(() => child.kill(), 3_000).unref();
		});
	return { lines, request, close, stderr: () => stderr };
}

/** The commands pi lists from extension files under `root` (`sourceInfo.path`), sorted, with the files. */
export async function commandsFrom(pi: PiRpc, root: string): Promise<{ names: string[]; files: string[] }> {
	const commands = await pi.request({ type: "get_commands" });
	const listed = (commands.data as { commands: { name: string; sourceInfo?: { path?: string } }[] }).commands;
	const ours = listed.filter((c) => c.sourceInfo?.path?.startsWith(`${root}/`));
	return {
		names: ours.map((c) => c.name).sort(),
		files: [...new Set(ours.map((c) => c.sourceInfo?.path ?? ""))],
	};
}

/** pi-flows' commands, as every way of loading it must register them. */
export const OUR_COMMANDS = ["cut", "flows", "handoff", "next", "run", "step"];
