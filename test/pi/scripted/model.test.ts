import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentDef } from "../../../src/agents/index.ts";
import { readScript } from "../../../src/pi/index.ts";
import { scriptedHost } from "../../helpers/host.ts";
import { type TempProject, tempProject } from "../../helpers/project.ts";

const agent = (tools: string[] = ["read"]): AgentDef => ({
	kind: "agent",
	name: "scout",
	description: "test",
	tools,
	prompt: "You are a test scout.",
	file: "scout.md",
	source: "shipped",
});

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

describe("the scripted model drives real pi sessions", () => {
	it("executes a scripted tool call through pi and answers from its result", async () => {
		project.write("notes.txt", "the secret word is heron\n");
		const host = await scriptedHost(
			project,
			`turns:\n  look:\n    - call: read\n      args: { path: notes.txt }\n    - say: "found: {{result}}"\n`,
		);
		const sub = await host.spawn({ agent: agent(), model: "scripted", cwd: project.cwd });
		const result = await sub.ask("find the word", { label: "look" });
		await sub.close();
		expect(result.ok).toBe(true);
		expect(result.output).toContain("found: the secret word is heron");
		expect(result.usage.toolCalls).toBe(1);
		expect(result.usage.requests).toBe(2);
		expect(result.usage.totalTokens).toBeGreaterThan(0);
		expect(result.model).toBe("scripted/scripted");
		expect(host.open()).toBe(0);
	});

	it("keeps the agent's tools an allowlist: a tool it lacks fails as a tool error, not a crash", async () => {
		const host = await scriptedHost(
			project,
			`turns:\n  w:\n    - call: write\n      args: { path: x.txt, content: hi }\n    - say: done\n`,
		);
		const sub = await host.spawn({ agent: agent(["read"]), model: "scripted", cwd: project.cwd });
		const result = await sub.ask("write", { label: "w" });
		await sub.close();
		expect(result.ok).toBe(true);
		const toolResult = result.messages.find((m) => (m as { role: string }).role === "toolResult") as {
			isError?: boolean;
		};
		expect(toolResult.isError).toBe(true);
	});

	it("turns a scripted provider error into ok: false with the error, and counts the usage", async () => {
		const host = await scriptedHost(project, "turns:\n  x:\n    - fail: rate limited by the provider\n");
		const sub = await host.spawn({ agent: agent(), model: "scripted", cwd: project.cwd });
		const result = await sub.ask("go", { label: "x" });
		await sub.close();
		expect(result).toMatchObject({ ok: false, errorKind: "provider", error: "rate limited by the provider" });
	});

	it("fails a turn with no scripted step with a message naming the node, without hanging", async () => {
		const host = await scriptedHost(project, "turns:\n  other:\n    - say: hi\n");
		const sub = await host.spawn({ agent: agent(), model: "scripted", cwd: project.cwd });
		const result = await sub.ask("go", { label: "review" });
		await sub.close();
		expect(result.ok).toBe(false);
		expect(result.error).toContain("`review`");
	});

	it("times a hanging turn out with the deadline in words", async () => {
		const host = await scriptedHost(project, "turns:\n  slow:\n    - hang: true\n");
		const sub = await host.spawn({ agent: agent(), model: "scripted", cwd: project.cwd });
		const result = await sub.ask("go", { label: "slow", timeoutMs: 150 });
		await sub.close();
		expect(result).toMatchObject({ ok: false, errorKind: "timeout", error: "timed out after 150ms" });
	});

	it("aborts through the signal, and refuses a turn whose signal is already aborted", async () => {
		const host = await scriptedHost(project, "turns:\n  slow:\n    - hang: true\n");
		const sub = await host.spawn({ agent: agent(), model: "scripted", cwd: project.cwd });
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 50);
		const result = await sub.ask("go", { label: "slow", signal: controller.signal });
		expect(result).toMatchObject({ ok: false, errorKind: "aborted" });
		const again = await sub.ask("go", { label: "slow", signal: controller.signal });
		expect(again).toMatchObject({ ok: false, errorKind: "aborted" });
		expect(again.usage.requests).toBe(0);
		await sub.close();
		await sub.close();
		expect(host.open()).toBe(0);
	});

	it("continues a visit's steps across attempts, so a script can fail then succeed", async () => {
		const host = await scriptedHost(project, "turns:\n  x:\n    - fail: flaky\n    - say: second time lucky\n");
		const sub = await host.spawn({ agent: agent(), model: "scripted", cwd: project.cwd });
		expect((await sub.ask("go", { label: "x" })).ok).toBe(false);
		const second = await sub.ask("go again", { label: "x" });
		await sub.close();
		expect(second).toMatchObject({ ok: true, output: "second time lucky" });
	});

	it("says when a visit's steps are used up", async () => {
		const host = await scriptedHost(project, "turns:\n  x:\n    - say: once\n");
		const sub = await host.spawn({ agent: agent(), model: "scripted", cwd: project.cwd });
		await sub.ask("go", { label: "x" });
		const second = await sub.ask("go", { label: "x" });
		await sub.close();
		expect(second.error).toContain("used up");
	});

	it("resolves an unknown model to an error before any turn", async () => {
		const host = await scriptedHost(project, "turns:\n  x:\n    - say: hi\n");
		const found = host.resolveModel("nosuchprovider/nosuchmodel");
		expect(found.ok).toBe(false);
		expect(host.scripted?.calls()).toBe(0);
		expect(host.resolveModel(undefined)).toMatchObject({ ok: false });
	});
});

describe("the script reader refuses a malformed script with positions", () => {
	const cases: [string, string, string, number, number][] = [
		["yaml syntax", "turns:\n  x: [unclosed\n", "yaml-syntax", 3, 1],
		["unknown step key", "turns:\n  x:\n    - sya: hi\n", "script-invalid", 3, 7],
		["two outcomes", "turns:\n  x:\n    - say: hi\n      fail: no\n", "script-invalid", 3, 7],
		["steps not a list", "turns:\n  x: hello\n", "script-invalid", 2, 6],
		["unknown top key", "turn:\n  x: []\n", "script-invalid", 1, 1],
		["args without call", "turns:\n  x:\n    - say: a\n      args: {}\n", "script-invalid", 4, 13],
	];
	for (const [name, text, code, line, column] of cases) {
		it(name, () => {
			const read = readScript(text, "s.yaml");
			expect(read.value).toBeUndefined();
			expect(read.faults[0]).toMatchObject({ code, line, column });
		});
	}
});
