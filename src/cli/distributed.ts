/**
 * The CLI of the DBOS backend: `pi-flows worker` (join a database and run its runs' visits), `pi-flows runs`
 * (the database's runs), `pi-flows stop` (ask a run to stop, from any machine) and `run --backend dbos` (put
 * the run in the database and follow it live while workers run it). Every database failure is printed by
 * the database module's words: what went wrong, what to fix, never a password.
 */
import type { AskPort, FlowResult, RunOptions } from "../engine/index.ts";
import type { CheckedFlow, Value } from "../language/index.ts";
import { formatAbsorbed } from "../engine/index.ts";
import type { EventSink } from "../runtime/index.ts";
import { formatUsage } from "../runtime/index.ts";
import { reuseLine, reuseSummary } from "../identity/index.ts";
import { type JournalEntry, snapshotOf, type Snapshot } from "../runs/index.ts";
import { traceparentFromEnv } from "../telemetry/index.ts";
import { type Args, flag } from "./args.ts";
import type { Io } from "./io.ts";
import { cliTrusted } from "./project.ts";

async function database() {
	return import("../distributed/index.ts");
}

/** `pi-flows worker`: joins the database and runs what its queues hold until stopped (Ctrl-C, SIGTERM). */
export async function workerCommand(args: Args, io: Io): Promise<number> {
	const d = await database();
	const url = d.resolveDatabaseUrl(flag(args, "database"), io.env);
	const number = (name: string, fallback: number) => {
		const text = flag(args, name);
		const n = text === undefined ? fallback : Number(text);
		return Number.isInteger(n) && n > 0 ? n : undefined;
	};
	const slots = number("slots", 8);
	const pollMs = number("poll-ms", 20);
	const deadAfterMs = number("dead-after-ms", 3000);
	const retryForMs = number("retry-for-ms", 60_000);
	if (slots === undefined || pollMs === undefined || deadAfterMs === undefined || retryForMs === undefined) {
		io.stderr("pi-flows worker: --slots, --poll-ms, --dead-after-ms and --retry-for-ms take whole numbers above 0");
		return 2;
	}
	const parsed = d.parseDatabaseUrl(url);
	if (!parsed.ok) {
		io.stderr(d.formatDatabaseFailure(parsed));
		return 2;
	}
	const { startWorker } = await import("../distributed/worker.ts");
	let worker: Awaited<ReturnType<typeof startWorker>>;
	try {
		worker = await startWorker({
			url: parsed.value.url,
			cwd: io.cwd,
			agentDir: io.agentDir,
			projectTrusted: cliTrusted(args, io),
			slots,
			pollMs,
			deadAfterMs,
			retryForMs,
			log: (line) => io.stderr(`pi-flows worker: ${d.redact(line)}`),
		});
	} catch (error) {
		io.stderr(
			error instanceof d.DatabaseFault
				? d.formatDatabaseFailure(error.failure)
				: `pi-flows worker: ${d.redactError(error)}`,
		);
		return 2;
	}
	io.stdout(`worker ${worker.executor} on ${d.describeTarget(parsed.value)}`);
	await new Promise<void>((resolve) => {
		const leave = () => resolve();
		process.once("SIGINT", leave);
		process.once("SIGTERM", leave);
	});
	io.stderr("pi-flows worker: leaving; the other workers take over what ran here");
	await worker.stop();
	return 0;
}

/** Opens the store for a client command (the schema checked, not migrated); prints the failure otherwise. */
async function clientStore(args: Args, io: Io) {
	const d = await database();
	const ready = await d.prepareDatabase(flag(args, "database"), { migrate: false, env: io.env });
	if (!ready.ok) {
		io.stderr(d.formatDatabaseFailure(ready));
		return undefined;
	}
	const url = ready.value.db.target.url;
	await ready.value.db.close();
	const { RunStore } = await import("../distributed/store.ts");
	// A connection lost while following a run is retried (bounded) and said, as a worker's is.
	return { store: new RunStore(url, 2, { log: (line) => io.stderr(`pi-flows: ${line}`) }), url, d };
}

/** `pi-flows runs --database URL`: the database's runs, newest first. */
export async function runsCommand(args: Args, io: Io): Promise<number> {
	const opened = await clientStore(args, io);
	if (!opened) return 2;
	try {
		const runs = await opened.store.runs(Number(flag(args, "limit") ?? 50) || 50);
		if (args.flags.has("json")) io.stdout(JSON.stringify(runs, null, 2));
		else if (!runs.length) io.stderr("pi-flows: no runs in this database yet");
		else
			for (const r of runs)
				io.stdout(
					`${r.id}  ${r.status}${r.stopRequested && r.status === "running" ? " (stopping)" : ""}  life ${r.life}`,
				);
		return 0;
	} catch (error) {
		io.stderr(`pi-flows runs: ${opened.d.redactError(error)}`);
		return 2;
	} finally {
		await opened.store.close();
	}
}

