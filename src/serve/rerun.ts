/**
 * Rerun from a node, from the page: first what it would cost, then the run, each through the command a
 * person would type, so the page and the terminal cannot disagree:
 *
 *   preview  `pi-flows plan <flow file> --reuse <run> --rerun-from <node> --json -- <input>`: zero model
 *            calls; the rows (reused, runs, may change) with what each visit spent in the run
 *   rerun    `pi-flows run <flow file> --reuse <run> --rerun-from <node> --ask-web -- <input>` in a
 *            detached process (its output in the run folder's `control/rerun-*.log`), with the run's own
 *            model, script, budget and timeouts; the page is sent to the new run once it exists
 *
 * The flow is its file as it is now (a rerun is how an edit is tried), the input the run's unless the
 * person edited it. Refused in words when the run is still going, was not made here by this person, is
 * the project's and the server was not trusted with it, or when its flow file no longer has the node.
 */
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, relative, resolve } from "node:path";
import { unsafeWrite } from "../fs-safe/index.ts";
import { type ReusePlan, summaryLine } from "../reuse/index.ts";
import { APPEND_NO_LINK, CONTROL_DIR, listRunFolders, type Snapshot } from "../runs/index.ts";
import { type ActionResult, done, fresh, refused, saidBy } from "./actions.ts";
import type { Catalog } from "./catalog.ts";
import { runCli, startCli } from "./own-cli.ts";
import type { SourceKind } from "./record.ts";
import { viewOf } from "./view.ts";

/** What the page is shown before anything spends. */
export interface RerunPreview {
	/** The node asked to run again. */
	from: string;
	plan: ReusePlan;
	/** `runs 2 of 13 visits, about 1.7k tokens; …`, as `pi-flows plan --reuse` ends. */
	summary: string;
	/** The input the rerun gets, as text: the run's, or the person's edit. */
	input: string;
	/** The command that starts the rerun, as a person would type it. */
	command: string;
	/** Whether the flow file differs from the run's snapshot of it (a rerun runs the file as it is now). */
	flowChanged: boolean;
}

/** How long the server waits to see a rerun's run appear (or be refused) before answering the page. */
const RERUN_WAIT_MS = 20_000;
/** Past this an input does not go on a command line (Linux takes 128 KiB an argument). */
const MAX_INPUT = 100_000;

/** What both steps read from the request and the run. */
interface Launch {
	from: string;
	input: string;
	/** The flow file, then the flags `plan` and `run` share. */
	common: string[];
	/** What only `run` takes: the run's script, budget and timeouts. */
	runOnly: string[];
	env: NodeJS.ProcessEnv;
	flowChanged: boolean;
	/** The run as `--reuse` names it: its folder, or its id in the database. */
	reuse: string;
	/** The run's last life, which names the rerun's log. */
	life: number;
}

