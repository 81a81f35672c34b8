/**
 * `pi-flows record [run] [--name NAME] [--strict] [--refresh NODE]`: a finished run (a run folder made
 * here, or with `--backend dbos` a run of the database) kept as a cassette beside its flow, with a flow
 * test that replays it (`pi-flows test`). Secret-shaped values are masked and named; `--strict` refuses to
 * write when there is one. `--refresh NODE` runs the flow again against its real model, reusing every
 * visit but NODE's (and what its answer changes) from the recorded run, and records that run instead
 * (on the DBOS backend, on the database's workers).
 *
 * Exit: 0 written · 1 refused by `--strict` · 2 bad usage, no such run, a run not ended, or a file unsafe.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import {
	cassetteFiles,
	NAME,
	readCassette,
	type RunToRecord,
	recordRun,
	reusedFrom,
	testText,
	type TranscriptOf,
	writeCassette,
} from "../cassette/index.ts";
import { safeWrite } from "../fs-safe/index.ts";
import { type JournalEntry, listRunFolders, runsHome } from "../runs/index.ts";
import { findRun, readRun } from "../reuse/index.ts";
import { type Args, flag } from "./args.ts";
import { backendOf } from "./backend.ts";
import type { Io } from "./io.ts";
import { displayPath } from "./output.ts";

/** Runs `record`. */
export async function recordCommand(args: Args, io: Io): Promise<number> {
	const say = (text: string) => io.stderr(`pi-flows record: ${text}`);
	const name = flag(args, "name") ?? "recorded";
	if (!NAME.test(name)) {
		say(
			`--name ${JSON.stringify(name)}: a name is letters, digits, - and _ (at most 64), starting with a letter or digit`,
		);
		return 2;
	}
	const backend = backendOf(args, io);
	if (!backend.ok) {
		say(backend.error);
		return 2;
	}
	const home = runsHome(io.cwd, flag(args, "runs-dir"));
	const refresh = flag(args, "refresh");
	let named = args.positionals[0];
	if (refresh !== undefined) {
		const again =
			backend.value === "dbos"
				? await refreshedInDatabase(args, io, name, refresh)
				: await refreshed(args, io, home, name, refresh);
		if ("error" in again) {
			say(again.error);
			return 2;
		}
		named = again.run;
	}
	const opened = backend.value === "dbos" ? await databaseRecord(args, io, named) : folderRecord(io, home, named);
	if ("error" in opened) {
		say(opened.error);
		return 2;
	}
	const recorded = await recordRun(opened);
	if ("error" in recorded) {
		say(recorded.error);
		return 2;
	}
	const { cassette, test } = recorded;
	for (const r of cassette.redacted)
		io.stderr(`pi-flows record: a secret-shaped value (${r.kind}) in visit ${r.visit}, ${r.where}: redacted`);
	if (cassette.redacted.length && args.flags.has("strict")) {
		say(
			`--strict: ${cassette.redacted.length} secret-shaped value(s) found (above); nothing was written. Remove them from the run's answers and files, or record without --strict to keep them redacted`,
		);
		return 1;
	}
	for (const m of recorded.missing)
		say(`visit ${m} kept no turns (its transcript is gone); a replay of it fails until it is recorded again`);
	if (!cassette.visits.size) {
		say(`the run ${opened.run} has no agent turn to record`);
		return 2;
	}
	const flowFile = opened.snapshot.flow.file;
	if (!existsSync(flowFile)) {
		say(`the flow file ${displayPath(flowFile, io.cwd)} of the run is gone; a cassette goes beside its flow`);
		return 2;
	}
	const files = cassetteFiles(flowFile, cassette.flow, name);
	const shown = { cassette: displayPath(files.cassette, io.cwd), test: displayPath(files.test, io.cwd) };
	const turns = [...cassette.visits.values()].reduce(
		(n, v) => n + v.turns.length + [...(v.members?.values() ?? [])].reduce((k, t) => k + t.length, 0),
		0,
	);
	const head = ` A cassette of run ${cassette.run} of \`${cassette.flow}\`, written by \`pi-flows record\`: per visit and turn, what
 the model answered and a fingerprint of what it was asked. Replayed by ${basename(files.test)}; see
 docs/scripted-model.md. Record it again rather than editing it.`;
	const testHead = ` Replays ${basename(files.cassette)} (run ${cassette.run}), written by \`pi-flows record\`. Run it with
 \`pi-flows test\` (--replay strict | warn | lockdown). Edit \`expect\` freely; record again for new answers.`;
	try {
		safeWrite(files.cassette, writeCassette(cassette, head), [io.cwd, home]);
		safeWrite(files.test, testText(test, cassette.flow, files.cassette, testHead), [io.cwd, home]);
	} catch (error) {
		say(`${(error as Error).message}; nothing more was written`);
		return 2;
	}
	io.stdout(shown.cassette);
	io.stdout(shown.test);
	say(
		`${cassette.visits.size} visit(s), ${turns} turn(s) of run ${cassette.run} recorded; replay with \`pi-flows test ${shown.test}${args.flags.has("project") ? " --project" : ""}\``,
	);
	return 0;
}

