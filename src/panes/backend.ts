/**
 * Where a pane can open: tmux (inside a tmux session) or herdr (inside a herdr pane). A backend opens a pane
 * running `tail -f` on a file and closes it; it never throws, because a pane is display and display is an
 * observer: a pane that cannot open costs the run nothing.
 *
 *   TMUX=/tmp/tmux-0/default,123,0 TMUX_PANE=%0  →  tmux split-window -d -t %0 tail -n +1 -f <file>
 *   HERDR_ENV=1 HERDR_SOCKET_PATH=… HERDR_PANE_ID=…  →  herdr's agent.start over its socket
 */
import { execFileSync } from "node:child_process";
import { createConnection } from "node:net";

/** Opens and closes panes that follow a file. */
export interface PaneBackend {
	readonly name: "tmux" | "herdr";
	/** Opens a pane following `file`; its id, or undefined when it could not open. */
	open(file: string, title: string, color?: string): Promise<string | undefined>;
	close(id: string): Promise<void>;
}

/** The backend this terminal offers, or undefined (then `pane:` is a note). */
export function detectPaneBackend(env: NodeJS.ProcessEnv = process.env): PaneBackend | undefined {
	if (env.HERDR_ENV === "1" && env.HERDR_SOCKET_PATH && env.HERDR_PANE_ID) return herdrBackend(env.HERDR_SOCKET_PATH);
	if (env.TMUX) return tmuxBackend(env);
	return undefined;
}

/** tmux, through its client; the client finds the session's server from `TMUX`, as any command inside tmux does. */
export function tmuxBackend(env: NodeJS.ProcessEnv): PaneBackend {
	const tmux = (args: string[]): string | undefined => {
		try {
			// Synchronous on purpose: the pane is there before the turn's first request, and a split takes milliseconds.
			return execFileSync("tmux", args, {
				env,
				encoding: "utf8",
				stdio: ["ignore", "pipe", "ignore"],
				timeout: 5000,
			}).trim();
		} catch {
			return undefined;
		}
	};
	return {
		name: "tmux",
		async open(file, title, color) {
			const target = env.TMUX_PANE ? ["-t", env.TMUX_PANE] : [];
			const id = tmux([
				"split-window",
				"-d",
				"-h",
				"-P",
				"-F",
				"#{pane_id}",
				...target,
				"tail",
				"-n",
				"+1",
				"-f",
				file,
			]);
			if (!id) return undefined;
			tmux(["select-pane", "-t", id, "-T", title]);
			if (color) tmux(["set-option", "-p", "-t", id, "pane-border-style", `fg=${color}`]);
			return id;
		},
		async close(id) {
			tmux(["kill-pane", "-t", id]);
		},
	};
}

/** herdr's socket: one JSON request a connection, as herdr's own pi integration speaks it. */
export function herdrBackend(socketPath: string): PaneBackend {
	let seq = Date.now() * 1000;
	const send = (method: string, params: Record<string, unknown>) =>
		new Promise<unknown>((resolve) => {
			const socket = createConnection(socketPath);
			const done = (value: unknown) => {
				clearTimeout(timer);
				socket.destroy();
				resolve(value);
			};
			const timer = setTimeout(() => done(undefined), 1500);
			timer.unref?.();
			socket.on("error", () => done(undefined));
			socket.on("connect", () => socket.write(`${JSON.stringify({ id: `pi-flows:${++seq}`, method, params })}\n`));
			socket.on("data", (chunk) => {
				try {
					done(JSON.parse(chunk.toString("utf8").split("\n", 1)[0] ?? ""));
				} catch {
					done(undefined);
				}
			});
		});
	return {
		name: "herdr",
		async open(file, title) {
			const argv = ["tail", "-n", "+1", "-f", file];
			const answer = (await send("agent.start", { name: title, argv, split: "right", focus: false })) as {
				result?: { agent?: { pane_id?: unknown } };
			};
			const id = answer?.result?.agent?.pane_id;
			return typeof id === "string" ? id : undefined;
		},
		async close(id) {
			await send("pane.close", { pane_id: id });
		},
	};
}
