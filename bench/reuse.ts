/**
 * Reuse across runs (docs/runs.md, "Reuse"), measured in one process on real run folders in a git
 * repository of 200 files, on the scripted model (its token counts are pi's, from the text it is sent):
 *
 *   1. a two-visit flow with one section reworded: the rerun's tokens / the first run's (target ≤ 0.6);
 *   2. a 12-item map and a sum with one item changed: the rerun's tokens / the first run's (≤ 0.25);
 *   3. a rerun with nothing changed: its model tokens (0) and its wall time / a resume's (≤ 1.5), the
 *      resume being of the same flow failed at its last visit (an agent with no tools, so no tree of its
 *      own), less that one visit's own time;
 *   4. a visit's identity: its parts hashed, plus the tree hashes it costs shared over the visits that
 *      saw the same tree (≤ 2 ms a visit).
 *
 *   node bench/reuse.ts [--rounds 5] [--write] [--json]      (npm run bench:reuse)
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { loadRoster } from "../src/agents/index.ts";
import type { CheckedFlow } from "../src/language/index.ts";
import { createGitPort, type GitPort, resolveModels } from "../src/engine/index.ts";
import { agentIdentity } from "../src/identity/index.ts";
import { catalogueOptions, checkFlowText } from "../src/load/index.ts";
import { openHost, readScript } from "../src/pi/index.ts";
import { reuseFromFolder } from "../src/reuse/index.ts";
import { type ResumeOptions, resumeRun, type RunOutcome, runsHome, startRun } from "../src/runs/index.ts";
import { describeMachine, machine } from "./lib/machine.ts";
import { replaceSection } from "./lib/perf-doc.ts";
import { median } from "./lib/rounds.ts";

const arg = (name: string, fallback: number) => {
	const i = process.argv.indexOf(`--${name}`);
	return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const ROUNDS = arg("rounds", 5);
const started = performance.now();
const loadAtStart = loadavg()[0];

const root = mkdtempSync(join(tmpdir(), "pi-flows-bench-reuse-"));
const cwd = join(root, "project");
const agentDir = join(root, "agent");
mkdirSync(cwd, { recursive: true });
mkdirSync(agentDir, { recursive: true });
const env = { ...process.env, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1" };
const git = (...args: string[]) => execFileSync("git", args, { cwd, stdio: ["ignore", "pipe", "pipe"] });

/** Counts the trees the runs hash (the identity's only costly part). */
let treeCalls = 0;
const realGit = createGitPort();
const countingGit: GitPort = {
	...realGit,
	tree: (dir, leaveOut) => {
		treeCalls++;
		return realGit.tree?.(dir, leaveOut) ?? Promise.resolve({ ok: false, kind: "unavailable", message: "no tree" });
	},
};

const write = (path: string, text: string) => {
	mkdirSync(join(cwd, path, ".."), { recursive: true });
	writeFileSync(join(cwd, path), text);
};

const TWO = (look: string, answer: string) =>
	`---\nname: two\ndescription: bench\ninput: string\nnodes:\n  - id: look\n    agent: scout\n    reads: [input]\n  - id: answer\n    agent: scout\n    reads: [input]\n---\n\n## look\n\n${look}\n\n## answer\n\n${answer}\n`;
const WIDE = (items: string[]) =>
	`---\nname: wide\ndescription: bench\ninput: string\nnodes:\n  - id: wide\n    map: [${items.join(", ")}]\n    concurrency: 4\n    do:\n      - id: look\n        agent: scout\n        reads: [item]\n  - id: sum\n    agent: summer\n    reads: [wide]\n---\n\n## look\n\nLook into the topic.\n\n## sum\n\nSum up what was found.\n`;
const ITEMS = Array.from({ length: 12 }, (_, i) => `topic-${i + 1}`);
const SCRIPT =
	'turns:\n  look:\n    - say: "seen {{section:input|lines:1}}{{section:item|lines:1}}"\n  answer:\n    - say: answered\n  sum:\n    - say: summed\n';
