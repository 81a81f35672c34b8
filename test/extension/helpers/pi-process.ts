/**
 * The real `pi` CLI in a temp project, with pi-flows' extension and the test provider loaded by `-e`,
 * its agent dir in a temp folder. `rpc()` speaks pi's RPC protocol (JSON lines); `print()` runs one
 * prompt headless. Nothing of the machine's `~/.pi` is read.
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { agent, sequence } from "./flows.ts";

const here = dirname(fileURLToPath(import.meta.url));
export const repo = resolve(here, "../../..");
const piPackage = join(repo, "node_modules/@earendil-works/pi-coding-agent");
/** pi's CLI entry. */
export const piCli = join(
	piPackage,
	(JSON.parse(readFileSync(join(piPackage, "package.json"), "utf8")) as { bin: { pi: string } }).bin.pi,
);
/** The Node 22 the package brings. */
export const node = join(repo, "node_modules/.bin/node");
const ours = join(repo, "src/extension/index.ts");
const provider = join(here, "../fixtures/scripted-provider.ts");

/** A temp project and agent dir. */
export interface Sandbox {
	root: string;
	cwd: string;
	agentDir: string;
	/** Writes a file; `~agent/` paths go to the agent dir. Returns the absolute path. */
	write(path: string, text: string): string;
	env(extra?: Record<string, string>): NodeJS.ProcessEnv;
	/** pi's arguments: our extension and the test provider, offline, no session. */
	args(extra?: string[]): string[];
	cleanup(): void;
}

/**
 * The two-node flow the `/step` tests walk: `pair` runs `draft` (agent echo) then `review` (agent judge),
 * installed in the agent dir, with `pair.script.yaml` in the project holding `script`.
 */
export function pairSandbox(script: string): Sandbox {
	const box = sandbox(["echo", "judge"]);
	box.write(
		"~agent/flows/pair.md",
		sequence("pair", [
			{ id: "draft", agent: "echo" },
			{ id: "review", agent: "judge" },
		]),
	);
	box.write("pair.script.yaml", script);
	return box;
}

/** A sandbox, with an answer-only agent file in the agent dir for each of `agents`. */
export function sandbox(agents: readonly string[] = []): Sandbox {
	const root = mkdtempSync(join(tmpdir(), "pi-flows-ext-"));
	const cwd = join(root, "project");
	const agentDir = join(root, "agent");
	mkdirSync(cwd, { recursive: true });
	mkdirSync(agentDir, { recursive: true });
	if (agents.length) mkdirSync(join(agentDir, "agents"));
	for (const name of agents) writeFileSync(join(agentDir, "agents", `${name}.md`), agent(name));
	const clean = Object.fromEntries(
		Object.entries(process.env).filter(([k]) => !k.startsWith("PI_FLOWS_") && !k.startsWith("HANDOFF_")),
	);
	return {
		root,
		cwd,
		agentDir,
		write(path, text) {
			const file = path.startsWith("~agent/") ? join(agentDir, path.slice(7)) : join(cwd, path);
			mkdirSync(dirname(file), { recursive: true });
			writeFileSync(file, text);
			return file;
		},
		env: (extra = {}) => ({
			...clean,
			PI_CODING_AGENT_DIR: agentDir,
			PI_OFFLINE: "1",
			PI_SKIP_VERSION_CHECK: "1",
			...extra,
		}),
		args: (extra = []) => [piCli, "--offline", "--no-session", "-ne", "-e", ours, "-e", provider, ...extra],
		cleanup: () => rmSync(root, { recursive: true, force: true }),
	};
}

/** One headless prompt (`pi -p`). */
export function print(box: Sandbox, prompt: string, extraArgs: string[] = [], env: Record<string, string> = {}) {
	return spawnSync(node, box.args([...extraArgs, "-p", prompt]), {
		cwd: box.cwd,
		env: box.env(env),
		encoding: "utf8",
		timeout: 60_000,
	});
}

/** A JSON line from pi. */
export type Line = { type: string; [key: string]: unknown };