/** Reads the request and the run afresh, or says why no rerun can start from it. */
async function launchOf(
	catalog: Catalog,
	source: SourceKind,
	id: string,
	body: unknown,
): Promise<Launch | ActionResult> {
	const b = (body ?? {}) as { from?: unknown; input?: unknown };
	const from = b.from;
	if (typeof from !== "string" || !/^\w[\w.-]*(\/\w[\w.-]*)*$/.test(from) || from.length > 300)
		return refused(400, "a rerun names the node to run again by its address (`work/act`)");
	if (b.input !== undefined && typeof b.input !== "string") return refused(400, "an edited input is text");
	const record = await fresh(catalog, source, id);
	if ("status" in record) return record;
	const view = viewOf(record, Date.now());
	if (!view.actions.rerun.ok) return refused(409, view.actions.rerun.why);
	const { snapshot } = record;
	const o = catalog.options;
	// Absolute, so no file name is ever read as a flag of the command.
	const file = resolve(snapshot.settings.cwd || o.cwd, snapshot.flow.file);
	if (!isFile(file))
		return refused(409, `the run's flow file ${file} is not here any more: a rerun runs the flow as its file is now`);
	const script = snapshot.settings.script && resolve(snapshot.settings.cwd || o.cwd, snapshot.settings.script.file);
	if (script && !isFile(script))
		return refused(409, `the run's script ${script} is not here any more: the scripted model answers from it`);
	const input = b.input ?? inputText(snapshot.input);
	if (input.length > MAX_INPUT)
		return refused(413, `the input is longer than ${MAX_INPUT} characters, more than a command line carries`);
	const reuse = source === "folder" ? (catalog.folderOf(id) as string) : id;
	const common = [file, `--reuse=${reuse}`, `--rerun-from=${from}`];
	// The trust the run had: a project run reads the project's flows and agents, another does not.
	if (record.project) common.push("--project");
	let env = o.env;
	if (source === "dbos") {
		if (!o.db) return refused(404, "no database");
		common.push("--backend=dbos");
		// The URL travels in the environment, never on a command line another user's `ps` can read.
		env = { ...o.env, PI_FLOWS_DATABASE_URL: o.db.url };
	} else common.push("--backend=folder", `--runs-dir=${o.home}`);
	return {
		from,
		input,
		common,
		runOnly: runSettings(snapshot, script),
		env,
		flowChanged: readText(file) !== snapshot.flow.text,
		reuse,
		life: view.head.life,
	};
}

/** The run's own launch settings, as `run` flags: the same model, script, budget and timeouts. */
function runSettings(snapshot: Snapshot, script: string | undefined): string[] {
	const s = snapshot.settings;
	const out: string[] = [];
	if (s.model) out.push(`--model=${s.model}`);
	if (script) out.push(`--script=${script}`);
	if (s.budget?.tokens !== undefined) out.push(`--budget-tokens=${s.budget.tokens}`);
	if (s.budget?.cost !== undefined) out.push(`--budget-cost=${s.budget.cost}`);
	if (s.budget?.turns !== undefined) out.push(`--budget-turns=${s.budget.turns}`);
	if (s.timeoutMs !== undefined) out.push(`--timeout=${s.timeoutMs}ms`);
	if (s.idleTimeoutMs !== undefined) out.push(`--idle-timeout=${s.idleTimeoutMs}ms`);
	return out;
}

/** What a rerun from `from` would run, reuse and spend: `pi-flows plan --reuse` itself. */
export async function previewAction(catalog: Catalog, source: SourceKind, id: string, body: unknown) {
	const launch = await launchOf(catalog, source, id, body);
	if ("status" in launch) return launch;
	const o = catalog.options;
	const ran = await runCli(["plan", ...launch.common, "--json", "--", launch.input], {
		cwd: o.cwd,
		env: launch.env,
		timeoutMs: 120_000,
	});
	let plan: ReusePlan | undefined;
	if (ran.code === 0) {
		try {
			plan = (JSON.parse(ran.stdout) as { reuse?: ReusePlan }).reuse;
		} catch {
			plan = undefined;
		}
	}
	if (!plan) return refused(409, saidBy(ran.stderr) || `pi-flows plan exited ${ran.code}`);
	const preview: RerunPreview = {
		from: launch.from,
		plan,
		summary: summaryLine(plan),
		input: launch.input,
		command: shownCommand(o.cwd, launch),
		flowChanged: launch.flowChanged,
	};
	return done(preview.summary, 200, { preview });
}