const FAILING = SCRIPT.replace("    - say: summed\n", "    - fail: down\n");

function checked(name: string, text: string): CheckedFlow {
	const file = join(cwd, ".pi", "flows", `${name}.md`);
	write(`.pi/flows/${name}.md`, text);
	const scope = { project: true };
	const c = checkFlowText(text, file, loadRoster(cwd, scope, env), catalogueOptions(cwd, scope, env));
	if (!c.value) throw new Error(`the bench flow ${name} does not check: ${JSON.stringify(c.faults)}`);
	return c.value;
}

async function host(script: string) {
	const read = readScript(script, "bench.yaml").value;
	if (!read) throw new Error("bad bench script");
	return openHost({ cwd, agentDir, script: read });
}

/** One run of `flow` in its own folder, reusing from `from` when given. */
async function run(flow: CheckedFlow, script: string, from?: string): Promise<RunOutcome> {
	const h = await host(script);
	const models = resolveModels(flow, h.resolveModel, "scripted");
	if (!models.ok) throw new Error(models.errors.join());
	const reuse = from ? reuseFromFolder(from, agentDir) : undefined;
	if (reuse && !reuse.ok) throw new Error(reuse.error);
	const out = await startRun(flow, "what is there?", {
		runsHome: runsHome(cwd),
		spawn: h.spawn,
		toolSchemas: h.toolSchemas,
		models: models.models,
		cwd,
		git: countingGit,
		scripts: new Map(),
		somebodyThere: false,
		retryBackoffMs: 0,
		keyDir: agentDir,
		...(reuse?.ok ? { reuse: reuse.source } : {}),
	});
	if ("refused" in out) throw new Error(out.refused);
	return out;
}

async function resume(runDir: string): Promise<RunOutcome> {
	const h = await host(SCRIPT);
	const out = await resumeRun({
		runDir,
		cwd,
		spawn: h.spawn,
		toolSchemas: h.toolSchemas,
		git: countingGit,
		models: ((flow: CheckedFlow) => {
			const m = resolveModels(flow, h.resolveModel, "scripted");
			return m.ok ? m.models : m.errors;
		}) as ResumeOptions["models"],
		somebodyThere: false,
		inDoubt: "stop",
		retryBackoffMs: 0,
		keyDir: agentDir,
	});
	if ("refused" in out) throw new Error(out.refused);
	return out;
}

const tokens = (o: RunOutcome) => o.result.usage.totalTokens;

