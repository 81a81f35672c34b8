/**
 * `pi-flows test [files...]`: runs flow tests (`*.test.yaml` beside a flow) on the scripted model and
 * says, per test, what differed. With no file, every test beside every flow found. Exit 1 when any fails,
 * 2 when a test named is repository content the person did not trust (nothing is run).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { listFlows } from "../load/index.ts";
import { readFlowTest, runFlowTest } from "../flowtest/index.ts";
import { REPLAY_MODES, type ReplayMode } from "../cassette/index.ts";
import { type Args, flag } from "./args.ts";
import type { Io } from "./io.ts";
import { displayPath } from "./output.ts";
import { cliTrusted, skippedProjectFlows } from "./project.ts";
import { pathTrust } from "../trust/index.ts";
import type { Sources } from "../agents/index.ts";

/** Runs `test`. */
export async function testCommand(args: Args, io: Io): Promise<number> {
	// A test runs its script's tool calls for real, so a path is no trust: a test of this project's (or of
	// another repository's) runs only as any project content does, with the project trusted. With no path,
	// the tests beside the flows the scope reads, and the project's are named when skipped.
	const trusted = cliTrusted(args, io);
	// CI replays in lockdown: nothing a test does may reach a network, and no request may go unrecorded.
	const replay = (flag(args, "replay") ?? (io.env.CI && io.env.CI !== "false" ? "lockdown" : "strict")) as ReplayMode;
	if (!REPLAY_MODES.includes(replay)) {
		io.stderr(`pi-flows test: --replay ${replay}: it is one of ${REPLAY_MODES.join(", ")}`);
		return 2;
	}
	const sources = { project: trusted };
	const named = args.positionals.flatMap((p) => expand(resolve(io.cwd, p)));
	const refusals = named.flatMap((file) => {
		const trust = pathTrust(file, { cwd: io.cwd, trusted, env: io.env, shown: displayPath(file, io.cwd) });
		return trust.ok ? [] : [trust.refusal];
	});
	if (refusals.length) {
		for (const r of refusals) io.stderr(`pi-flows test: ${r}`);
		return 2;
	}
	const files = args.positionals.length ? named : besideFlows(io, sources);
	const skipped = args.positionals.length ? undefined : skippedProjectFlows(io, sources);
	if (files.length === 0) {
		io.stderr("pi-flows test: no flow tests found (write `<flow>.test.yaml` beside a flow)");
		if (skipped) io.stderr(skipped);
		return 0;
	}
	let failed = 0;
	for (const file of files) {
		let text: string;
		try {
			text = readFileSync(file, "utf8");
		} catch (error) {
			failed++;
			io.stdout(`✗ ${displayPath(file, io.cwd)}\n  it cannot be read: ${(error as Error).message}`);
			continue;
		}
		const read = readFlowTest(text, file);
		if (!read.value) {
			failed++;
			io.stdout(`✗ ${displayPath(file, io.cwd)}\n  ${read.problems.join("\n  ")}`);
			continue;
		}
		const outcome = await runFlowTest(read.value, { cwd: io.cwd, agentDir: io.agentDir, env: io.env, sources, replay });
		const mode = read.value.cassette !== undefined ? ` · ${replay} replay` : "";
		if (outcome.passed) {
			io.stdout(
				`✓ ${displayPath(file, io.cwd)} · ${outcome.flow} · ${outcome.result?.visits.length ?? 0} visit(s)${mode}${outcome.differences?.length ? ` · ${outcome.differences.length} difference(s)` : ""}`,
			);
			for (const d of outcome.differences ?? []) io.stdout(`  ~ ${d}`);
		} else {
			failed++;
			io.stdout(`✗ ${displayPath(file, io.cwd)} · ${outcome.flow}${mode}\n  ${outcome.failures.join("\n  ")}`);
		}
	}
	io.stdout(`${files.length - failed} passed, ${failed} failed`);
	if (skipped) io.stderr(skipped);
	return failed ? 1 : 0;
}

function besideFlows(io: Io, scope: Sources): string[] {
	const dirs = new Set(listFlows(io.cwd, scope, io.env).flows.map((f) => dirname(f.file)));
	return [...dirs].flatMap((d) => expand(d));
}

function expand(path: string): string[] {
	try {
		if (statSync(path).isDirectory()) {
			return readdirSync(path)
				.filter((f) => /\.test\.ya?ml$/.test(f))
				.sort()
				.map((f) => join(path, f));
		}
	} catch {
		// A missing path is reported by reading it.
	}
	return [path];
}