/** A run folder made here, its seal checked: the newest that ended when none is named. */
function folderRecord(io: Io, home: string, named: string | undefined): RunToRecord | { error: string } {
	let runDir: string | undefined;
	if (named === undefined || named === "last") {
		let best: { dir: string; at: string } | undefined;
		for (const dir of listRunFolders(home)) {
			const read = readRun(dir, io.agentDir);
			if (!read.ok || !read.entries.some((e) => e.type === "run_end")) continue;
			const at = String(read.snapshot.createdAt);
			if (!best || at > best.at) best = { dir, at };
		}
		if (!best) return { error: `no finished run made here to record (under ${displayPath(home, io.cwd)})` };
		runDir = best.dir;
	} else {
		const found = findRun(named, home, "", io.cwd, io.agentDir);
		if (!found.ok) return { error: found.error };
		runDir = found.runDir;
	}
	const read = readRun(runDir, io.agentDir);
	if (!read.ok) return { error: read.error };
	// A swarm reused from an earlier run has its members' turns in that run's journal, read when its seal checks.
	const earlier = new Map<string, JournalEntry[]>();
	for (const dir of reusedFrom(read.entries)) {
		const other = readRun(dir, io.agentDir);
		if (other.ok) earlier.set(dir, other.entries);
	}
	return {
		run: basename(runDir),
		backend: "folder",
		snapshot: read.snapshot,
		entries: read.entries,
		earlier,
		transcript: transcriptsOf(runDir, io.agentDir),
		repo: read.snapshot.settings.cwd,
	};
}

/**
 * A run folder's transcripts, by visit and life; a visit reused from an earlier run is read from that
 * run's folder, only when its seal checks (a folder copied in would put its words in the cassette unseen).
 */
function transcriptsOf(runDir: string, keyDir: string): TranscriptOf {
	const cache = new Map<string, { visit: string; life: number; message: unknown }[]>();
	const lines = (dir: string) => {
		let got = cache.get(dir);
		if (got) return got;
		got = [];
		const folder = join(dir, "transcripts");
		if (dir === runDir || readRun(dir, keyDir).ok)
			for (const f of existsSync(folder) ? readdirSync(folder).sort() : [])
				for (const line of readFileSync(join(folder, f), "utf8").split("\n")) {
					if (!line.trim()) continue;
					try {
						got.push(JSON.parse(line));
					} catch {
						// A torn last line of a killed run: the turns before it are whole.
					}
				}
		cache.set(dir, got);
		return got;
	};
	return ({ path, life, run }) =>
		lines(run ?? runDir)
			.filter((l) => l.visit === path && l.life === life)
			.map((l) => l.message);
}

/** A run of the DBOS backend's database: its journal, whose `turns` facts hold what each turn answered. */
async function databaseRecord(args: Args, io: Io, named: string | undefined): Promise<RunToRecord | { error: string }> {
	if (!named) return { error: "with --backend dbos, name the run (its id: see `pi-flows runs`)" };
	const { databaseRun } = await import("./distributed.ts");
	const read = await databaseRun(args, io, named, "");
	if ("error" in read) return read;
	// A visit reused from another run of the database has its turns in that run's journal.
	const earlier = new Map<string, JournalEntry[]>();
	for (const id of reusedFrom(read.entries)) {
		const other = id === read.from ? undefined : await databaseRun(args, io, id, "");
		if (other && !("error" in other)) earlier.set(id, other.entries);
	}
	return {
		run: read.from,
		backend: "dbos",
		snapshot: read.snapshot,
		entries: read.entries,
		earlier,
		repo: read.snapshot.settings.cwd,
	};
}

/**
 * `--refresh NODE`: the cassette's run played again as `pi-flows run <flow> <input> --reuse <run>
 * --rerun-from NODE` would play it, on the run's own model; the new run folder is what is recorded.
 */