try {
	git("init", "-q", "-b", "main");
	// The sum reads the map's output only: with no tools it sees no tree (a resume's last visit hashes none).
	write(".pi/agents/summer.md", "---\nname: summer\ndescription: sums up\ntools:\n---\nYou sum up.\n");
	for (let i = 0; i < 200; i++) write(`src/part-${i}.ts`, `export const part${i} = ${i};\n`.repeat(20));
	write(".gitignore", "node_modules/\n*.yaml\n");
	git("add", "-A");
	git("-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "bench");

	// 1. One section of two reworded, each in turn; the other visit is reused.
	const two = checked("two", TWO("Read what is there.", "Answer from what is there."));
	const twoFirst = await run(two, SCRIPT);
	const rewordAnswer = await run(
		checked("two", TWO("Read what is there.", "Answer briefly.")),
		SCRIPT,
		twoFirst.runDir,
	);
	const rewordLook = await run(
		checked("two", TWO("Read it all.", "Answer from what is there.")),
		SCRIPT,
		twoFirst.runDir,
	);
	const twoRatios = [tokens(rewordAnswer) / tokens(twoFirst), tokens(rewordLook) / tokens(twoFirst)];

	// 2. One item of twelve changed: that item and the sum that reads them all run.
	const wide = checked("wide", WIDE(ITEMS));
	const wideFirst = await run(wide, SCRIPT);
	const oneItem = await run(checked("wide", WIDE([...ITEMS.slice(0, 11), "topic-twelve"])), SCRIPT, wideFirst.runDir);
	const mapRatio = tokens(oneItem) / tokens(wideFirst);
	checked("wide", WIDE(ITEMS));

	// 3. Nothing changed, against a resume of the same flow failed at its last visit (rotating order).
	const rounds: { reuse: number; resume: number; reuseTokens: number; visits: number; trees: number }[] = [];
	for (let r = 0; r < ROUNDS + 1; r++) {
		const failed = await run(wide, FAILING);
		if (failed.result.ok) throw new Error("the failing run did not fail");
		const sides = {
			reuse: async () => {
				treeCalls = 0;
				const t = performance.now();
				const out = await run(wide, "turns: {}\n", wideFirst.runDir);
				const ms = performance.now() - t;
				if (!out.result.ok) throw new Error(`the rerun failed: ${out.result.error}`);
				return { ms, out, trees: treeCalls };
			},
			resume: async () => {
				const t = performance.now();
				const out = await resume(failed.runDir);
				const ms = performance.now() - t;
				if (!out.result.ok) throw new Error(`the resume failed: ${out.result.error}`);
				// The visit the resume plays is no part of what it replays.
				const played = out.result.visits.find((v) => v.path === "sum")?.usage.ms ?? 0;
				return { ms: ms - played, out, trees: 0 };
			},
		};
		const order = r % 2 ? (["resume", "reuse"] as const) : (["reuse", "resume"] as const);
		const got: Record<string, { ms: number; out: RunOutcome; trees: number }> = {};
		for (const k of order) got[k] = await sides[k]();
		if (r === 0) continue;
		const reused = got.reuse.out.result.visits.filter((v) => v.reuse).length;
		rounds.push({
			reuse: got.reuse.ms,
			resume: got.resume.ms,
			reuseTokens: tokens(got.reuse.out),
			visits: reused,
			trees: got.reuse.trees,
		});
	}
	const rerunRatio = median(rounds.map((x) => x.reuse / x.resume));

	// 3b. The same as a person times it: `pi-flows run --reuse` against `pi-flows resume`, as processes.
	const bin = join(import.meta.dirname, "..", "bin", "pi-flows.js");
	const cli = (...args: string[]) => {
		const t = performance.now();
		const r = spawnSync(process.execPath, [bin, ...args], { cwd, env, encoding: "utf8" });
		return { ms: performance.now() - t, code: r.status, stderr: r.stderr };
	};
	write("good.yaml", 'turns:\n  look:\n    - say: "seen {{section:item|lines:1}}"\n  sum:\n    - say: summed\n');
	write("empty.yaml", "turns: {}\n");
	const cliRounds: { reuse: number; resume: number }[] = [];
	for (let r = 0; r < Math.max(3, Math.ceil(ROUNDS / 2)); r++) {
		// Stopped by its budget before the sum: a resume with a larger one replays the map and plays the sum.
		const stopped = cli("run", "wide", "what is there?", "--script", "good.yaml", "--project", "--budget-turns", "12");
		if (stopped.code !== 1) throw new Error(`the budget did not stop the run: ${stopped.stderr}`);
		const dir = /pi-flows resume ([^\s`]+)/.exec(stopped.stderr)?.[1];
		if (!dir) throw new Error(`no run to resume: ${stopped.stderr}`);
		const sides = {
			reuse: () =>
				cli("run", "wide", "what is there?", "--script", "empty.yaml", "--project", "--reuse", wideFirst.runDir),
			resume: () => cli("resume", dir, "--budget-turns", "100"),
		};
		const order = r % 2 ? (["resume", "reuse"] as const) : (["reuse", "resume"] as const);
		const got: Record<string, { ms: number; code: number | null; stderr: string }> = {};
		for (const k of order) got[k] = sides[k]();
		for (const k of order) if (got[k].code !== 0) throw new Error(`${k} failed (${got[k].code}): ${got[k].stderr}`);
		cliRounds.push({ reuse: got.reuse.ms, resume: got.resume.ms });
	}
	const cliRatio = median(cliRounds.map((x) => x.reuse / x.resume));

	// 4. A visit's identity: its parts (a 2 kB prompt, 3 reads, 4 tools with pi's schemas), then the trees.
	const h = await host(SCRIPT);
	const facts = {
		agent: {
			name: "scout",
			file: "/p/scout.md",
			prompt: "You are a scout. ".repeat(120),
			tools: ["read", "grep", "find", "ls"],
		},
		toolSchemas: h.toolSchemas(["read", "grep", "find", "ls"]),
		answerTools: [],
		nodeSkills: [],
		model: "scripted/scripted",
		thinking: "default",
		section: "Look into the topic. ".repeat(20),
		reads: [
			{ address: "input", text: "what is there? ".repeat(10) },
			{ address: "item", text: "topic-3" },
			{ address: "plan.output.tasks", text: JSON.stringify({ tasks: ITEMS }) },
		],
		settings: { handoff: { watermark: 0.7, continuations: 2, resets: 3 } },
		tree: "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
		task: "Look into the topic. ".repeat(40),
	};
	const N = 2000;
	let t = performance.now();
	for (let i = 0; i < N; i++) agentIdentity(facts);
	const partsMs = (performance.now() - t) / N;
	const treeMs: number[] = [];
	const spawnMs: number[] = [];
	for (let i = 0; i < 5; i++) {
		t = performance.now();
		await realGit.tree?.(cwd, [join(cwd, ".pi")]);
		treeMs.push(performance.now() - t);
		t = performance.now();
		execFileSync("git", ["--version"]);
		spawnMs.push(performance.now() - t);
	}
	const trees = median(rounds.map((x) => x.trees));
	const visits = median(rounds.map((x) => x.visits));
	const perVisit = partsMs + (median(treeMs) * trees) / visits;

	const m = machine();
	const out = {
		twoFirstTokens: tokens(twoFirst),
		rewordAnswerTokens: tokens(rewordAnswer),
		rewordLookTokens: tokens(rewordLook),
		twoRatio: Math.max(...twoRatios),
		wideFirstTokens: tokens(wideFirst),
		oneItemTokens: tokens(oneItem),
		mapRatio,
		rerunTokens: Math.max(...rounds.map((x) => x.reuseTokens)),
		rerunMs: median(rounds.map((x) => x.reuse)),
		resumeMs: median(rounds.map((x) => x.resume)),
		rerunRatio,
		cliReuseMs: median(cliRounds.map((x) => x.reuse)),
		cliResumeMs: median(cliRounds.map((x) => x.resume)),
		cliRatio,
		partsMs,
		treeMs: median(treeMs),
		gitMs: median(spawnMs),
		trees,
		visits,
		perVisit,
	};
	if (process.argv.includes("--json")) console.log(JSON.stringify(out));
	const met = (ok: boolean) => (ok ? "met" : "**MISSED**");
	const f = (x: number, d = 2) => x.toFixed(d);
	const table = [
		"| figure | this run | target |  |",
		"| --- | --- | --- | --- |",
		`| 1. one section of a two-visit flow reworded: rerun tokens / first run's | ${f(out.twoRatio)} | ≤ 0.6 | ${met(out.twoRatio <= 0.6)} |`,
		`|   ↳ first run / \`## answer\` reworded / \`## look\` reworded (tokens) | ${out.twoFirstTokens} / ${out.rewordAnswerTokens} / ${out.rewordLookTokens} |  |  |`,
		`| 2. one item of a 12-item map changed: rerun tokens / first run's | ${f(out.mapRatio)} | ≤ 0.25 | ${met(out.mapRatio <= 0.25)} |`,
		`|   ↳ first run / rerun (tokens; the item and the sum that reads the map run) | ${out.wideFirstTokens} / ${out.oneItemTokens} |  |  |`,
		`| 3. nothing changed: rerun's model tokens | ${out.rerunTokens} | 0 | ${met(out.rerunTokens === 0)} |`,
		`| 3. nothing changed: \`pi-flows run --reuse\` wall / \`pi-flows resume\`'s, as processes (median of ${cliRounds.length} paired rounds) | ${f(out.cliRatio)}× | ≤ 1.5 | ${met(out.cliRatio <= 1.5)} |`,
		`|   ↳ rerun (13 visits reused) / resume (12 replayed, 1 played) | ${f(out.cliReuseMs, 0)} ms / ${f(out.cliResumeMs, 0)} ms |  |  |`,
		`| 3. nothing changed, in one process: rerun wall / a resume's (median of ${ROUNDS} paired rounds) | ${f(out.rerunRatio)}× | ≤ 1.5 | ${met(out.rerunRatio <= 1.5)} |`,
		`|   ↳ rerun (13 visits reused) / resume (12 replayed, its last visit's own time left out) | ${f(out.rerunMs, 0)} ms / ${f(out.resumeMs, 0)} ms |  |  |`,
		`| 4. a visit's identity, per visit | ${f(out.perVisit, 3)} ms | ≤ 2 ms | ${met(out.perVisit <= 2)} |`,
		`|   ↳ its parts hashed / one tree hashed (200 files) / trees hashed per rerun of ${out.visits} visits | ${f(out.partsMs, 3)} ms / ${f(out.treeMs, 1)} ms / ${out.trees} |  |  |`,
		`|   ↳ one \`git --version\` on this machine now (a tree is two git processes, the first of a run four at most) | ${f(out.gitMs, 1)} ms |  |  |`,
	].join("\n");
	const text = [
		"What reuse across runs spends, on real run folders in a git repository of 200 files, on the scripted model (token counts are pi's, from the text each request carries). The machine is shared and noisy: read the ratios, not the times.",
		"",
		"```sh",
		"npm run bench:reuse             # node bench/reuse.ts: print the table (--write: and replace this section)",
		"```",
		"",
		`Measured on ${describeMachine(m)}, ${loadavg()[0].toFixed(1)} at the end (the whole bench took ${f((performance.now() - started) / 1000, 0)} s; load ${loadAtStart.toFixed(1)} when it began).`,
		"",
		table,
		"",
		"- **Rewording one section** runs that visit alone: the other one is reused whether it comes before (its identity is unchanged) or after (the reworded visit's output came out the same, so what reads it keeps its identity).",
		"- **One item of twelve** runs that item and the sum that reads the map's output; the other eleven items are reused.",
		"- **Nothing changed** plays no turn. As processes, the rerun is compared with `pi-flows resume` of the same flow stopped by its budget before its last visit (the resume replays 12 visits and plays one); both pay the process start and pi's loading, which is most of either. In one process, the rerun is compared with a resume of the same flow failed at its last visit, less that visit's own time: the resume trusts its own journal, the rerun opens a new run folder, hashes the tree once (a few git processes, which a loaded machine makes slow) and takes 13 visits from the earlier run's journal. That floor (one tree and a new run folder, tens of milliseconds) is why the in-process ratio misses the target against a resume's ten or so milliseconds; a person meets the process figure.",
		"- **A visit's identity** is its parts' hashes (tens of microseconds) and the tree: a git tree of the working tree is a few git processes, so it is hashed once per state of the tree and shared by every visit that sees that state (a tool that writes, a check, a copy landing or a change written again makes the next visit hash it again).",
	].join("\n");
	console.log(text);
	if (process.argv.includes("--write"))
		replaceSection(join(import.meta.dirname, "..", "docs", "performance.md"), "Reuse", text);
} finally {
	rmSync(root, { recursive: true, force: true });
}
