/**
 * A finished run made into a cassette and the flow test that replays it: per agent visit, the turns of
 * its last life (a run folder's transcripts, or the `turns` facts a DBOS worker journaled), its identity,
 * and around them the run's input, the person's answers, the checks' results, the files its tools read
 * (as the visit saw them, from the tree its identity names) and what came out, which the test expects.
 *
 *   recordRun({ flow, run, backend, snapshot, entries, transcript, repo })
 *     → { cassette, test: { input, files, answers, expect }, redacted: [{ visit, where, kind }] }
 *
 * Nothing of the run that differs between two readings of it is kept (times, ids, the absolute folder),
 * so recording the same run twice gives the same bytes.
 */
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join, normalize, relative, resolve } from "node:path";
import { type AskAnswer, fileInTree } from "../engine/index.ts";
import { digestOf, type VisitIdentity } from "../identity/index.ts";
import { byMember, CHECK_SCRIPT, memberTurnsOf } from "../kinds/facts.ts";
import type { JournalEntry, Snapshot } from "../runs/index.ts";
import type { Cassette, CassetteVisit } from "./format.ts";
import { cleanText, type Found, type Turn, turnsOf } from "../identity/index.ts";

/** The messages of one visit's turns in one life, as its transcript holds them (undefined: none kept). */
export type TranscriptOf = (where: { path: string; life: number; run?: string }) => readonly unknown[] | undefined;

/** A finished run, as either backend keeps it. */
export interface RunToRecord {
	run: string;
	backend: "folder" | "dbos";
	snapshot: Snapshot;
	entries: readonly JournalEntry[];
	/** A run folder's transcripts; a DBOS run's turns are in its entries. */
	transcript?: TranscriptOf;
	/**
	 * The runs this run's visits were reused from: their entries, by run (a database run's id, a run
	 * folder's path), where a DBOS run's `turns` facts and a swarm's member facts are.
	 */
	earlier?: ReadonlyMap<string, readonly JournalEntry[]>;
	/** The repository the run worked in, where the files its tools read are found. */
	repo: string;
}

/** What a flow test replaying the cassette holds besides it. */
export interface RecordedTest {
	input: unknown;
	files: Record<string, string>;
	answers: Record<string, unknown>;
	/** Each check visit's result by its path, with the script it ran. */
	checks: Record<string, { script?: string; passed: boolean; report?: string }>;
	expect: Record<string, unknown>;
}

/** A run recorded. */
export interface Recorded {
	cassette: Cassette;
	test: RecordedTest;
	/** Visits that played no turn the cassette can hold (a reused visit whose transcript is gone). */
	missing: string[];
}

/** The tools whose `path` argument names a file the turn read as it was: the test's scratch folder gets it. */
const READS_FILE = new Set(["read", "edit"]);