/** `pi-flows stop <run> --database URL`: asks a run to stop; its workers stop its turns at their next beat. */
export async function stopCommand(args: Args, io: Io): Promise<number> {
	const id = args.positionals[0];
	if (!id) {
		io.stderr("usage: pi-flows stop <run id> --database URL");
		return 2;
	}
	const opened = await clientStore(args, io);
	if (!opened) return 2;
	try {
		const asked = await opened.store.requestStop(id);
		if (!asked) {
			io.stderr(`pi-flows: no running run ${id} in this database (see pi-flows runs)`);
			return 2;
		}
		io.stderr(`pi-flows: ${id} was asked to stop; \`pi-flows resume ${id} --backend dbos\` picks it up later`);
		return 0;
	} finally {
		await opened.store.close();
	}
}

/** What `run --backend dbos` hands over once the flow, its input, its stage and its models checked here. */
export interface DistributedLaunch {
	flow: CheckedFlow;
	input: Value;
	scripts: ReadonlyMap<string, string>;
	settings: Snapshot["settings"];
	onEvent: EventSink;
	signal: AbortSignal;
	budget?: RunOptions["budget"];
	/** The person at this terminal: the workers' questions are put to them while the run is followed. */
	ask?: AskPort;
	/** `--reuse`: `last` (the newest run of the flow in this database) or a run id of it. */
	reuse?: string;
}

/** Puts a run in the database, then follows it live until it ends (or the person stops following). */
export async function runDistributed(launch: DistributedLaunch, args: Args, io: Io): Promise<number> {
	const opened = await clientStore(args, io);
	if (!opened) return 2;
	const { enqueueRun, followRun } = await import("../distributed/client.ts");
	try {
		const reuse = launch.reuse ? await reusedRun(opened.store, launch.reuse, launch.flow.name.value) : undefined;
		if (reuse && !reuse.ok) {
			io.stderr(`pi-flows: ${reuse.error}; nothing was run`);
			return 2;
		}
		if (reuse) io.stderr(`pi-flows: reusing what did not change from run ${reuse.id}`);
		const parent = traceparentFromEnv(io.env);
		const settings = {
			...launch.settings,
			...(reuse ? { reuse: reuse.id } : {}),
			...(parent ? { traceparent: parent } : {}),
		};
		const snapshot = snapshotOf(launch.flow, launch.input, launch.scripts, settings);
		const id = await enqueueRun(opened.store, opened.url, snapshot);
		io.stderr(`pi-flows: run ${id} is in the database; a worker picks it up (pi-flows worker --database ...)`);
		const followed = await followRun(opened.store, id, {
			onEvent: launch.onEvent,
			signal: launch.signal,
			...(launch.ask ? { ask: launch.ask } : {}),
		});
		if ("stoppedFollowing" in followed) {
			io.stderr(`pi-flows: no longer following ${id}; it runs on (pi-flows stop ${id} stops it)`);
			return 130;
		}
		return printOutcome(id, followed.result, args, io);
	} catch (error) {
		io.stderr(`pi-flows: ${opened.d.redactError(error)}`);
		return 2;
	} finally {
		await opened.store.close();
	}
}

/**
 * The run of this database `--reuse` names: `last`, the newest run of `flow` there, or a run id. The
 * database is where the workers share it, so the new run's workers read it from there.
 */
async function reusedRun(
	store: { runs(limit?: number): Promise<{ id: string; flow: string }[]>; run(id: string): Promise<unknown> },
	named: string,
	flow: string,
): Promise<{ ok: true; id: string } | { ok: false; error: string }> {
	if (named === "last") {
		const last = (await store.runs(1000)).find((r) => r.flow === flow);
		return last
			? { ok: true, id: last.id }
			: { ok: false, error: `no earlier run of ${flow} in this database to reuse` };
	}
	return (await store.run(named))
		? { ok: true, id: named }
		: { ok: false, error: `no run ${named} in this database to reuse (see pi-flows runs)` };
}

/**
 * The run of this database a plan reads (`plan --reuse [last|ID] --backend dbos`): its journal entries as
 * the new run's workers would read them, and its snapshot.
 */
export async function databaseRun(
	args: Args,
	io: Io,
	named: string,
	flow: string,
): Promise<{ entries: JournalEntry[]; snapshot: Snapshot; from: string; shown: string } | { error: string }> {
	const opened = await clientStore(args, io);
	if (!opened) return { error: "the database cannot be read (said above)" };
	try {
		const found = await reusedRun(opened.store, named, flow);
		if (!found.ok) return { error: found.error };
		const row = await opened.store.run(found.id);
		if (!row) return { error: `no run ${found.id} in this database to reuse (see pi-flows runs)` };
		return {
			entries: await opened.store.entries(found.id),
			snapshot: row.snapshot,
			from: found.id,
			shown: `run ${found.id}`,
		};
	} catch (error) {
		return { error: opened.d.redactError(error) };
	} finally {
		await opened.store.close();
	}
}

