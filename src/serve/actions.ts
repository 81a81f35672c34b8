/**
 * What a person can do to a run from the page, each through the code the CLI uses, each refused in
 * words when the run's state (read again now, from its journal) no longer allows it:
 *
 *   answer  a run folder's question: the answer file of its control channel (`giveAnswer`), which the
 *           waiting life reads and the journal records once; a DBOS question: `settleQuestion`
 *   stop    a run folder: a stop file its life polls, and lands as Ctrl-C lands; DBOS: `requestStop`
 *   resume  `pi-flows resume` itself, in a detached process (its output in `control/resume-*.log`),
 *           with the person's in-doubt choice; its own refusal is what the page shows
 *
 * Rerun from a node (its preview, then the run) is `rerun.ts`, on the same reading of the run (`fresh`).
 */
import { closeSync, mkdirSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { AskAnswer } from "../engine/index.ts";
import { unsafeWrite } from "../fs-safe/index.ts";
import { answerFits, APPEND_NO_LINK, askStop, CONTROL_DIR, giveAnswer, readJournal } from "../runs/index.ts";
import { redactText } from "../secrets/index.ts";
import type { Catalog } from "./catalog.ts";
import { FolderRun } from "./folder-source.ts";
import { startCli } from "./own-cli.ts";
import { DbosRun } from "./dbos-source.ts";
import type { RunRecord, SourceKind } from "./record.ts";
import { PROJECT_RUN_TRUST } from "./trust.ts";
import { viewOf } from "./view.ts";

/** What an action came to: an HTTP status and one sentence for the page, and what it made (a preview, a run). */
export interface ActionResult {
	status: number;
	ok: boolean;
	said: string;
	/** Sent beside `ok` and `said`: a rerun's preview, the new run a rerun started. */
	data?: Record<string, unknown>;
}

/** An action refused, in words. */
export const refused = (status: number, said: string): ActionResult => ({ status, ok: false, said });
/** An action done. */
export const done = (said: string, status = 200, data?: Record<string, unknown>): ActionResult => ({
	status,
	ok: true,
	said,
	...(data ? { data } : {}),
});

/** Who the answers and stops of this server are from, as the run's files record it. */
export const BY = "the browser";

/** The run as it stands now, read afresh for the action (never the page's copy). */
export async function fresh(catalog: Catalog, source: SourceKind, id: string): Promise<RunRecord | ActionResult> {
	if (source === "folder") {
		const dir = catalog.folderOf(id);
		if (!dir) return refused(404, `no run folder ${id}`);
		const run = FolderRun.open(dir, catalog.options.agentDir);
		if ("error" in run) return refused(404, run.error);
		run.poll();
		const record = run.record();
		if (record.project && !catalog.options.project) return refused(403, PROJECT_RUN_TRUST);
		return record;
	}
	const db = catalog.options.db;
	if (!db) return refused(404, "the server was started without a database (--database)");
	const run = await DbosRun.open(db, id);
	if (!run) return refused(404, `no run ${id} in the database`);
	await run.poll();
	const record = await run.record();
	if (record.project && !catalog.options.project) return refused(403, PROJECT_RUN_TRUST);
	return record;
}

/** An answer as the page posts it, read strictly. */
function readAnswer(body: unknown): { life: number; visit: string; answer: AskAnswer } | undefined {
	if (!body || typeof body !== "object") return undefined;
	const b = body as { life?: unknown; visit?: unknown; answer?: unknown };
	if (typeof b.life !== "number" || typeof b.visit !== "string" || !b.answer || typeof b.answer !== "object")
		return undefined;
	const a = b.answer as { kind?: unknown; value?: unknown; custom?: unknown };
	if (a.kind === "enough") return { life: b.life, visit: b.visit, answer: { kind: "enough" } };
	if (a.kind !== "answer" || (typeof a.value !== "string" && typeof a.value !== "boolean")) return undefined;
	return {
		life: b.life,
		visit: b.visit,
		answer: { kind: "answer", value: a.value, ...(a.custom === true ? { custom: true } : {}) },
	};
}

/** Answers a question the run waits on. */
export async function answerAction(catalog: Catalog, source: SourceKind, id: string, body: unknown) {
	const posted = readAnswer(body);
	if (!posted) return refused(400, "an answer names the question's life and visit, and the answer");
	const record = await fresh(catalog, source, id);
	if ("status" in record) return record;
	const allowed = viewOf(record, Date.now()).actions.answer;
	if (!allowed.ok) return refused(409, allowed.why);
	const question = record.questions.find((q) => q.life === posted.life && q.visit === posted.visit);
	if (!question) return refused(409, `the run is not waiting on ${posted.visit} (answered already, or it moved on)`);
	if (!answerFits(question.card, posted.answer)) return refused(400, "the question does not take that answer");
	if (source === "folder") {
		const dir = catalog.folderOf(id) as string;
		const given = giveAnswer(dir, posted.life, posted.visit, posted.answer, BY);
		return given.ok ? done(`answered ${posted.visit}; the run goes on`) : refused(409, given.error);
	}
	const db = catalog.options.db;
	if (!db) return refused(404, "no database");
	const standing = await db.questions.settleQuestion(db.store, id, posted.life, posted.visit, posted.answer);
	return JSON.stringify(standing) === JSON.stringify(posted.answer)
		? done(`answered ${posted.visit}; the run goes on`)
		: refused(409, "already answered elsewhere");
}

/** Asks the run to stop: it lands its handoff and stops, as Ctrl-C stops it. */
export async function stopAction(catalog: Catalog, source: SourceKind, id: string) {
	const record = await fresh(catalog, source, id);
	if ("status" in record) return record;
	const view = viewOf(record, Date.now());
	if (!view.actions.stop.ok) return refused(409, view.actions.stop.why);
	if (source === "folder") {
		const asked = askStop(catalog.folderOf(id) as string, view.head.life, BY);
		return asked.ok
			? done("asked to stop; its turns land, then it stops (a resume picks it up)", 202)
			: refused(500, asked.error);
	}
	const db = catalog.options.db;
	if (!db || !(await db.store.requestStop(id))) return refused(409, "the run is not running in the database any more");
	return done("asked to stop; its workers land its turns at their next beat", 202);
}

/** How long the server waits to see a resume start (or refuse) before answering the page. */
const RESUME_WAIT_MS = 15_000;

/** Starts the run's next life with `pi-flows resume` in a detached process. */
export async function resumeAction(catalog: Catalog, source: SourceKind, id: string, body: unknown) {
	const choice = (body as { inDoubt?: unknown } | undefined)?.inDoubt;
	if (choice !== "rerun" && choice !== "stop") return refused(400, "a resume says what to do with in-doubt visits");
	const record = await fresh(catalog, source, id);
	if ("status" in record) return record;
	const view = viewOf(record, Date.now());
	if (!view.actions.resume.ok) return refused(409, view.actions.resume.why);
	const o = catalog.options;
	// A resume runs its sealed snapshot, never the project's files, so it takes no `--project` of its own.
	const args = ["resume", id, "--in-doubt", choice, "--ask-web"];
	let env: NodeJS.ProcessEnv = o.env;
	let logDir: string | undefined;
	if (source === "folder") {
		const dir = catalog.folderOf(id) as string;
		args[1] = dir;
		logDir = join(dir, CONTROL_DIR);
	} else {
		if (!o.db) return refused(404, "no database");
		args.push("--backend", "dbos");
		// The URL travels in the environment, never on a command line another user's `ps` can read.
		env = { ...o.env, PI_FLOWS_DATABASE_URL: o.db.url };
	}
	const life = view.head.life;
	let log: number | "ignore" = "ignore";
	let logPath: string | undefined;
	if (logDir) {
		mkdirSync(logDir, { recursive: true });
		logPath = join(logDir, `resume-${life + 1}-${Date.now()}.log`);
		// Never through a `control/` that links out of the run folder.
		const unsafe = unsafeWrite(logPath, [join(logDir, "..")]);
		if (unsafe) return refused(409, unsafe);
		log = openSync(logPath, APPEND_NO_LINK, 0o600);
	}
	const child = startCli(args, { cwd: o.cwd, env, log });
	if (typeof log === "number") closeSync(log);
	const exited = new Promise<number | null>((resolve) => {
		child.once("exit", (code) => resolve(code));
		child.once("error", () => resolve(-1));
	});
	const started = await Promise.race([
		exited.then((code) => ({ code })),
		nextLife(catalog, source, id, life).then((yes) => ({ started: yes })),
	]);
	child.unref();
	if ("started" in started && started.started) return done(`resumed: life ${life + 1} started`, 202);
	if ("code" in started) {
		const said = logPath ? lastLines(logPath) : "";
		return started.code === 0
			? done(`resumed: life ${life + 1} ran and ended`)
			: refused(409, said || `pi-flows resume exited ${started.code}`);
	}
	return done(`resume started (pid ${child.pid}); its life has not begun yet`, 202);
}

/** Resolves true once the run's record holds a life past `life`, false after {@link RESUME_WAIT_MS}. */
async function nextLife(catalog: Catalog, source: SourceKind, id: string, life: number): Promise<boolean> {
	const until = Date.now() + RESUME_WAIT_MS;
	while (Date.now() < until) {
		if (source === "folder") {
			const dir = catalog.folderOf(id);
			const j = dir ? readJournal(join(dir, "journal.jsonl")) : undefined;
			if (j?.ok && j.entries.some((e) => e.type === "life_start" && e.life > life)) return true;
		} else {
			const row = await catalog.options.db?.store.run(id);
			if (row && row.life > life) return true;
		}
		await new Promise((r) => setTimeout(r, 100));
	}
	return false;
}

/** The `pi-flows:` lines a refused resume printed, redacted. */
function lastLines(path: string): string {
	try {
		return saidBy(readFileSync(path, "utf8"));
	} catch {
		return "";
	}
}

/** What a refused command said: its last lines, its own `pi-flows …:` prefixes dropped, redacted. */
export function saidBy(output: string): string {
	const lines = output.trim().split("\n").filter(Boolean);
	return redactText(
		lines
			.slice(-3)
			.map((l) => l.replace(/^pi-flows( [a-z]+)?: /, ""))
			.join(" "),
	);
}
