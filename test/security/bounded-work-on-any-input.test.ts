/**
 * Hole 13 (issue 28): a long condition or chain stalled everything. A 200 KB `loop: "size([1,1,...])"`
 * took 29 s and 2.2 GB to check (900 KB: 134 s, then a V8 out-of-memory abort), a 20,000-step chain 39 s,
 * and the language server blocked 26 s on the same file: the grammar bounded nesting, not length. Every
 * input now meets a bound on the work it causes, and past one the check ends with a positioned fault naming
 * it. Times are `bench/limits.ts`'s business; here each case must end with its fault (the process's own
 * timeout is only the hang guard).
 */
import { cliBin } from "../helpers/built-cli.ts";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LspClient, startClient } from "../lsp/client.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

/** A flow whose one loop has a condition `size([1,1,...,1]) > 0` of about `bytes` characters. */
function longCondition(bytes: number): string {
	const items = Array(Math.floor(bytes / 2))
		.fill("1")
		.join(",");
	return `---\nname: big\ndescription: a long condition\ninput: string\nnodes:\n  - id: l\n    loop: "size([${items}]) > 0"\n    max: 2\n    do:\n      - id: a\n        agent: scout\n---\n## a\nLook.\n`;
}

const longChain = (steps: number) =>
	`---\nname: big\ndescription: a long chain\ninput: string\nchain: "${Array(steps).fill("@scout").join(" -> ")}"\n---\n`;

function manyNodes(n: number): string {
	const nodes = Array.from({ length: n }, (_, i) => `  - id: n${i}\n    agent: scout\n`).join("");
	return `---\nname: big\ndescription: many nodes\ninput: string\nnodes:\n${nodes}---\n${Array.from({ length: n }, (_, i) => `## n${i}\nLook.\n`).join("")}`;
}

/** A condition of 591 characters: within the bound of one. */
const COND = `size([${Array(290).fill("1").join(",")}]) > 0`;

/** 40 loops with {@link COND}: 23,640 characters of conditions together, past the file's 8,000. */
function manyConditions(): string {
	const cond = COND;
	const nodes = Array.from(
		{ length: 40 },
		(_, i) => `  - id: l${i}\n    loop: "${cond}"\n    max: 1\n    do:\n      - id: a${i}\n        agent: scout\n`,
	).join("");
	return `---\nname: big\ndescription: many conditions\ninput: string\nnodes:\n${nodes}---\n${Array.from({ length: 40 }, (_, i) => `## a${i}\nLook.\n`).join("")}`;
}

let p: TempProject;
beforeAll(() => {
	p = tempProject();
});
afterAll(() => p.cleanup());

type Fault = { code: string; line: number; column: number; message: string };

/** `pi-flows check --json <file>` as a person runs it, with a hang guard (the process is killed past it). */
function check(name: string, text: string): Fault[] {
	const file = p.write(`${name}/big.md`, text);
	const r = spawnSync(process.execPath, [cliBin(), "check", "--json", file], {
		cwd: p.cwd,
		env: p.env,
		encoding: "utf8",
		timeout: 60_000,
		maxBuffer: 64 * 1024 * 1024,
	});
	expect(r.signal, `killed by the hang guard; stderr: ${r.stderr.slice(0, 500)}`).toBeNull();
	expect(r.status, r.stderr.slice(0, 2000)).toBe(1);
	return (JSON.parse(r.stdout) as { faults: Fault[] }[])[0].faults;
}

describe("checking is bounded whatever the file holds, and says which bound it hit", () => {
	it.each([
		["200 KB", 200_000],
		["900 KB", 900_000],
	])(
		"a %s condition ends with expression-too-long at the first character past the bound",
		(_, bytes) => {
			const faults = check(`cond${bytes}`, longCondition(bytes));
			expect(faults.map((f) => f.code)).toEqual(["expression-too-long"]);
			// `    loop: "` is 11 characters on line 7: the bound is 1,000 characters into the condition.
			expect(faults[0]).toMatchObject({ line: 7, column: 12 + 1000 });
			expect(faults[0].message).toContain("1,000");
		},
		90_000,
	);

	it("a 20,000-step chain ends with chain-too-long", () => {
		const faults = check("chain", longChain(20_000));
		expect(faults.map((f) => f.code)).toEqual(["chain-too-long"]);
		expect(faults[0]).toMatchObject({ line: 5 });
		expect(faults[0].message).toContain("2,000");
	}, 90_000);

	it("a flow of 20,000 nodes ends with too-many-nodes at the first one past the bound", () => {
		const faults = check("nodes", manyNodes(20_000));
		expect(faults.map((f) => f.code)).toEqual(["too-many-nodes"]);
		// The frontmatter opens with four lines; node n10000 starts on line 6 + 2 × 10,000.
		expect(faults[0]).toMatchObject({ line: 6 + 2 * 10_000 });
	}, 90_000);

	it("conditions each within their bound but past the file's together end with expression-budget", () => {
		const faults = check("conds", manyConditions());
		expect(faults.map((f) => f.code)).toEqual(["expression-budget"]);
		// The loop whose condition crosses 8,000 characters, counted from 0; each loop takes 6 lines from line 6.
		const crossing = Math.ceil(8_001 / COND.length) - 1;
		expect(faults[0]).toMatchObject({ line: 6 + 6 * crossing + 1 });
	}, 90_000);
});

describe("the language server on the same file", () => {
	let client: LspClient;
	beforeAll(async () => {
		client = await startClient(p);
	}, 60_000);
	afterAll(async () => {
		await client?.stop();
	});

	it("publishes the fault for a 900 KB condition and still answers the next request", async () => {
		const text = longCondition(900_000);
		const uri = client.open(join(p.cwd, ".pi", "flows", "big.md"), text);
		const { diagnostics } = await client.diagnostics(uri, 1);
		expect(diagnostics.map((d) => d.code)).toEqual(["expression-too-long"]);
		expect(diagnostics[0].range.start).toEqual({ line: 6, character: 11 + 1000 });
		// Responsive: a hover on the node's id is answered (the server is not stuck in the file).
		const hover = await client.hover(uri, 10, 14);
		expect(hover).not.toBeUndefined();
	}, 90_000);
});
