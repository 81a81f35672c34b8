/**
 * A worker thread that checks one huge flow and reports how long it took and how much heap it grew by.
 * Huge inputs run here, not in the test's own thread, because checking is synchronous: only a worker can
 * be stopped at the time bound, and only a worker's heap cap turns a memory explosion into a clean
 * failure instead of the whole test process dying.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parentPort, workerData } from "node:worker_threads";
import { loadRoster } from "../../src/agents/index.ts";
import { catalogueOptions, checkFlowText } from "../../src/load/index.ts";

/** The huge inputs, by name: each builds a flow text. */
export const HUGE = {
	/** A valid flow whose frontmatter holds one 10 MB value. */
	frontmatter10mb: () => head("  - id: a\n    agent: scout\n", "x".repeat(10_000_000)) + section("a", "Look."),
	/** A valid flow whose one section is a 10 MB Markdown checklist (a pasted plan, a log of tasks). */
	list10mb: () => head("  - id: a\n    agent: scout\n") + section("a", "- [ ] a task to do\n".repeat(526_316)),
	/** Ten nested levels of aliases over a 1 MB string, aliased wherever a flow reads a value. */
	anchorBomb1mb: () => {
		let anchors = `  - &l0 "${"lol".repeat(334_000)}"\n`;
		for (let i = 1; i <= 9; i++)
			anchors += `  - &l${i} [${Array(10)
				.fill(`*l${i - 1}`)
				.join(", ")}]\n`;
		const nodes = [
			"  - id: a\n    agent: scout\n    output: *l9\n    reads: *l9\n",
			"  - id: m\n    map: *l9\n    do: [{ id: b, agent: scout }]\n",
			"  - id: q\n    ask: Go?\n    options: *l9\n    default: *l9\n",
			"  - id: s\n    swarm: *l9\n    rounds: 1\n",
		].join("");
		return `---\nname: huge\ndescription: d\ninput: *l9\nx-anchors:\n${anchors}budget: *l9\nnodes:\n${nodes}---\n${section("a", "A.")}${section("b", "B.")}${section("s", "S.")}`;
	},
	/** A valid pipeline of 10,000 agent nodes, each reading the one before. */
	nodes10000: () => pipeline(10_000),
	/** The same pipeline a tenth as long, to see how the time grows. */
	nodes1000: () => pipeline(1_000),
	/** 24 loops, each the whole body of the one around it: a 30-line file. */
	loops24deep: () => {
		let nest = "[{ id: z, agent: scout }]";
		for (let i = 0; i < 24; i++) nest = `[{ id: l${i}, loop: "true", max: 1, do: ${nest} }]`;
		return `---\nname: huge\ndescription: d\ninput: string\nnodes: ${nest}\n---\n${section("z", "Z.")}`;
	},
} as const;

export type HugeCase = keyof typeof HUGE;

/** What the worker reports. */
export interface HugeReport {
	bytes: number;
	ms: number;
	heapMb: number;
	faults: string[];
	value: boolean;
}

function pipeline(n: number): string {
	const nodes = Array.from(
		{ length: n },
		(_, i) => `  - id: n${i}\n    agent: scout\n    reads: [${i ? `n${i - 1}` : "input"}]\n`,
	).join("");
	return head(nodes) + Array.from({ length: n }, (_, i) => section(`n${i}`, `Step ${i}.`)).join("");
}

function head(nodes: string, description = "d"): string {
	return `---\nname: huge\ndescription: ${description}\ninput: string\nnodes:\n${nodes}---\n`;
}

function section(id: string, text: string): string {
	return `\n## ${id}\n\n${text}\n`;
}

if (parentPort && workerData?.case) {
	const port = parentPort;
	const nowhere = join(tmpdir(), "pi-flows-huge-nowhere");
	const scope = { user: false, project: false };
	const env = { PI_CODING_AGENT_DIR: join(nowhere, "agent") };
	const roster = loadRoster(nowhere, scope, env);
	const options = catalogueOptions(nowhere, scope, env);
	// The grammars compile on first use; a small flow first keeps that out of the measured time.
	checkFlowText(
		`${head("  - id: a\n    agent: scout\n    output: { ok: boolean }\n  - id: b\n    loop: a.output.ok\n    max: 1\n    do: [{ id: c, agent: scout }]\n")}${section("a", "A.")}${section("c", "C.")}`,
		"huge.md",
		roster,
		options,
	);
	const text = HUGE[workerData.case as HugeCase]();
	port.postMessage({ ready: true });
	// Repeats take the fastest time: a scaling test compares costs, not a cold start and a warm one.
	const repeat: number = workerData.repeat ?? 1;
	let report: HugeReport | undefined;
	for (let i = 0; i < repeat; i++) {
		const before = process.memoryUsage().heapUsed;
		const started = performance.now();
		const r = checkFlowText(text, "huge.md", roster, options);
		const ms = performance.now() - started;
		if (report && report.ms <= ms) continue;
		report = {
			bytes: Buffer.byteLength(text),
			ms,
			heapMb: (process.memoryUsage().heapUsed - before) / 1e6,
			faults: r.faults.slice(0, 5).map((f) => `${f.code} ${f.line}:${f.column}`),
			value: r.value !== undefined,
		};
	}
	port.postMessage({ report });
}