/** Records a finished run, or says why it cannot (a run that has not ended). */
export async function recordRun(r: RunToRecord): Promise<Recorded | { error: string }> {
	const ends = new Map<string, Extract<JournalEntry, { type: "visit_end" }>>();
	const identities = new Map<string, { life: number; identity: VisitIdentity }>();
	const turnFacts = new Map<string, Turn[]>();
	const answers: Record<string, unknown> = {};
	const scripts = new Map<string, string>();
	let end: Extract<JournalEntry, { type: "run_end" }> | undefined;
	for (const e of r.entries) {
		if (e.type === "visit_end") {
			ends.delete(e.path);
			ends.set(e.path, e);
		} else if (e.type === "identity") identities.set(e.path, { life: e.life, identity: e.identity });
		else if (e.type === "turns") {
			const key = `${e.life}\u0000${e.path}`;
			turnFacts.set(key, [...(turnFacts.get(key) ?? []), ...(e.turns as Turn[])]);
		} else if (e.type === "asked") answers[e.path] = answerOf(e.answer);
		else if (e.type === "fact" && e.key === CHECK_SCRIPT && typeof e.value === "string")
			scripts.set(`${e.life}\u0000${e.path}`, e.value);
		else if (e.type === "run_end") end = e;
	}
	if (!end) return { error: `the run ${r.run} has not ended; record a finished run (or resume it first)` };
	const redacted: Cassette["redacted"] = [];
	const visits = new Map<string, CassetteVisit>();
	const missing: string[] = [];
	const files: Record<string, string> = {};
	const written = new Set([...ends.values()].flatMap((e) => e.ended.effect?.files ?? []));
	for (const e of ends.values()) {
		const reused = e.ended.reuse?.outcome === "reused" ? e.ended.reuse : undefined;
		const found = (f: Found) => redacted.push({ visit: e.path, ...f });
		if (e.kind === "swarm") {
			const where = reused?.transcript ?? (reused ? { run: reused.from, path: reused.path, life: reused.life } : e);
			const members = memberTurnsIn(
				"run" in where && where.run !== r.run ? (r.earlier?.get(where.run) ?? []) : r.entries,
				where.path,
				where.life,
				found,
			);
			if (!members.size) {
				missing.push(e.path);
				continue;
			}
			const id = identities.get(e.path);
			const tree = await seedFiles(
				files,
				[...members.values()].flat(),
				id?.identity.shown?.tree,
				r,
				written,
				(kind, path) => redacted.push({ visit: e.path, where: `the file ${path}`, kind }),
			);
			visits.set(e.path, { node: e.node, ...identityOf(id), turns: [], members, ...treeOf(tree) });
			continue;
		}
		if (e.kind !== "agent") continue;
		let turns: Turn[] | undefined;
		if (r.backend === "dbos") {
			const where =
				reused?.transcript ?? (reused ? { run: reused.from, path: reused.path, life: reused.life } : undefined);
			turns =
				where && where.run !== r.run
					? turnsIn(r.earlier?.get(where.run) ?? [], where.path, where.life)
					: turnFacts.get(`${where?.life ?? e.life}\u0000${where?.path ?? e.path}`);
		} else {
			const where = reused?.transcript ?? { path: e.path, life: e.life };
			const messages = r.transcript?.(where);
			if (messages?.length) turns = conversations(messages).flatMap((c) => turnsOf(c, found));
		}
		if (!turns?.length) {
			missing.push(e.path);
			continue;
		}
		const id = identities.get(e.path);
		const tree = await seedFiles(files, turns, id?.identity.shown?.tree, r, written, (kind, path) =>
			redacted.push({ visit: e.path, where: `the file ${path}`, kind }),
		);
		visits.set(e.path, { node: e.node, ...identityOf(id), turns, ...treeOf(tree) });
	}
	// Every check visit's result by its path (a loop's `fix#1/tests` red, `fix#2/tests` green), with the
	// script it ran, so a replay answers each visit as the run was answered and names a check it never saw.
	const checks: RecordedTest["checks"] = {};
	for (const e of ends.values())
		if (e.kind === "check" && e.ended.ok) {
			const out = e.ended.output as { passed?: boolean; report?: string } | undefined;
			if (typeof out?.passed !== "boolean") continue;
			const script = scripts.get(`${e.life}\u0000${e.path}`);
			checks[e.path] = {
				...(script ? { script } : {}),
				passed: out.passed,
				...(out.report
					? {
							report: cleanText(out.report, undefined, (kind) =>
								redacted.push({ visit: e.path, where: "its report", kind }),
							),
						}
					: {}),
			};
		}
	const cassette: Cassette = {
		flow: r.snapshot.flow.name,
		run: r.run,
		backend: r.backend,
		...(r.snapshot.settings.model ? { model: r.snapshot.settings.model } : {}),
		visits,
		redacted,
	};
	return {
		cassette,
		test: {
			input: r.snapshot.input,
			files: Object.fromEntries(
				Object.keys(files)
					.sort()
					.map((k) => [k, files[k] as string]),
			),
			answers,
			checks,
			expect: expectOf(end, [...ends.values()], redacted),
		},
		missing,
	};
}

function treeOf(tree: Record<string, string>): Pick<CassetteVisit, "tree"> {
	return Object.keys(tree).length ? { tree } : {};
}

/** A visit's identity as a cassette keeps it. */
function identityOf(id: { identity: VisitIdentity } | undefined): Pick<CassetteVisit, "identity"> {
	if (!id) return {};
	const { v, key, parts, shown } = id.identity;
	return { identity: { v, key, parts, ...(shown ? { shown } : {}) } };
}

/**
 * A swarm visit's members' turns in one life, by member and round, from the swarm's journal facts
 * (kinds/swarm/facts.ts); the values masked while they were journaled are told to `found`.
 */
function memberTurnsIn(
	entries: readonly JournalEntry[],
	path: string,
	life: number,
	found: (f: Found) => void,
): Map<string, Turn[]> {
	const kept = new Map<string, Turn[]>();
	for (const e of entries) {
		if (e.type !== "fact" || e.path !== path || e.life !== life) continue;
		const m = memberTurnsOf(e.key, e.value);
		if (!m) continue;
		kept.set(m.label, m.kept.turns);
		for (const f of m.kept.found) found({ ...f, where: `member ${m.name}, round ${m.round}, ${f.where}` });
	}
	return new Map([...kept.keys()].sort(byMember).map((k) => [k, kept.get(k) as Turn[]]));
}

/** The turns a DBOS run journaled for one visit in one life. */
function turnsIn(entries: readonly JournalEntry[], path: string, life: number): Turn[] | undefined {
	const turns = entries.flatMap((e) =>
		e.type === "turns" && e.path === path && e.life === life ? (e.turns as Turn[]) : [],
	);
	return turns.length ? turns : undefined;
}

