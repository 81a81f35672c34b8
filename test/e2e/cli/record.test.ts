/**
 * `pi-flows record` as a person meets it: a flow run over HTTP against the project's provider server (pi's
 * real OpenAI provider code), recorded into a cassette beside the flow, replayed by `pi-flows test` with the
 * server stopped (lockdown: no network), then a section, a file of the test and a file of the project edited
 * and the strict replay naming the visit, the turn and the part (the project's file by name). A secret-shaped answer is redacted and named, and `--strict` refuses it;
 * a re-record is byte-identical; `--refresh NODE` pays for that node alone.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ProviderServer, startProviderServer, type Reply, type WireRequest } from "../../../src/provider/index.ts";
import { cliChild } from "../../helpers/kill.ts";
import { agentFile, type TempProject, tempProject } from "../../helpers/project.ts";

let project: TempProject;
let server: ProviderServer | undefined;
let gist = "herons wait";

/** The CLI as a child process: asynchronous, so the server in this process answers while it runs. */
async function cli(...args: string[]) {
	const r = await cliChild({ ...project, env: { ...project.env, CI: "" } }, args);
	return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const git = (...args: string[]) => execFileSync("git", args, { cwd: project.cwd, encoding: "utf8" }).trim();

/** The provider's answers: `look` reads the notes, then reports (with a key-shaped token); `answer` submits. */
function reply(req: WireRequest): Reply {
	if (req.lastUser.includes("Read the notes.")) {
		if (req.turn === 0) return { text: "Reading the notes.", tools: [{ name: "read", args: { path: "notes.md" } }] };
		return { text: "The notes say herons stand still. (They printed sk-proj-abcdefghijklmnopqrstuvwx1234.)" };
	}
	return { tools: [{ name: "submit", args: { gist } }] };
}

async function serve(): Promise<ProviderServer> {
	const s = await startProviderServer({ script: reply });
	writeFileSync(
		join(project.agentDir, "models.json"),
		JSON.stringify(s.modelsJson({ cost: { input: 3, output: 15 } })),
	);
	return s;
}

const FLOW = `---
name: two
description: look, then answer
input: string
nodes:
  - id: look
    agent: reader
    reads: [input]
  - id: answer
    agent: reader
    reads: [input, look]
    output: { gist: string }
---

## look

Read the notes.

## answer

Answer from what was found.
`;

const CASSETTE = ".pi/flows/two.herons.cassette.yaml";
const TEST = ".pi/flows/two.herons.test.yaml";

beforeAll(async () => {
	project = tempProject();
	git("init", "-q", "-b", "main");
	git("config", "user.name", "Test Person");
	git("config", "user.email", "test@example.com");
	project.write("notes.md", "Herons stand still for a long time.\n");
	project.write(".pi/agents/reader.md", agentFile("reader", "read"));
	project.write(".pi/flows/two.md", FLOW);
	git("add", "-A");
	git("commit", "-q", "-m", "initial");
	server = await serve();
	const run = await cli("run", "two", "what do herons do?", "--model", "wire/wire-1", "--project");
	expect(run.code, run.stderr).toBe(0);
}, 120_000);
afterAll(async () => {
	await server?.close();
	project.cleanup();
});

// Each step is a few CLI processes on a shared machine: minutes of margin, not the default 30 s.
describe("pi-flows record", { timeout: 120_000 }, () => {
	it("names a secret-shaped value, and --strict refuses to write", async () => {
		const strict = await cli("record", "--name", "strict", "--strict", "--project");
		expect(strict.code).toBe(1);
		expect(strict.stderr).toContain("a secret-shaped value (openai-key) in visit look, turn 2, the answer: redacted");
		expect(strict.stderr).toContain("nothing was written");
		expect(existsSync(join(project.cwd, ".pi/flows/two.strict.cassette.yaml"))).toBe(false);
	});

	it("writes a cassette and a test beside the flow, safe to commit and byte-identical when recorded again", async () => {
		const first = await cli("record", "--name", "herons", "--project");
		expect(first.code, first.stderr).toBe(0);
		expect(first.stdout.split("\n")).toEqual([CASSETTE, TEST, ""]);
		expect(first.stderr).toContain("2 visit(s), 3 turn(s)");
		const text = readFileSync(join(project.cwd, CASSETTE), "utf8");
		expect(text).toContain("[redacted: openai-key]");
		expect(text).not.toContain("sk-proj-abcdefghijklmnopqrstuvwx1234");
		// The provider's key from models.json never reaches it, nor the project's absolute folder.
		const key = JSON.parse(readFileSync(join(project.agentDir, "models.json"), "utf8")).providers.wire.apiKey;
		expect(text).not.toContain(key);
		expect(text).not.toContain(project.cwd);
		expect(text).toContain("model: wire/wire-1");
		const again = await cli("record", "--name", "herons", "--project");
		expect(again.code, again.stderr).toBe(0);
		expect(readFileSync(join(project.cwd, CASSETTE), "utf8")).toBe(text);
		const test = readFileSync(join(project.cwd, TEST), "utf8");
		expect(test).toContain("cassette: two.herons.cassette.yaml");
		expect(test).toContain("notes.md: |");
	});

	it("replays in lockdown with the server gone: no request reaches it, the run's outputs come out", async () => {
		const answered = server?.requests.length ?? 0;
		await server?.close();
		server = undefined;
		const r = await cli("test", TEST, "--project", "--replay", "lockdown");
		expect(r.code, r.stdout + r.stderr).toBe(0);
		expect(r.stdout).toContain("✓ .pi/flows/two.herons.test.yaml · two · 2 visit(s) · lockdown replay");
		expect(answered).toBe(3);
	});

	it("names the visit, the turn and the part when a section or a file read changed (strict)", async () => {
		const flow = join(project.cwd, ".pi/flows/two.md");
		writeFileSync(flow, FLOW.replace("Answer from what was found.", "Answer in one line."));
		const section = await cli("test", TEST, "--project");
		expect(section.code).toBe(1);
		expect(section.stdout).toContain("differs from the recording: visit answer, turn 1: `## answer` changed");
		writeFileSync(flow, FLOW);
		const testFile = join(project.cwd, TEST);
		const test = readFileSync(testFile, "utf8");
		writeFileSync(testFile, test.replace("Herons stand still for a long time.", "Herons fly."));
		const file = await cli("test", TEST, "--project");
		expect(file.code).toBe(1);
		expect(file.stdout).toContain("visit look, turn 2: the result of `read` (call 1 of this visit) changed");
		// Warn plays on and reports it; the outputs are the recorded ones, so the test passes.
		const warn = await cli("test", TEST, "--project", "--replay", "warn");
		expect(warn.code, warn.stdout).toBe(0);
		expect(warn.stdout).toContain("~ visit look, turn 2: the result of `read` (call 1 of this visit) changed");
		writeFileSync(testFile, test);
		// The project's own file, which `look` read, edited since the recording: the tree it depended on.
		const notes = join(project.cwd, "notes.md");
		writeFileSync(notes, "Herons fly.\n");
		const tree = await cli("test", TEST, "--project");
		writeFileSync(notes, "Herons stand still for a long time.\n");
		expect(tree.code).toBe(1);
		expect(tree.stdout).toContain(
			"differs from the recording: visit look: the project's `notes.md`, which it read, changed since the recording",
		);
	});

	it("--refresh answer runs that node alone against the real model and updates the cassette", async () => {
		gist = "herons fish";
		server = await serve();
		const r = await cli("record", "--name", "herons", "--refresh", "answer", "--project");
		expect(r.code, r.stderr).toBe(0);
		// `look` was reused from the recorded run; only `answer` asked the provider.
		expect(server.requests.length).toBe(1);
		expect(r.stderr).toContain("reused from");
		const text = readFileSync(join(project.cwd, CASSETTE), "utf8");
		expect(text).toContain("gist: herons fish");
		expect(text).toContain("Reading the notes.");
		await server.close();
		server = undefined;
		const replay = await cli("test", TEST, "--project", "--replay", "lockdown");
		expect(replay.code, replay.stdout).toBe(0);
	});

	it("fails at once a visit the cassette does not hold, and a cassette that is not one", async () => {
		const file = join(project.cwd, CASSETTE);
		const text = readFileSync(file, "utf8");
		writeFileSync(file, text.slice(0, text.indexOf("  answer:\n    node: answer")));
		const dropped = await cli("test", TEST, "--project", "--replay", "lockdown");
		expect(dropped.code).toBe(1);
		expect(dropped.stdout).toContain("visit answer is not in the cassette two.herons.cassette.yaml (it holds look)");
		writeFileSync(file, "cassette: 9\n");
		const bad = await cli("test", TEST, "--project");
		expect(bad.stdout).toContain(
			"two.herons.cassette.yaml: `cassette` is 9; this pi-flows reads cassettes of version 1",
		);
		writeFileSync(file, text);
	});

	it("refuses bad input with words: an unknown run, a bad name, a bad mode", async () => {
		expect((await cli("record", "nope", "--project")).stderr).toContain("no run folder nope");
		expect((await cli("record", "--name", "../x", "--project")).code).toBe(2);
		const mode = await cli("test", TEST, "--project", "--replay", "loose");
		expect(mode.code).toBe(2);
		expect(mode.stderr).toContain("one of strict, warn, lockdown");
	});
});
