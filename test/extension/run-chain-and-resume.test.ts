/**
 * `/run --chain` runs a chain string as a flow (handoff summaries, `chain.*` events in the run folder),
 * and `/run resume` continues a run stopped at a question: what ended is replayed, the question is asked
 * again, and the run completes in the same folder.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { contentOf, flowResults, rpc, runFoldersIn, type Sandbox, sandbox } from "./helpers/pi-process.ts";

let box: Sandbox;
beforeEach(() => {
	box = sandbox(["echo", "judge"]);
});
afterEach(() => box.cleanup());

const results = flowResults;
const runFolders = () => runFoldersIn(box.cwd);

describe("/run --chain and /run resume in a real pi process", () => {
	it("runs a chain string as a flow, each step handed the one before", async () => {
		box.write("chain.yaml", 'turns:\n  echo:\n    - say: ECHOED\n  judge:\n    - say: "{{task}}"\n');
		const pi = rpc(box);
		try {
			await pi.prompt('/run --chain "@echo -> @judge" say it twice --script chain.yaml');
			const text = contentOf(results(pi.lines)[0]);
			expect(text).toContain("## Handoff from `echo`");
			expect(text).toContain("ECHOED");
			const [folder] = runFolders();
			const events = readFileSync(join(folder, "events.jsonl"), "utf8");
			expect(events).toContain('"event":"chain.completed"');
		} finally {
			await pi.close();
		}
	});

	it("resumes a run stopped at a question: the answered part replayed, the question asked again", async () => {
		box.write(
			"~agent/flows/ask.md",
			"---\nname: ask\ndescription: d\ninput: string\nnodes:\n  - id: first\n    agent: echo\n  - id: pick\n    ask: Which?\n    options: [left, right]\n  - id: last\n    agent: judge\n    reads: [first, pick]\n---\n\n## first\n\nFirst.\n\n## last\n\nLast.\n",
		);
		box.write("ask.yaml", 'turns:\n  first:\n    - say: FIRST DONE\n  last:\n    - say: "{{task}}"\n');
		let selects = 0;
		const pi = rpc(box, {
			onUi: (request) => {
				if (request.method !== "select") return undefined;
				selects++;
				// The first time the person cancels the card, which stops the run; then they answer.
				return selects === 1 ? { cancelled: true } : { value: "right" };
			},
		});
		try {
			await pi.prompt("/run ask go --script ask.yaml");
			expect(contentOf(results(pi.lines)[0])).toMatch(/stopped|failed/);
			const [folder] = runFolders();
			// A process of this host that held the run and is gone: /run resume takes its lock without a flag.
			writeFileSync(join(folder, "lock.json"), JSON.stringify({ pid: 999_999, host: hostname(), startedAt: "then" }));
			await pi.prompt("/run resume");
			const resumed = contentOf(results(pi.lines)[1]);
			expect(resumed).toContain("(resumed, life 2)");
			expect(resumed).toContain("took over the lock of pid 999999 (started then), which is gone");
			expect(resumed).toContain('"answer": "right"');
			expect(resumed).toContain("FIRST DONE");
			expect(selects).toBe(2);
			const journal = readFileSync(join(folder, "journal.jsonl"), "utf8");
			expect(journal.match(/"type":"visit_end","life":\d,"path":"first"/g)).toHaveLength(1);
		} finally {
			await pi.close();
		}
	});
});
