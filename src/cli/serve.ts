/**
 * `pi-flows serve [--host H] [--port N] [--project] [--runs-dir DIR] [--database URL]`: starts the web view
 * and prints its URL with a one-time token; runs until Ctrl-C. Listening past loopback is said loudly,
 * since then anyone who can reach the machine can try the token.
 */
import { runsHome } from "../runs/index.ts";
import { openDbos, startServer } from "../serve/index.ts";
import { type Args, flag } from "./args.ts";
import type { Io } from "./io.ts";
import { cliTrusted } from "./project.ts";
import { displayPath } from "./output.ts";

/** Runs `serve`: 0 once stopped, 2 when it cannot start. */
export async function serveCommand(args: Args, io: Io): Promise<number> {
	const portText = flag(args, "port");
	const port = portText === undefined ? 0 : Number(portText);
	if (!Number.isInteger(port) || port < 0 || port > 65535) {
		io.stderr(`pi-flows serve: --port takes a port number (0 to 65535), not \`${portText}\``);
		return 2;
	}
	const host = flag(args, "host") ?? "127.0.0.1";
	const loopback = host === "127.0.0.1" || host === "localhost" || host === "::1";
	const wantsDb = flag(args, "database") !== undefined || io.env.PI_FLOWS_BACKEND === "dbos";
	const db = wantsDb ? await openDbos(flag(args, "database"), io.env) : undefined;
	if (db && "error" in db) {
		io.stderr(db.error);
		return 2;
	}
	const home = runsHome(io.cwd, flag(args, "runs-dir"));
	let served: Awaited<ReturnType<typeof startServer>>;
	try {
		served = await startServer({
			cwd: io.cwd,
			agentDir: io.agentDir,
			env: io.env,
			home,
			project: cliTrusted(args, io),
			...(db ? { db } : {}),
			host,
			port,
		});
	} catch (error) {
		await db?.store.close();
		io.stderr(`pi-flows serve: cannot listen on ${host}:${port}: ${(error as Error).message}`);
		return 2;
	}
	if (!loopback)
		io.stderr(
			`pi-flows serve: warning: listening on ${host}, beyond this machine's loopback: whoever reaches it can try the token; keep the link to yourself`,
		);
	io.stderr(
		`pi-flows serve: runs under ${displayPath(home, io.cwd)}${db ? " and the database's" : ""}${cliTrusted(args, io) ? "" : " (project runs need --project)"}; Ctrl-C stops`,
	);
	io.stdout(served.url);
	await new Promise<void>((resolve) => {
		process.once("SIGINT", () => resolve());
		process.once("SIGTERM", () => resolve());
	});
	await served.close();
	return 0;
}