async function refreshed(
	args: Args,
	io: Io,
	home: string,
	name: string,
	node: string,
): Promise<{ run: string } | { error: string }> {
	const last = args.positionals[0];
	const earlier = folderRecord(io, home, last);
	if ("error" in earlier) return earlier;
	// The run the cassette was recorded from, when one exists under this name: refreshing updates it.
	const files = cassetteFiles(earlier.snapshot.flow.file, earlier.snapshot.flow.name, name);
	let from = earlier.run;
	if (existsSync(files.cassette) && !last) {
		const read = readCassette(readFileSync(files.cassette, "utf8"), files.cassette);
		if (!read.value) return { error: read.problems.join("; ") };
		from = read.value.run;
	}
	const found = findRun(from, home, earlier.snapshot.flow.name, io.cwd, io.agentDir);
	if (!found.ok) return { error: `the cassette's run ${from}: ${found.error}` };
	const snap = readRun(found.runDir, io.agentDir);
	if (!snap.ok) return { error: snap.error };
	const flags = new Map<string, string | true>([
		["reuse", found.runDir],
		["rerun-from", node],
		["runs-dir", home],
	]);
	if (snap.snapshot.settings.model) flags.set("model", snap.snapshot.settings.model);
	for (const k of ["project", "model", "script", "timeout", "retries"]) {
		const v = args.flags.get(k);
		if (v !== undefined) flags.set(k, v);
	}
	const before = new Set(listRunFolders(home));
	const ran = await runAgain(snap.snapshot, flags, io);
	if ("error" in ran) return ran;
	const runDir = listRunFolders(home).filter((d) => !before.has(d))[0];
	if (!runDir) return { error: "the refreshed run left no run folder; the cassette is unchanged" };
	return { run: runDir };
}

/**
 * `--refresh NODE --backend dbos`: as {@link refreshed}, the run named (or the cassette's, when one of this
 * name exists) played again on the database's workers with `--reuse ID --rerun-from NODE`.
 */
async function refreshedInDatabase(
	args: Args,
	io: Io,
	name: string,
	node: string,
): Promise<{ run: string } | { error: string }> {
	const named = args.positionals[0];
	const earlier = await databaseRecord(args, io, named);
	if ("error" in earlier) return earlier;
	const files = cassetteFiles(earlier.snapshot.flow.file, earlier.snapshot.flow.name, name);
	let from = earlier;
	if (existsSync(files.cassette)) {
		const read = readCassette(readFileSync(files.cassette, "utf8"), files.cassette);
		if (!read.value) return { error: read.problems.join("; ") };
		if (read.value.run !== earlier.run) {
			const recorded = await databaseRecord(args, io, read.value.run);
			if ("error" in recorded) return { error: `the cassette's run ${read.value.run}: ${recorded.error}` };
			from = recorded;
		}
	}
	const flags = new Map<string, string | true>([
		["reuse", from.run],
		["rerun-from", node],
		["backend", "dbos"],
		["json", true],
	]);
	if (from.snapshot.settings.model) flags.set("model", from.snapshot.settings.model);
	for (const k of ["project", "model", "script", "timeout", "retries", "database"]) {
		const v = args.flags.get(k);
		if (v !== undefined) flags.set(k, v);
	}
	const ran = await runAgain(from.snapshot, flags, io);
	if ("error" in ran) return ran;
	try {
		const id = (JSON.parse(ran.stdout) as { run?: unknown }).run;
		if (typeof id === "string") return { run: id };
	} catch {
		// Said below.
	}
	return { error: "the refreshed run did not say its id; the cassette is unchanged" };
}

/**
 * The flow of `snapshot` run again with its input and `flags`, as `pi-flows run` runs it. What the run
 * prints on stdout goes to stderr (record's stdout is the files it wrote) and is returned.
 */
async function runAgain(
	snapshot: RunToRecord["snapshot"],
	flags: Map<string, string | true>,
	io: Io,
): Promise<{ stdout: string } | { error: string }> {
	const input = snapshot.input;
	let stdout = "";
	const { runCommand } = await import("./run.ts");
	const code = await runCommand(
		{ positionals: [snapshot.flow.file, typeof input === "string" ? input : JSON.stringify(input)], flags },
		{
			...io,
			stdout: (text) => {
				stdout += `${text}\n`;
				if (!flags.has("json")) io.stderr(text);
			},
		},
	);
	if (code !== 0 && code !== 1)
		return { error: `the refreshed run did not start (exit ${code}); the cassette is unchanged` };
	return { stdout };
}