/** pi in RPC mode. */
export interface Rpc {
	lines: Line[];
	stderr(): string;
	send(message: Record<string, unknown>): void;
	/** Sends a prompt and resolves with its response line. */
	prompt(text: string): Promise<Line>;
	/** Resolves with the first line (from the start) that `match` accepts. */
	waitFor(match: (line: Line) => boolean, what: string, timeoutMs?: number): Promise<Line>;
	close(): Promise<void>;
}

/** Starts pi with `--mode rpc`; `onUi` answers dialogs (return undefined to leave one unanswered). */
export function rpc(
	box: Sandbox,
	options: {
		args?: string[];
		env?: Record<string, string>;
		onUi?: (request: Line) => Record<string, unknown> | undefined;
	} = {},
): Rpc {
	const child: ChildProcessWithoutNullStreams = spawn(node, box.args(["--mode", "rpc", ...(options.args ?? [])]), {
		cwd: box.cwd,
		env: box.env(options.env),
	});
	const lines: Line[] = [];
	const waiters = new Set<() => void>();
	let err = "";
	let buffer = "";
	let id = 0;
	child.stderr.on("data", (d: Buffer) => {
		err += d.toString();
	});
	child.stdout.on("data", (d: Buffer) => {
		buffer += d.toString();
		for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
			const text = buffer.slice(0, nl);
			buffer = buffer.slice(nl + 1);
			if (!text.trim().startsWith("{")) continue;
			const line = JSON.parse(text) as Line;
			lines.push(line);
			if (line.type === "extension_ui_request" && options.onUi) {
				const answer = options.onUi(line);
				if (answer) child.stdin.write(`${JSON.stringify({ type: "extension_ui_response", id: line.id, ...answer })}\n`);
			}
			for (const wake of [...waiters]) wake();
		}
	});
	const waitFor: Rpc["waitFor"] = (match, what, timeoutMs = 45_000) =>
		new Promise((resolveLine, reject) => {
			const check = () => {
				const found = lines.find(match);
				if (!found) return false;
				waiters.delete(check);
				clearTimeout(timer);
				resolveLine(found);
				return true;
			};
			const timer = setTimeout(() => {
				waiters.delete(check);
				reject(
					new Error(
						`timed out waiting for ${what}; stderr:\n${err}\nlines:\n${lines.map((l) => JSON.stringify(l).slice(0, 400)).join("\n")}`,
					),
				);
			}, timeoutMs);
			if (!check()) waiters.add(check);
		});
	return {
		lines,
		stderr: () => err,
		send: (message) => child.stdin.write(`${JSON.stringify(message)}\n`),
		prompt(text) {
			const mine = `p${++id}`;
			child.stdin.write(`${JSON.stringify({ id: mine, type: "prompt", message: text })}\n`);
			return waitFor((l) => l.type === "response" && l.id === mine, `the response to ${text}`, 60_000);
		},
		waitFor,
		close: () =>
			new Promise((done) => {
				child.once("exit", () => done());
				child.stdin.end();
				setTimeout(() => child.kill(), 2_000).unref();
			}),
	};
}

/** The text of a custom message line. */
export function contentOf(line: Line): string {
	const message = line.message as { content?: unknown } | undefined;
	const c = message?.content;
	return typeof c === "string" ? c : Array.isArray(c) ? c.map((x: { text?: string }) => x.text ?? "").join("") : "";
}

/** The messages pi-flows posted (a run's answer, a refusal's report), in the order they came. */
export function flowResults(lines: Line[]): Line[] {
	return lines.filter(
		(l) => l.type === "message_end" && (l.message as { customType?: string }).customType === "pi-flows",
	);
}

/** The run folders `/run` left under a working folder, oldest first. */
export function runFoldersIn(cwd: string): string[] {
	const home = join(cwd, ".pi/runs");
	return existsSync(home)
		? readdirSync(home)
				.sort()
				.map((d) => join(home, d))
		: [];
}