/** Starts the rerun: `pi-flows run --reuse … --rerun-from …` in a detached process. */
export async function rerunAction(catalog: Catalog, source: SourceKind, id: string, body: unknown) {
	const launch = await launchOf(catalog, source, id, body);
	if ("status" in launch) return launch;
	const o = catalog.options;
	const args = ["run", ...launch.common, ...launch.runOnly, "--ask-web", "--", launch.input];
	const log = openLog(catalog, source, id, launch.life);
	if ("status" in log) return log;
	const before = new Set(await runIds(catalog, source));
	const child = startCli(args, { cwd: o.cwd, env: launch.env, log: log.fd });
	closeSync(log.fd);
	const exited = new Promise<number | null>((resolve) => {
		child.once("exit", (code) => resolve(code));
		child.once("error", () => resolve(-1));
	});
	if (log.drop) void exited.then(log.drop);
	const until = Date.now() + RERUN_WAIT_MS;
	let code: number | null | undefined;
	void exited.then((c) => {
		code = c;
	});
	for (;;) {
		const made = await newRun(catalog, source, launch.reuse, before);
		if (made) {
			child.unref();
			const run = { source, id: made, url: `/run/${source}/${encodeURIComponent(made)}` };
			return code === undefined
				? done(`rerun started: ${made}`, 202, { run })
				: done(`the rerun ran and ended: ${made}`, 200, { run });
		}
		if (code !== undefined) return refused(409, saidBy(readText(log.path)) || `pi-flows run exited ${code}`);
		if (Date.now() > until) {
			child.unref();
			return done(`rerun started (pid ${child.pid}); its run has not appeared yet`, 202);
		}
		await new Promise((r) => setTimeout(r, 100));
	}
}

/** Where the rerun's output goes: the run folder's `control/`, or for a DBOS run a private file until it exits. */
function openLog(
	catalog: Catalog,
	source: SourceKind,
	id: string,
	life: number,
): { fd: number; path: string; drop?: () => void } | ActionResult {
	if (source === "folder") {
		const dir = join(catalog.folderOf(id) as string, CONTROL_DIR);
		mkdirSync(dir, { recursive: true });
		const path = join(dir, `rerun-${life}-${Date.now()}.log`);
		// Never through a `control/` that links out of the run folder.
		const unsafe = unsafeWrite(path, [join(dir, "..")]);
		if (unsafe) return refused(409, unsafe);
		return { fd: openSync(path, APPEND_NO_LINK, 0o600), path };
	}
	const dir = mkdtempSync(join(tmpdir(), "pi-flows-rerun-"));
	const path = join(dir, "run.log");
	return { fd: openSync(path, APPEND_NO_LINK, 0o600), path, drop: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The runs there are now, by id. */
async function runIds(catalog: Catalog, source: SourceKind): Promise<string[]> {
	if (source === "folder") return listRunFolders(catalog.options.home).map((d) => basename(d));
	return ((await catalog.options.db?.store.runs(50)) ?? []).map((r) => r.id);
}

/** A run that was not there before and reuses `reuse`: the one the rerun made. */
async function newRun(
	catalog: Catalog,
	source: SourceKind,
	reuse: string,
	before: ReadonlySet<string>,
): Promise<string | undefined> {
	for (const id of await runIds(catalog, source)) {
		if (before.has(id)) continue;
		const snapshot =
			source === "folder"
				? (parse(readText(join(catalog.options.home, id, "snapshot.json"))) as Snapshot | undefined)
				: (await catalog.options.db?.store.run(id))?.snapshot;
		if (snapshot?.settings?.reuse === reuse) return id;
	}
	return undefined;
}

/** The command as a person would type it in the server's folder (the database's URL never in it). */
function shownCommand(cwd: string, launch: Launch): string {
	const near = (p: string) => {
		const r = relative(cwd, p);
		return r && !r.startsWith("..") ? r : p;
	};
	const words = ["pi-flows", "run", near(launch.common[0])];
	for (const a of [...launch.common.slice(1), ...launch.runOnly]) {
		const [name, value] = a.split(/=(.*)/s);
		words.push(name, ...(value === undefined ? [] : [near(value)]));
	}
	const quote = (w: string) => (/^[\w./@:=,+-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`);
	return [...words.map(quote), quote(launch.input)].join(" ");
}

/** A run's input as the command line gives it: text for a string, JSON otherwise. */
function inputText(input: unknown): string {
	return typeof input === "string" ? input : JSON.stringify(input);
}

function isFile(path: string): boolean {
	try {
		return statSync(path).isFile();
	} catch {
		return false;
	}
}

function readText(path: string): string {
	try {
		return existsSync(path) ? readFileSync(path, "utf8") : "";
	} catch {
		return "";
	}
}

function parse(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}
