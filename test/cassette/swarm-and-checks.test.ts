/**
 * A run with a swarm and two checks, played on real pi sessions on the scripted model, recorded and
 * replayed: each member's rounds are kept and played back under the member's name, each check's result is
 * kept by its visit with the script it ran, and a strict replay names a member's changed tool result by
 * visit, member, round and turn, a file of the project the members read that changed since, and a check
 * that ran another script by its visit.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadRoster } from "../../src/agents/index.ts";
import { cassetteFiles, readCassette, recordRun, testText, writeCassette } from "../../src/cassette/index.ts";
import { createBashCheck, resolveModels } from "../../src/engine/index.ts";
import { readFlowTest, runFlowTest } from "../../src/flowtest/index.ts";
import { catalogueOptions, checkFlowText } from "../../src/load/index.ts";
import { readRun } from "../../src/reuse/index.ts";
import { runsHome, startRun } from "../../src/runs/index.ts";
import { scriptedHost } from "../helpers/host.ts";
import { agentFile, type TempProject, tempProject } from "../helpers/project.ts";

let project: TempProject;
const sources = { project: true };
const FLOW = `---
name: sw
description: a swarm looks, two checks judge
input: string
nodes:
  - id: survey
    swarm: [looker, peer]
    rounds: 2
    reads: [input]
  - id: good
    check: .pi/checks/good.sh
  - id: red
    check: .pi/checks/red.sh
---

## survey

Look at the notes.
`;
const SCRIPTS = {
	".pi/checks/good.sh": 'echo "all fine"\n',
	".pi/checks/red.sh": 'echo "FAIL: one test"\nexit 3\n',
};
const SCRIPT = `turns:
  survey:
    - call: read
      args: { path: notes.md }
    - say: "seen {{result|lines:1}}"
`;

let testFile = "";
let flowFile = "";

beforeAll(async () => {
	project = tempProject();
	project.write(".pi/agents/looker.md", agentFile("looker", "read"));
	project.write(".pi/agents/peer.md", agentFile("peer", "read"));
	project.write("notes.md", "Herons stand still.\n");
	for (const [path, text] of Object.entries(SCRIPTS)) project.write(path, text);
	flowFile = project.write(".pi/flows/sw.md", FLOW);
	const checked = checkFlowText(
		FLOW,
		flowFile,
		loadRoster(project.cwd, sources, project.env),
		catalogueOptions(project.cwd, sources, project.env),
	);
	if (!checked.value) throw new Error(JSON.stringify(checked.faults));
	const host = await scriptedHost(project, SCRIPT);
	const models = resolveModels(checked.value, host.resolveModel, "scripted");
	if (!models.ok) throw new Error(models.errors.join());
	const ran = await startRun(checked.value, "go", {
		runsHome: runsHome(project.cwd),
		spawn: host.spawn,
		toolSchemas: host.toolSchemas,
		models: models.models,
		cwd: project.cwd,
		check: createBashCheck(),
		scripts: new Map(Object.entries(SCRIPTS)),
		somebodyThere: true,
		retryBackoffMs: 0,
		keyDir: project.agentDir,
	});
	if ("refused" in ran) throw new Error(ran.refused);
	expect(ran.result.ok).toBe(true);
	const read = readRun(ran.runDir, project.agentDir);
	if (!read.ok) throw new Error(read.error);
	const recorded = await recordRun({
		run: "r1",
		backend: "folder",
		snapshot: read.snapshot,
		entries: read.entries,
		transcript: () => undefined,
		repo: project.cwd,
	});
	if ("error" in recorded) throw new Error(recorded.error);
	const files = cassetteFiles(flowFile, "sw", "rec");
	writeFileSync(files.cassette, writeCassette(recorded.cassette, " c"));
	writeFileSync(files.test, testText(recorded.test, "sw", files.cassette, " t"));
	testFile = files.test;
}, 120_000);
afterAll(() => project.cleanup());

async function replay(mode: "strict" | "warn" = "strict") {
	const read = readFlowTest(readFileSync(testFile, "utf8"), testFile);
	if (!read.value) throw new Error(read.problems.join());
	return runFlowTest(read.value, {
		cwd: project.cwd,
		agentDir: project.agentDir,
		env: project.env,
		sources,
		replay: mode,
	});
}

describe("a recorded swarm and its checks", { timeout: 120_000 }, () => {
	it("keeps every member's rounds, each check by its visit, and the files the members read", () => {
		const text = readFileSync(cassetteFiles(flowFile, "sw", "rec").cassette, "utf8");
		const cassette = readCassette(text, "c").value;
		expect([...(cassette?.visits.get("survey")?.members?.keys() ?? [])]).toEqual([
			"looker[0]#1",
			"looker[0]#2",
			"peer[0]#1",
			"peer[0]#2",
		]);
		for (const turns of cassette?.visits.get("survey")?.members?.values() ?? [])
			expect(turns.map((t) => t.answer.calls?.[0]?.name ?? t.answer.say)).toEqual(["read", "seen Herons stand still."]);
		const test = readFlowTest(readFileSync(testFile, "utf8"), testFile).value;
		expect(test?.checks).toEqual({
			good: { script: ".pi/checks/good.sh", passed: true, report: "all fine\n" },
			red: { script: ".pi/checks/red.sh", passed: false, report: "FAIL: one test\n" },
		});
		expect(test?.files).toEqual({ "notes.md": "Herons stand still.\n" });
	});

	it("replays the members' answers and the checks' results, strict, with no difference", async () => {
		const r = await replay();
		expect(r.failures).toEqual([]);
		expect(r.passed).toBe(true);
		expect(r.differences).toEqual([]);
	});

	it("names a member's changed tool result by visit, member, round and turn", async () => {
		const before = readFileSync(testFile, "utf8");
		writeFileSync(testFile, before.replace("Herons stand still.", "Herons fly."));
		try {
			const strict = await replay();
			expect(strict.passed).toBe(false);
			expect(strict.failures[0]).toMatch(
				/^differs from the recording: visit survey, member (looker|peer)\[0\], round 1, turn 2: the result of `read` \(call 1 of this visit\) changed$/,
			);
			const warn = await replay("warn");
			expect(warn.differences).toContain(
				"visit survey, member peer[0], round 2, turn 2: the result of `read` (call 1 of this visit) changed",
			);
		} finally {
			writeFileSync(testFile, before);
		}
	});

	it("names a file of the project the members read that changed since the recording, once for the visit", async () => {
		const notes = project.write("notes.md", "Herons fly.\n");
		try {
			const strict = await replay();
			expect(strict.passed).toBe(false);
			// The member that asked first is refused; what follows from it (a board without its post) comes after.
			expect(strict.failures[0]).toBe(
				"differs from the recording: visit survey: the project's `notes.md`, which it read, changed since the recording",
			);
			// The scratch folder still holds the file as recorded: only the tree is named, once, not a tool result.
			const warn = await replay("warn");
			expect(warn.passed).toBe(true);
			expect(warn.differences).toEqual([
				"visit survey: the project's `notes.md`, which it read, changed since the recording",
			]);
		} finally {
			writeFileSync(notes, "Herons stand still.\n");
		}
		expect((await replay()).passed).toBe(true);
	});

	it("names a check that ran another script than the recording's, and fails it when strict", async () => {
		writeFileSync(flowFile, FLOW.replace(".pi/checks/red.sh", ".pi/checks/good.sh"));
		try {
			const strict = await replay();
			expect(strict.passed).toBe(false);
			expect(strict.failures[0]).toBe(
				"differs from the recording: visit red: the check ran `.pi/checks/good.sh`; the recording ran `.pi/checks/red.sh`",
			);
			const warn = await replay("warn");
			expect(warn.passed).toBe(true);
			expect(warn.differences).toEqual([
				"visit red: the check ran `.pi/checks/good.sh`; the recording ran `.pi/checks/red.sh`",
			]);
		} finally {
			writeFileSync(flowFile, FLOW);
		}
	});
});