/** Prints a distributed run's end as `run` prints a run folder's. */
function printOutcome(id: string, result: FlowResult, args: Args, io: Io): number {
	if (args.flags.has("json")) io.stdout(JSON.stringify({ ...result, run: id }, null, 2));
	else if (result.ok)
		io.stdout(typeof result.output === "string" ? result.output : JSON.stringify(result.output, null, 2));
	const reused = reuseSummary(result.visits);
	io.stderr(
		`${result.ok ? "✓" : "✗"} ${result.flow} · ${result.visits.length} visit(s) · ${formatUsage(result.usage)}${reused ? ` · ${reuseLine(reused)}` : ""} · ${id}`,
	);
	if (result.absorbed) io.stderr(`pi-flows: ${formatAbsorbed(result.absorbed)}`);
	if (!result.ok) {
		io.stderr(`pi-flows: the run failed at ${result.failedAt}: ${result.error}`);
		return 1;
	}
	return 0;
}

/**
 * `pi-flows resume <run> --database URL`: the run's next life, from any machine reaching its database. Its
 * journal decides as a run folder's does: a run that ended well or failed by the flow's own decision is
 * refused, and a turn cut after it may have written is in doubt until `--in-doubt rerun`.
 */
export async function resumeDistributed(args: Args, io: Io): Promise<number> {
	const id = args.positionals[0];
	if (!id) {
		io.stderr("usage: pi-flows resume <run id> --backend dbos --database URL");
		return 2;
	}
	const opened = await clientStore(args, io);
	if (!opened) return 2;
	const { followRun, startNextLife } = await import("../distributed/client.ts");
	try {
		const inDoubt = flag(args, "in-doubt") === "rerun" ? "rerun" : "stop";
		const next = await startNextLife(opened.store, opened.url, id, inDoubt);
		if (!next.ok) {
			io.stderr(`pi-flows: ${next.refused}`);
			return 2;
		}
		const { life, after } = next;
		io.stderr(`pi-flows: resuming ${id} (life ${life}); a worker picks it up`);
		const { terminalWorld } = await import("./launch.ts");
		const world = terminalWorld(io);
		const { terminalAsk } = await import("./ask.ts");
		try {
			const followed = await followRun(opened.store, id, {
				ask: terminalAsk(),
				onEvent: world.onEvent,
				signal: world.signal,
				after,
				life,
			});
			if ("stoppedFollowing" in followed) return 130;
			return printOutcome(id, followed.result, args, io);
		} finally {
			await world.done();
		}
	} finally {
		await opened.store.close();
	}
}

/** `pi-flows report <run> --database URL`: the report page of a run in the database (default `<run>.html`). */
export async function reportDistributed(args: Args, io: Io): Promise<number> {
	const id = args.positionals[0];
	if (!id) {
		io.stderr("usage: pi-flows report <run id> --database URL [--out FILE]");
		return 2;
	}
	const opened = await clientStore(args, io);
	if (!opened) return 2;
	try {
		const row = await opened.store.run(id);
		if (!row) {
			io.stderr(`pi-flows: no run ${id} in this database (see pi-flows runs)`);
			return 2;
		}
		const { journalTroubles, reportHtml } = await import("../report/index.ts");
		const { fromSnapshot, usageOf } = await import("../runs/index.ts");
		const { writeAtomic } = await import("../runs/files.ts");
		const { resolve } = await import("node:path");
		const journal = await opened.store.entries(id);
		const events = (await opened.store.eventsAfter(id, 0, 10_000_000)).map((e) => e.event);
		const flow = fromSnapshot(row.snapshot);
		const problems = "error" in flow ? [`the graph cannot be drawn: ${flow.error}`] : [];
		const html = reportHtml({
			dir: `${id} (DBOS backend)`,
			snapshot: row.snapshot,
			...("value" in flow ? { flow: flow.value } : {}),
			journal,
			events: events as never,
			usage: usageOf(journal, row.snapshot.settings.budget),
			usageFromFile: true,
			...(row.result ? { result: row.result as never } : {}),
			problems,
			// The database keeps no transcripts: its workers journal each turn's tool troubles instead.
			troubles: journalTroubles(journal),
		});
		const out = resolve(io.cwd, flag(args, "out") ?? `${id}.html`);
		writeAtomic(out, html);
		io.stdout(out);
		return 0;
	} finally {
		await opened.store.close();
	}
}
