/**
 * Bounded work on any input (issue 28, hole 13): hostile flows of up to 1 MiB checked whole, each in a
 * worker thread capped at 512 MiB of heap, beside a bare parse of the same text (remark's Markdown parse
 * with frontmatter, then yaml's parseDocument), side by side in one run. The target: a check takes at most
 * 2 s and 512 MiB, or ends with the fault of the bound it hit. The ratio check / parse says what the
 * bounds leave of the grammar's work: near the parse, whatever the file holds.
 *
 *   node bench/limits.ts            (npm run bench:limits)
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import remarkFrontmatter from "remark-frontmatter";
import remarkParse from "remark-parse";
import { unified } from "unified";
import { parseDocument } from "yaml";
import { loadRoster } from "../src/agents/index.ts";
import { chainExpander } from "../src/chain/index.ts";
import { checkFlowText } from "../src/load/index.ts";
import { describeMachine, machine } from "./lib/machine.ts";

const head = (body: string) => `---\nname: big\ndescription: d\ninput: string\n${body}---\n`;
const sections = (n: number, prefix: string) =>
	Array.from({ length: n }, (_, i) => `## ${prefix}${i}\nLook.\n`).join("");
const loops = (n: number, cond: string) =>
	Array.from(
		{ length: n },
		(_, i) => `  - id: l${i}\n    loop: "${cond}"\n    max: 1\n    do:\n      - id: a${i}\n        agent: scout\n`,
	).join("");

/** The hostile inputs, by name. */
const CASES: Record<string, () => string> = {
	"a 900 KB condition": () =>
		`${head(`nodes:\n  - id: l\n    loop: "size([${Array(450_000).fill("1").join(",")}]) > 0"\n    max: 2\n    do:\n      - id: a\n        agent: scout\n`)}## a\nx\n`,
	"a 20,000-step chain": () => head(`chain: "${Array(20_000).fill("@scout").join(" -> ")}"\n`),
	"20,000 nodes (940 KB)": () =>
		`${head(`nodes:\n${Array.from({ length: 20_000 }, (_, i) => `  - id: n${i}\n    agent: scout\n`).join("")}`)}${sections(20_000, "n")}`,
	"10,000 nodes reading the one before (within the bounds)": () =>
		`${head(`nodes:\n${Array.from({ length: 10_000 }, (_, i) => `  - id: n${i}\n    agent: scout\n    reads: [${i ? `n${i - 1}` : "input"}]\n`).join("")}`)}${sections(10_000, "n")}`,
	"13 conditions of 600 characters (within the bounds)": () =>
		`${head(`nodes:\n${loops(13, `size([${Array(290).fill("1").join(",")}]) > 0`)}`)}${sections(13, "a")}`,
	"1,000 conditions of 600 characters (past the file's bound)": () =>
		`${head(`nodes:\n${loops(1_000, `size([${Array(290).fill("1").join(",")}]) > 0`)}`)}${sections(1_000, "a")}`,
};

interface Measured {
	bytes: number;
	checkMs: number;
	parseMs: number;
	heapMb: number;
	faults: string[];
}

function measure(name: string): Measured {
	const text = CASES[name]();
	const nowhere = mkdtempSync(join(tmpdir(), "pi-flows-limits-"));
	const roster = loadRoster(nowhere, { user: false, project: false });
	const expandChain = chainExpander(nowhere, { user: false, project: false });
	const markdown = unified().use(remarkParse).use(remarkFrontmatter, ["yaml"]);
	let t = performance.now();
	const root = markdown.parse(text);
	const yaml = root.children.find((c) => c.type === "yaml");
	if (yaml && "value" in yaml) parseDocument(String(yaml.value));
	const parseMs = performance.now() - t;
	const before = process.memoryUsage().heapUsed;
	t = performance.now();
	const judged = checkFlowText(text, "big.md", roster, { expandChain });
	const checkMs = performance.now() - t;
	const heapMb = Math.max(0, process.memoryUsage().heapUsed - before) / 2 ** 20;
	return { bytes: text.length, checkMs, parseMs, heapMb, faults: [...new Set(judged.faults.map((f) => f.code))] };
}

/** One case in a worker capped at 512 MiB of heap: a memory explosion ends the worker, not the bench. */
function inWorker(name: string): Promise<Measured | { error: string }> {
	return new Promise((resolve) => {
		const w = new Worker(fileURLToPath(import.meta.url), {
			workerData: name,
			resourceLimits: { maxOldGenerationSizeMb: 512 },
		});
		w.once("message", (m: Measured) => resolve(m));
		w.once("error", (e) => resolve({ error: e.message }));
	});
}

if (!isMainThread) {
	parentPort?.postMessage(measure(workerData as string));
} else {
	console.log(`Measured on ${describeMachine(machine())}.\n`);
	console.log("| input | size | check | parse | check / parse | heap | ended with | target (≤ 2 s, ≤ 512 MiB) |");
	console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
	for (const name of Object.keys(CASES)) {
		const m = await inWorker(name);
		if ("error" in m) {
			console.log(`| ${name} |  |  |  |  |  | ${m.error} | **MISSED** |`);
			continue;
		}
		const met = m.checkMs <= 2000 && m.heapMb <= 512;
		console.log(
			`| ${name} | ${(m.bytes / 1024).toFixed(0)} KiB | ${m.checkMs.toFixed(0)} ms | ${m.parseMs.toFixed(0)} ms | ${(m.checkMs / m.parseMs).toFixed(2)}× | ${m.heapMb.toFixed(0)} MiB | ${m.faults.join(", ") || "checks"} | ${met ? "met" : "**MISSED**"} |`,
		);
	}
}
