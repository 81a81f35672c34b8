/**
 * `pi-flows check [paths or names...]` and `pi-flows list`: the static judgement of flows, nothing spawned. check
 * exits 1 when any file has a fault; list shows every flow found, its source and whether it checks.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadRoster, type Roster, type Sources } from "../agents/index.ts";
import { findFlow, listFlows } from "../load/index.ts";
import { catalogueOptions, checkFlowFile, type Judged } from "../load/index.ts";
import type { Args } from "./args.ts";
import type { Io } from "./io.ts";
import { displayPath, formatFaults, formatNotes } from "./output.ts";
import { cliSources, cliTrusted, skippedProjectFlows } from "./project.ts";

/** Runs `check`. */
export function checkCommand(args: Args, io: Io): number {
	// A path names its file directly (its agents are read beside it); with none, the scope's flows.
	const scope = { project: cliTrusted(args, io) || args.positionals.length > 0 };
	const roster = loadRoster(io.cwd, scope, io.env);
	// A word that is no path is a flow's name, found as `list`, `plan` and `run` find it.
	const unfound: string[] = [];
	const files = args.positionals.length
		? args.positionals.flatMap((p) => {
				if (p.includes("/") || p.endsWith(".md") || existsSync(resolve(io.cwd, p))) return expand(resolve(io.cwd, p));
				const found = findFlow(p, io.cwd, cliSources(args, io), io.env);
				if (found.ok) return [found.value.file];
				unfound.push(found.error);
				return [];
			})
		: listFlows(io.cwd, scope, io.env).flows.map((f) => f.file);
	for (const error of unfound) io.stderr(`pi-flows: ${error}`);
	if (unfound.length && !files.length) return 2;
	const results = files.map((file) => {
		const judged = judge(file, roster, io, scope);
		return { file, faults: judged.faults, notes: judged.notes ?? [] };
	});
	const bad = results.filter((r) => r.faults.length > 0);
	if (args.flags.has("json")) {
		io.stdout(
			JSON.stringify(
				results.map((r) => ({
					file: displayPath(r.file, io.cwd),
					ok: r.faults.length === 0,
					faults: r.faults,
					notes: r.notes,
				})),
				null,
				2,
			),
		);
	} else {
		// Notes never fail a check: they say what an agent file keeps that pi-flows does not act on.
		for (const r of results) if (r.notes.length) io.stderr(formatNotes(r.notes, io.cwd));
		for (const r of bad) io.stdout(formatFaults(r.faults, io.cwd));
		io.stderr(`${results.length} flow file(s) checked, ${bad.length} with faults`);
		const skipped = args.positionals.length ? undefined : skippedProjectFlows(io, scope);
		if (skipped) io.stderr(skipped);
	}
	return bad.length || unfound.length ? 1 : 0;
}

/** Runs `list`. */
export function listCommand(args: Args, io: Io): number {
	const scope = cliSources(args, io);
	const roster = loadRoster(io.cwd, scope, io.env);
	const { flows } = listFlows(io.cwd, scope, io.env);
	const rows = flows.map((f) => {
		const { faults } = judge(f.file, roster, io, scope);
		return { ...f, file: displayPath(f.file, io.cwd), ok: faults.length === 0, faults: faults.length };
	});
	const skipped = skippedProjectFlows(io, scope);
	if (args.flags.has("json")) {
		io.stdout(JSON.stringify(rows, null, 2));
		if (skipped) io.stderr(skipped);
		return 0;
	}
	const width = Math.max(4, ...rows.map((r) => r.name.length));
	for (const r of rows) {
		const state = r.ok ? "checks" : `${r.faults} fault${r.faults === 1 ? "" : "s"}`;
		io.stdout(`${r.name.padEnd(width)}  ${r.source.padEnd(7)}  ${state.padEnd(9)}  ${r.file}`);
	}
	io.stderr(`${rows.length} flow(s)${skipped ? `; ${skipped}` : ""}`);
	return 0;
}

/** Callees are found where the caller's own lookup would find them, so a `flow:` node is judged as run. */
function judge(file: string, roster: Roster, io: Io, scope: Sources): Judged {
	return checkFlowFile(file, roster, catalogueOptions(io.cwd, scope, io.env));
}

function expand(path: string): string[] {
	try {
		if (statSync(path).isDirectory()) {
			return readdirSync(path)
				.filter((f) => f.endsWith(".md"))
				.sort()
				.map((f) => join(path, f));
		}
	} catch {
		// A path that does not exist is judged as a file, which yields its own fault.
	}
	return [path];
}
