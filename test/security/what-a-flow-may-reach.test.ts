/**
 * What a flow file may and may not reach. A repository's own `.pi/` is untrusted until the person asks
 * for it (`--project`); a flow names scripts inside the repository and never a command; no text of a flow
 * is ever parsed by a shell; and no input, however large or hostile, takes more than bounded time and
 * memory to be refused or checked.
 */
import { cliBin } from "../helpers/built-cli.ts";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, describe, expect, it } from "vitest";
import { loadRoster, PACKAGE_ROOT } from "../../src/agents/index.ts";
import { parseChain } from "../../src/chain/index.ts";
import { findTemplate } from "../../src/chain/templates.ts";
import { createBashCheck, createGitPort, prepareRun } from "../../src/engine/index.ts";
import { catalogueOptions, checkFlowText } from "../../src/load/index.ts";
import { agentFile, type TempProject } from "../helpers/project.ts";
import { flowOf } from "../helpers/run.ts";
import { checked, cleanupProjects, project, start } from "../helpers/durable.ts";
import type { HugeCase, HugeReport } from "./huge-input.ts";

afterAll(cleanupProjects);

function cli(p: TempProject, ...args: string[]) {
	const r = spawnSync(process.execPath, [cliBin(), ...args], {
		cwd: p.cwd,
		env: p.env,
		encoding: "utf8",
		timeout: 60_000,
	});
	return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("a repository's .pi/ is read only with the project scope", () => {
	const SCRIPT = "turns:\n  look:\n    - say: looked\n";

	it("a project agent is unknown to a flow checked without it", () => {
		const p = project();
		p.write(".pi/agents/insider.md", agentFile("insider"));
		const text = flowOf("uses", "  - id: look\n    agent: insider\n", { look: "Look." });
		const file = p.write("~agent/flows/uses.md", text);
		const without = checkFlowText(text, file, loadRoster(p.cwd, {}, p.env), catalogueOptions(p.cwd, {}, p.env));
		expect(without.faults.map((f) => f.code)).toEqual(["unknown-agent"]);
		const withIt = checkFlowText(
			text,
			file,
			loadRoster(p.cwd, { project: true }, p.env),
			catalogueOptions(p.cwd, { project: true }, p.env),
		);
		expect(withIt.faults).toEqual([]);
	});

	it("`pi-flows run` refuses a user flow naming a project agent, and a project flow, without --project", () => {
		const p = project();
		p.write(".pi/agents/insider.md", agentFile("insider"));
		p.write("~agent/flows/uses.md", flowOf("uses", "  - id: look\n    agent: insider\n", { look: "Look." }));
		p.write(".pi/flows/mine.md", flowOf("mine", "  - id: look\n    agent: scout\n", { look: "Look." }));
		p.write("s.yaml", SCRIPT);
		const user = cli(p, "run", "uses", "q", "--script", "s.yaml");
		expect(user.code).toBe(2);
		expect(user.stderr).toContain("unknown-agent: no agent `insider`");
		const mine = cli(p, "run", "mine", "q", "--script", "s.yaml");
		expect(mine.code).toBe(2);
		expect(mine.stderr).toContain("`mine` is a project flow (.pi/flows/mine.md) and was not read");
		expect(mine.stderr).toContain("add `--project`");
		// The same two with the scope asked for: the refusals above were the scope's, nothing else's.
		expect(cli(p, "run", "uses", "q", "--script", "s.yaml", "--project")).toMatchObject({
			code: 0,
			stdout: "looked\n",
		});
		expect(cli(p, "run", "mine", "q", "--script", "s.yaml", "--project")).toMatchObject({
			code: 0,
			stdout: "looked\n",
		});
	}, 60_000);
});

describe("check scripts stay inside the repository", () => {
	const checkFlow = (path: string) => flowOf("c", `  - id: tests\n    check: "${path}"\n`, {});

	it("a path that leaves it is refused when the flow is checked", () => {
		const p = project();
		for (const path of ["../x.sh", "a/../../x.sh", ".pi/../../x.sh", "/etc/passwd", ".."]) {
			const r = checkFlowText(checkFlow(path), join(p.cwd, "c.md"), loadRoster(p.cwd, {}, p.env));
			expect(
				r.faults.map((f) => [f.code, f.message.includes("leaves the repository")]),
				path,
			).toEqual([["key-type", true]]);
		}
	});

	it("a symlink pointing outside is refused at the run stage, and the port will not read it either", async () => {
		const p = project();
		const outside = join(dirname(p.cwd), "outside");
		mkdirSync(outside, { recursive: true });
		const marker = join(outside, "ran");
		writeFileSync(join(outside, "x.sh"), `touch ${marker}\n`);
		mkdirSync(join(p.cwd, ".pi/checks"), { recursive: true });
		symlinkSync(join(outside, "x.sh"), join(p.cwd, ".pi/checks/link.sh"));
		symlinkSync(outside, join(p.cwd, ".pi/linked"));
		for (const path of [".pi/checks/link.sh", ".pi/linked/x.sh"]) {
			const flow = checked(p, "c", checkFlow(path));
			const stage = await prepareRun(flow, { cwd: p.cwd, somebodyThere: true });
			expect(stage.ok ? [] : stage.faults.map((f) => f.code), path).toEqual(["check-script-outside"]);
			const ran = await createBashCheck().run({ script: path, root: p.cwd, cwd: p.cwd, timeoutMs: 5_000 });
			expect(ran, path).toMatchObject({
				ok: false,
				kind: "unavailable",
				message: expect.stringContaining("points outside the repository"),
			});
		}
		expect(existsSync(marker)).toBe(false);
	});

	it("a chain's `template:../x` is refused, and the template finder will not leave its folder", () => {
		const p = project();
		p.write("~agent/x.md", "---\nmodel: a/b\n---\nOutside the prompts folder.\n");
		p.write("~agent/prompts/inside.md", "Inside.\n");
		const parsed = parseChain("template:../x -> @scout", { file: "c" });
		expect(parsed.faults.map((f) => [f.code, f.offset, f.endOffset])).toEqual([["chain-bad-ref", 0, 13]]);
		const flow = flowOf("t", "", {}).replace("nodes:\n", 'chain: "template:../x -> @scout"\n');
		const r = checkFlowText(
			flow,
			join(p.cwd, "t.md"),
			loadRoster(p.cwd, {}, p.env),
			catalogueOptions(p.cwd, { project: true }, p.env),
		);
		expect(r.faults.map((f) => f.code)).toContain("chain-bad-ref");
		for (const name of ["../x", "prompts/../../x", "/x", "..", "a/../../x"])
			expect(findTemplate(name, p.cwd, { project: true }, p.env), name).toBeUndefined();
		expect(findTemplate("inside", p.cwd, { project: true }, p.env)?.text).toBe("Inside.");
	});
});

/** Every file under `dir` whose name ends in `.ts` or `.js`, relative to the package. */
function sources(dir: string): string[] {
	return readdirSync(join(PACKAGE_ROOT, dir), { recursive: true, encoding: "utf8" })
		.map((f) => join(dir, f))
		.filter((f) => /\.[cm]?[jt]s$/.test(f) && statSync(join(PACKAGE_ROOT, f)).isFile());
}

describe("nothing from a flow file reaches a shell", () => {
	it("only the ports start processes: bash with a script's content, git through execFile", () => {
		const starters = [...sources("src"), ...sources("bin")]
			.filter((f) =>
				/child_process|["']node:cluster["']|process\.binding|\bexeca\b|cross-spawn/.test(
					readFileSync(join(PACKAGE_ROOT, f), "utf8"),
				),
			)
			.sort();
		expect(starters).toEqual([
			"src/engine/ports/bash-check.ts",
			"src/engine/ports/git-exec.ts",
			"src/panes/backend.ts",
			"src/serve/own-cli.ts",
		]);
		// The web view starts only our own CLI, on this Node, with an argument list: a run id, a flow's path
		// or an input edited on the page is an argument, never shell text.
		const own = readFileSync(join(PACKAGE_ROOT, "src/serve/own-cli.ts"), "utf8");
		expect(own).toMatch(/import \{ type ChildProcess, execFile, spawn \} from "node:child_process";/);
		expect(own.match(/execFile\(/g)).toHaveLength(1);
		expect(own.match(/spawn\(/g)).toHaveLength(1);
		expect(own).toContain("execFile(\n\t\t\tprocess.execPath,\n\t\t\t[BIN, ...args],");
		expect(own).toContain("spawn(process.execPath, [BIN, ...args], {");
		expect(own).not.toMatch(/shell:\s*true|execSync|exec\(/);
		// The pane backend (issue 17) runs tmux with an argument list, never a shell: a visit path is only an argument.
		const panes = readFileSync(join(PACKAGE_ROOT, "src/panes/backend.ts"), "utf8");
		expect(panes).toMatch(/import \{ execFileSync \} from "node:child_process";/);
		expect(panes.match(/execFileSync\(/g)).toHaveLength(1);
		expect(panes).toContain('execFileSync("tmux", args, {');
		expect(panes).not.toMatch(/shell:\s*true|execSync|exec\(|spawn\(/);
		const check = readFileSync(join(PACKAGE_ROOT, "src/engine/ports/bash-check.ts"), "utf8");
		expect(check).toMatch(/import \{ type ChildProcess, spawn \} from "node:child_process";/);
		// The script's content is the program; the flow's text (its path) is only `$0`, an argument.
		expect(check.match(/spawn\(/g)).toHaveLength(1);
		expect(check).toContain('spawn("bash", ["-c", content, request.script], {');
		const git = readFileSync(join(PACKAGE_ROOT, "src/engine/ports/git-exec.ts"), "utf8");
		expect(git).toMatch(/import \{ type ExecFileException, execFile \} from "node:child_process";/);
		expect(git.match(/execFile\(/g)).toHaveLength(1);
		expect(git).toContain('execFile(\n\t\t\t"git",\n\t\t\targs,');
		for (const text of [check, git]) expect(text).not.toMatch(/shell:\s*true|execSync|exec\(/);
	});

	it("shell syntax in ids, prose, input, a check's path and a commit message runs nothing", async () => {
		const p = project();
		const git = (...args: string[]) =>
			spawnSync("git", args, {
				cwd: p.cwd,
				encoding: "utf8",
				env: { ...p.env, GIT_DIR: undefined, GIT_WORK_TREE: undefined, GIT_INDEX_FILE: undefined },
			});
		git("init", "-q", "-b", "main");
		git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "start");
		const sneaky = ".pi/checks/$(touch${IFS}pwned_path)`touch${IFS}pwned_path2`.sh";
		// The check leaves a file, so the commit node has what the run changed to commit (it commits only that).
		p.write(sneaky, 'printf "%s\\n" "ran as $0"\nprintf "checked\\n" > checked.txt\n');
		const hostile = "$(touch pwned_a) `touch pwned_b` ; touch pwned_c && touch pwned_d | tee pwned_e";
		// An id with shell syntax is refused before anything runs.
		const badId = checkFlowText(
			flowOf("i", "  - id: $(touch pwned_id)\n    agent: scout\n", { "$(touch pwned_id)": "x" }),
			join(p.cwd, "i.md"),
			loadRoster(p.cwd, {}, p.env),
		);
		expect(badId.faults.map((f) => f.code)).toContain("invalid-id");
		const text = flowOf(
			"inject",
			[
				"  - id: look",
				"    agent: scout",
				"    reads: [input]",
				"  - id: tests",
				`    check: "${sneaky}"`,
				"  - id: message",
				"    agent: synthesiser",
				"    reads: [look, tests]",
				"  - id: save",
				"    commit: message",
				"",
			].join("\n"),
			{ look: `Run ${hostile}.`, message: `Write ${hostile} as the message.` },
		).replace("description: test flow", `description: "${hostile.replaceAll('"', '\\"')}"`);
		const flow = checked(p, "inject", text);
		const stage = await prepareRun(flow, { cwd: p.cwd, somebodyThere: true, git: createGitPort() });
		if (!stage.ok) throw new Error(stage.faults.map((f) => f.message).join("\n"));
		const script = `turns:\n  look:\n    - say: "{{task}}"\n  message:\n    - say: ${JSON.stringify(hostile)}\n`;
		const run = await start(
			p,
			flow,
			script,
			{ scripts: stage.scripts, check: createBashCheck(), git: createGitPort() },
			hostile,
		);
		expect(run.thrown).toBeUndefined();
		expect(run.out?.result.ok, run.out?.result.error).toBe(true);
		const tests = run.out?.result.visits.find((v) => v.node === "tests")?.output as { report: string };
		expect(tests.report).toBe(`ran as ${sneaky}\n`);
		const log = git("log", "--all", "--format=%B").stdout;
		expect(log).toContain(hostile);
		// The test's own folder (project, agent dir) in depth, and the temp folder's top, where a command
		// run with another cwd would have landed; never all of /tmp, which other tests are writing to.
		const pwned = [
			...readdirSync(dirname(p.cwd), { recursive: true, encoding: "utf8" }).map((f) => join(dirname(p.cwd), f)),
			...readdirSync(tmpdir()).map((f) => join(tmpdir(), f)),
			...readdirSync(PACKAGE_ROOT).map((f) => join(PACKAGE_ROOT, f)),
		].filter((f) => /(^|\/)pwned[^/]*$/.test(f));
		expect(pwned).toEqual([]);
	}, 30_000);
});

/** Checks one huge flow in a worker capped at `heapMb`; `timedOut` when it ran past `limitMs`. */
function checkHuge(
	which: HugeCase,
	limitMs: number,
	heapMb: number,
	repeat = 1,
): Promise<{ report?: HugeReport; timedOut?: boolean; error?: string }> {
	return new Promise((done) => {
		const worker = new Worker(new URL("./huge-input.ts", import.meta.url), {
			workerData: { case: which, repeat },
			resourceLimits: { maxOldGenerationSizeMb: heapMb },
		});
		let timer: NodeJS.Timeout | undefined;
		const finish = (outcome: { report?: HugeReport; timedOut?: boolean; error?: string }) => {
			clearTimeout(timer);
			void worker.terminate();
			done(outcome);
		};
		worker.on("message", (m: { ready?: boolean; report?: HugeReport }) => {
			// The clock starts when the text is built, so only the check is timed.
			if (m.ready) timer = setTimeout(() => finish({ timedOut: true }), limitMs);
			if (m.report) finish({ report: m.report });
		});
		worker.on("error", (e) => finish({ error: `${(e as NodeJS.ErrnoException).code ?? ""} ${e.message}` }));
		worker.on("exit", () => finish({ error: "the worker exited" }));
	});
}

/**
 * A hang guard, not a speed target: an input that is refused or checked at all finishes far inside it even
 * on a loaded machine, while the bugs below took minutes or never ended. Speed lives in `bench/`.
 */
const LIMIT_MS = 60_000;
const HEAP_MB = 500;

async function bounded(which: HugeCase): Promise<HugeReport> {
	// The cap is the bound plus the baseline (roster, grammars, the input itself), so running out of
	// heap under it means growing by more than HEAP_MB.
	const out = await checkHuge(which, LIMIT_MS, HEAP_MB + 150);
	expect(out.timedOut ? `${which} ran past ${LIMIT_MS} ms` : out.error ? `${which} failed: ${out.error}` : "ok").toBe(
		"ok",
	);
	const report = out.report as HugeReport;
	expect(report.heapMb).toBeLessThan(HEAP_MB);
	return report;
}

describe("huge and hostile inputs are refused or checked in bounded time and memory", () => {
	it("a flow with a 10 MB frontmatter value is refused as too large, at once", async () => {
		const r = await bounded("frontmatter10mb");
		expect(r.bytes).toBeGreaterThanOrEqual(10_000_000);
		expect(r.value).toBe(false);
		expect(r.faults.join("\n")).toContain("flow-too-large");
	}, 90_000);

	it("a 1 MB YAML anchor bomb (billion laughs), aliased wherever a flow reads a value", async () => {
		const r = await bounded("anchorBomb1mb");
		expect(r.bytes).toBeGreaterThanOrEqual(1_000_000);
		// Aliases are never expanded: each is refused where it stands.
		expect(r.value).toBe(false);
		expect(r.faults.length).toBeGreaterThan(0);
	}, 90_000);

	// Bug 3 (fixed: files over 1 MiB are `flow-too-large`, and the body is split at its `## ` lines by a
	// line scan, never parsed whole). Before, the reader had no size limit and parsed the whole body to a Markdown tree (remark) just to
	// find the `## ` headings (src/language/read/read.ts:52 `processor.parse(text)`, before even looking for
	// the frontmatter). micromark's cost per byte depends on the shape: 1 MB of `- [ ] task` lines takes
	// about 20 s and 2.3 GB of heap, 1 MB of `## h` lines 15 s and 1.8 GB, 100 KB of `> ` 17 s; plain prose
	// is 10–14 s for 10 MB. A 10 MB checklist here runs out of the 650 MB heap long before 10 s.
	it("a 10 MB flow file: a section holding a 10 MB Markdown checklist (bug 3)", async () => {
		await bounded("list10mb");
	}, 90_000);

	// Bug 4 (fixed: the scope is a chain of links with an index by id). Before, the checker's scope copied every visible id into a new Map for each node that ends
	// (src/language/check/scope.ts:72-73, `with`), so a sequence of n nodes costs O(n²): 10,000 nodes each
	// reading the one before take 9 s on an idle machine (over 10 s under any load, 33 s at a load of 6),
	// about 40 times what 1,000 take. How the time grows is a speed figure, printed by `npm run bench:check`;
	// here the check must finish inside the hang guard and the heap bound.
	it("a flow with 10,000 nodes is checked within the bounds (bug 4)", async () => {
		const large = await bounded("nodes10000");
		expect(large.value).toBe(true);
	}, 90_000);

	// Bug 5 (fixed: a body that reads neither the loop nor a map-from over it is checked once). Before, checkLoop checked its body twice, a silent pass for the `previous` types and the real one
	// (then in src/flow/check/blocks.ts, now src/kinds/loop/language.ts), so nested loops cost 2^depth: 16 deep 1 s, 20 deep 5 s,
	// 24 deep 67 s, for a file of 30 lines.
	it("a 30-line flow of 24 nested loops (bug 5)", async () => {
		await bounded("loops24deep");
	}, 90_000);

	// Bug 6 (fixed: an alias the file cannot expand makes the agent broken). Before, parseAgentFile turned the frontmatter into JS with `doc.toJS()` (src/agents/agent.ts:46), which
	// throws on an alias bomb ("Excessive alias count") and on an undefined alias (`tools: *t`), so
	// loadRoster throws and `pi-flows check --project` (or any command, for a user agent file) dies with a
	// stack trace instead of reporting one broken agent.
	it("an agent file with an alias bomb, or an undefined alias, is a broken agent, not a crash (bug 6)", () => {
		const p = project();
		let bomb = "a0: &a0 [lol, lol]\n";
		for (let i = 1; i < 12; i++)
			bomb += `a${i}: &a${i} [${Array(10)
				.fill(`*a${i - 1}`)
				.join(", ")}]\n`;
		p.write(".pi/agents/bomb.md", `---\n${bomb}name: bomb\ndescription: d\n---\nYou are.\n`);
		p.write(".pi/agents/alias.md", "---\nname: alias\ndescription: d\ntools: *t\n---\nYou are.\n");
		const roster = loadRoster(p.cwd, { project: true }, p.env);
		expect(roster.get("bomb")?.kind).toBe("broken");
		expect(roster.get("alias")?.kind).toBe("broken");
	});
});
