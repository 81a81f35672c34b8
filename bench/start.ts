/**
 * What starting costs, installed the way users install: the packed tarball, `npm install`ed for the
 * `pi-flows` command and `pi install`ed into a pi agent folder. Side by side in one run, in rounds whose
 * order rotates; each figure is a median, each ratio the median of per-round ratios. Targets (issue 14):
 * `pi-flows --help` <= 6x a bare `node -e 0`; `pi-flows check <one flow>` <= 16x; a pi start with pi-flows
 * installed <= 1.1x one without (the same trivial prompt on a scripted model). The same commands run from
 * the TypeScript sources (Node's type stripping for the CLI, pi's jiti for the extension) are the other
 * way to ship, measured beside it for docs/decisions.md.
 *
 *   node bench/start.ts            print the table
 *   node bench/start.ts --write    and replace the "Start-up" section of docs/performance.md (npm run bench:start)
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { cleanEnv, installForLibrary, node, pack, piCli, repo, scratch } from "../test/install/packed.ts";
import { describeMachine, machine } from "./lib/machine.ts";
import { replaceSection } from "./lib/perf-doc.ts";

/** User + system CPU time of this process's waited-for children so far (Linux: /proc/self/stat, in ms). */
function childrenCpuMs(): number {
	const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
	// stat(5) fields 16 and 17 (cutime, cstime); after the command name, field n is at index n - 3.
	return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const write = process.argv.includes("--write");
const box = scratch("bench-start");
const started = performance.now();
const host = machine();

try {
	const tarball = pack(join(box.dir, "pack"));
	const cliProject = join(box.dir, "cli");
	installForLibrary(tarball, cliProject);
	const installed = join(cliProject, "node_modules/pi-flows");
	const project = join(box.dir, "project");
	const withFlows = join(box.dir, "agent-with");
	const without = join(box.dir, "agent-without");
	for (const dir of [project, withFlows, without]) mkdirSync(dir, { recursive: true });
	const install = spawnSync(node, [piCli, "install", `npm:${tarball}`], {
		cwd: project,
		env: cleanEnv({ PI_CODING_AGENT_DIR: withFlows }),
		encoding: "utf8",
	});
	if (install.status !== 0) throw new Error(`pi install failed:\n${install.stderr}`);
	writeFileSync(join(withFlows, "settings.json"), JSON.stringify({ packages: ["npm:pi-flows"] }));
	// The scripted model of the trivial prompt: one answer, no tools, no network.
	const probe = join(box.dir, "probe.ts");
	writeFileSync(
		probe,
		'import { fauxAssistantMessage, fauxProvider } from "@earendil-works/pi-ai";\nexport default function (pi) {\n\tconst faux = fauxProvider({ provider: "probe", models: [{ id: "probe" }] });\n\tfaux.setResponses([fauxAssistantMessage("ok")]);\n\tpi.registerProvider(faux.provider);\n}\n',
	);
	const pi = (agentDir: string, extra: string[] = []) => ({
		args: [piCli, "--no-session", ...extra, "-e", probe, "--model", "probe/probe", "-p", "hi"],
		cwd: project,
		env: cleanEnv({ PI_CODING_AGENT_DIR: agentDir }),
	});
	const flow = join(installed, "flows/explore.md");
	const sides = {
		node: { args: ["-e", "0"], cwd: box.dir, env: cleanEnv() },
		help: { args: [join(installed, "bin/pi-flows.js"), "--help"], cwd: cliProject, env: cleanEnv() },
		check: { args: [join(installed, "bin/pi-flows.js"), "check", flow], cwd: cliProject, env: cleanEnv() },
		helpTs: { args: [join(repo, "src/cli/main.ts"), "--help"], cwd: repo, env: cleanEnv() },
		checkTs: { args: [join(repo, "src/cli/main.ts"), "check", flow], cwd: repo, env: cleanEnv() },
		piWithout: pi(without),
		piWith: pi(withFlows),
		piWithTs: pi(without, ["-e", join(repo, "src/extension/index.ts")]),
	};
	type Side = keyof typeof sides;
	const names = Object.keys(sides) as Side[];
	const run = (side: Side): { wall: number; cpu: number } => {
		const { args, cwd, env } = sides[side];
		const c0 = childrenCpuMs();
		const t0 = performance.now();
		const out = spawnSync(node, args, { cwd, env, encoding: "utf8" });
		const wall = performance.now() - t0;
		if (out.status !== 0) throw new Error(`${side} failed (${out.status}):\n${out.stderr}`);
		return { wall, cpu: childrenCpuMs() - c0 };
	};
	// One warm-up of each (pi's jiti caches what it transforms; the first load of a package pays for it once).
	for (const side of names) run(side);
	const times = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<Side, number[]>;
	const cpu = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<Side, number[]>;
	for (let round = 0; round < ROUNDS; round++) {
		const order = names.map((_, i) => names[(i + round) % names.length]);
		for (const side of order) {
			const t = run(side);
			times[side].push(t.wall);
			cpu[side].push(t.cpu);
		}
	}
	const median = (xs: readonly number[]) => {
		const s = [...xs].sort((a, b) => a - b);
		return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
	};
	const ratio = (a: Side, b: Side) => median(times[a].map((t, i) => t / times[b][i]));
	const cpuRatio = (a: Side, b: Side) => median(cpu[a]) / median(cpu[b]);
	const ms = (side: Side) => `${median(times[side]).toFixed(0)} ms`;
	const cpuMs = (side: Side) => `${median(cpu[side]).toFixed(0)} ms`;
	const x = (r: number) => `${r.toFixed(2)}×`;
	const verdict = (r: number, target: number) => (r <= target ? "met" : "**MISSED**");
	const rows: [string, string, string, string][] = [
		["`pi-flows --help` / `node -e 0`", x(ratio("help", "node")), "≤ 6", verdict(ratio("help", "node"), 6)],
		[
			"`pi-flows check flows/explore.md` / `node -e 0`",
			x(ratio("check", "node")),
			"≤ 16",
			verdict(ratio("check", "node"), 16),
		],
		[
			"`pi -p` with pi-flows installed / without, wall",
			x(ratio("piWith", "piWithout")),
			"≤ 1.1",
			verdict(ratio("piWith", "piWithout"), 1.1),
		],
		[
			"`pi -p` with pi-flows installed / without, CPU time of the process",
			x(cpuRatio("piWith", "piWithout")),
			"≤ 1.1",
			verdict(cpuRatio("piWith", "piWithout"), 1.1),
		],
		["  ↳ from the TypeScript sources: `--help` / `node -e 0`", x(ratio("helpTs", "node")), "", ""],
		["  ↳ from the TypeScript sources: `check` / `node -e 0`", x(ratio("checkTs", "node")), "", ""],
		[
			"  ↳ from the TypeScript sources: `pi -p` with the extension (jiti) / without",
			x(ratio("piWithTs", "piWithout")),
			"",
			"",
		],
		["  ↳ medians: `node -e 0` · `--help` · `check` (built)", `${ms("node")} · ${ms("help")} · ${ms("check")}`, "", ""],
		["  ↳ medians: `--help` · `check` (sources)", `${ms("helpTs")} · ${ms("checkTs")}`, "", ""],
		[
			"  ↳ medians: `pi -p` without · with (built) · with (sources)",
			`${ms("piWithout")} · ${ms("piWith")} · ${ms("piWithTs")}`,
			"",
			"",
		],
		[
			"  ↳ CPU medians: `pi -p` without · with (built) · with (sources)",
			`${cpuMs("piWithout")} · ${cpuMs("piWith")} · ${cpuMs("piWithTs")}`,
			"",
			"",
		],
		[
			"  ↳ CPU medians: `node -e 0` · `--help` · `check` (built)",
			`${cpuMs("node")} · ${cpuMs("help")} · ${cpuMs("check")}`,
			"",
			"",
		],
	];
	const end = machine();
	const table = [
		"| figure | this run | target |  |",
		"| --- | --- | --- | --- |",
		...rows.map((r) => `| ${r.join(" | ")} |`),
	].join("\n");
	const body = `What starting costs, installed from the packed tarball the way users install it: \`npm install\` for the command, \`pi install\` (listed as \`npm:pi-flows\`) for pi. The rounds rotate the order of the sides; figures are medians of ${ROUNDS} rounds, ratios medians of per-round ratios. The machine is shared and noisy: read the ratios, not the times.

\`\`\`sh
npm run bench:start             # node bench/start.ts --write: print the table and replace this section
\`\`\`

Measured on ${describeMachine(host)}, ${end.load.toFixed(1)} at the end (the whole bench took ${((performance.now() - started) / 1000).toFixed(0)} s).

${table}

Wall time is what a person waits; on a loaded machine it mostly measures the queue for a core, so the pi start is also given in CPU time (user + system of the child process, from the kernel's accounting of waited-for children, 10 ms ticks), the ratio of the medians. How each side runs: every side is one process started by \`spawnSync\` with the Node 22 the package brings. \`--help\` and \`check\` run the installed \`bin/pi-flows.js\` (the bundle in \`dist/\`); the sources side runs \`src/cli/main.ts\` with Node's type stripping. The pi sides run pi's own CLI with \`--no-session -e probe.ts --model probe/probe -p hi\`, where \`probe.ts\` registers a scripted model that answers \`ok\`; "with" adds the agent folder where \`pi install\` put pi-flows, "sources" loads \`src/extension/index.ts\` with \`-e\` (pi's jiti compiles the TypeScript; its cache is warmed by one untimed run of every side).`;
	console.log(body);
	if (write) replaceSection(join(repo, "docs/performance.md"), "Start-up", body);
} finally {
	box.cleanup();
}