/** The runs a DBOS run's reused visits were taken from, whose turns a recording of it reads. */
export function reusedFrom(entries: readonly JournalEntry[]): string[] {
	const runs = new Set<string>();
	for (const e of entries)
		if (e.type === "visit_end" && e.ended.reuse?.outcome === "reused")
			runs.add(e.ended.reuse.transcript?.run ?? e.ended.reuse.from);
	return [...runs];
}

/** What the test expects: how the run ended, every visit it ended, and each visit's value. */
function expectOf(
	end: Extract<JournalEntry, { type: "run_end" }>,
	ends: readonly Extract<JournalEntry, { type: "visit_end" }>[],
	redacted: Cassette["redacted"],
): Record<string, unknown> {
	const clean = (v: unknown) =>
		cleanValue(v, (kind) => redacted.push({ visit: "(the run)", where: "an expected output", kind }));
	const outputs: Record<string, unknown> = {};
	for (const e of ends)
		if (e.ended.ok && e.ended.output !== undefined && isTurn(e.kind)) outputs[e.path] = clean(e.ended.output);
	return {
		ok: end.ok,
		...(end.ok
			? {}
			: { ...(end.errorKind ? { error: end.errorKind } : {}), ...(end.failedAt ? { failedAt: end.failedAt } : {}) }),
		visited: ends.map((e) => e.path),
		outputs,
		...(end.ok && end.output !== undefined ? { output: clean(end.output) } : {}),
	};
}

function isTurn(kind: string): boolean {
	return kind === "agent" || kind === "swarm" || kind === "check" || kind === "ask";
}

function cleanValue(v: unknown, found: (kind: string) => void): unknown {
	if (typeof v === "string") return cleanText(v, undefined, found);
	if (Array.isArray(v)) return v.map((x) => cleanValue(x, found));
	if (v && typeof v === "object")
		return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, cleanValue(x, found)]));
	return v;
}

/**
 * A visit's transcript split into its conversations: every attempt (a retry, a fresh subagent after a
 * timeout) starts a session of its own with pi's system message, and each is asked only its own messages.
 */
export function conversations(messages: readonly unknown[]): unknown[][] {
	const out: unknown[][] = [];
	let current: unknown[] = [];
	for (const m of messages) {
		const role = (m as { role?: string }).role;
		if (role === "system" && current.some((x) => (x as { role?: string }).role !== "system")) {
			out.push(current);
			current = [];
		}
		current.push(m);
	}
	if (current.length) out.push(current);
	return out;
}

/**
 * The files the turns read by path, as the visit saw them, into the test's scratch folder (masked), and
 * the visit's fingerprint of them: each file's digest as it saw it (unmasked), so a replay notices the
 * project's file changed since. A file the run itself wrote is left out of the fingerprint: the project
 * holds the run's own change now.
 */
async function seedFiles(
	files: Record<string, string>,
	turns: readonly Turn[],
	tree: string | undefined,
	r: RunToRecord,
	written: ReadonlySet<string>,
	found: (kind: string, path: string) => void,
): Promise<Record<string, string>> {
	const seen: Record<string, string> = {};
	for (const t of turns)
		for (const c of t.answer.calls ?? []) {
			const path = (c.args as { path?: unknown } | undefined)?.path;
			if (!READS_FILE.has(c.name) || typeof path !== "string") continue;
			const rel = inside(r.repo, path);
			if (!rel || rel in seen) continue;
			const text = await fileAt(r.repo, rel, tree);
			if (text === undefined) continue;
			if (!written.has(rel)) seen[rel] = digestOf(text);
			if (!(rel in files)) files[rel] = cleanText(text, undefined, (kind) => found(kind, rel));
		}
	return Object.fromEntries(
		Object.keys(seen)
			.sort()
			.map((k) => [k, seen[k] as string]),
	);
}

/** `path` as a path inside the repository, or undefined when it leaves it. */
function inside(repo: string, path: string): string | undefined {
	const abs = isAbsolute(path) ? normalize(path) : resolve(repo, path.replace(/^<cwd>\/?/, ""));
	const rel = relative(repo, abs);
	return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel.split("\\").join("/") : undefined;
}

/** A file's text in the tree a visit saw (git's object, read through the git port), else as it stands. */
async function fileAt(repo: string, rel: string, tree: string | undefined): Promise<string | undefined> {
	if (tree && /^[0-9a-f]{40,64}$/.test(tree)) {
		const text = await fileInTree(repo, tree, rel);
		// Not in that tree (written by the run itself, or a tree of another clone): as it stands.
		if (text !== undefined) return text;
	}
	const file = join(repo, rel);
	return existsSync(file) ? readFileSync(file, "utf8") : undefined;
}

function answerOf(a: AskAnswer): unknown {
	if (a.kind === "answer") return a.value;
	if (a.kind === "enough") return "enough";
	return "nobody";
}
