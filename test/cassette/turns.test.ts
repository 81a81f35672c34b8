/**
 * A visit's messages as a cassette keeps them: one turn per assistant message, asked with every message
 * before it, each part digested on its own; the run's folder written as `<cwd>`, ids and times left out;
 * secret-shaped values masked and named where they were found.
 */
import { describe, expect, it } from "vitest";
import { askedOf, conversations, turnsOf } from "../../src/cassette/index.ts";
import { maskShapes } from "../../src/secrets/index.ts";

const system = (cwd: string, tools = ["read"]) => ({
	role: "system",
	content: "",
	sections: { preamble: "You are a reader.", cwd: `<cwd>\n${cwd}\n</cwd>` },
	timestamp: 1,
	toolsAdded: tools.map((name) => ({ name, description: `${name} a file`, parameters: { type: "object" } })),
});
const user = (text: string) => ({ role: "user", content: [{ type: "text", text }], timestamp: 2 });
const call = (id: string, path: string) => ({
	role: "assistant",
	content: [
		{ type: "thinking", thinking: "hmm" },
		{ type: "toolCall", id, name: "read", arguments: { path } },
	],
	stopReason: "toolUse",
	timestamp: 3,
	usage: { input: 1 },
});
const result = (id: string, text: string) => ({
	role: "toolResult",
	toolCallId: id,
	toolName: "read",
	content: [{ type: "text", text }],
	isError: false,
	timestamp: 4,
});
const say = (text: string) => ({
	role: "assistant",
	content: [{ type: "text", text }],
	stopReason: "stop",
	timestamp: 5,
});

const visit = (cwd: string, id: string, read = "notes") => [
	system(cwd),
	user("Read the notes."),
	call(id, `${cwd}/notes.md`),
	result(id, read),
	say("done"),
];

describe("turnsOf", () => {
	it("makes one turn per answer, asked with every message before it", () => {
		const turns = turnsOf(visit("/tmp/a", "t1"));
		expect(turns.map((t) => t.answer)).toEqual([
			{ thinking: "hmm", calls: [{ name: "read", args: { path: "<cwd>/notes.md" } }] },
			{ say: "done" },
		]);
		expect(turns[0]?.asked.tools).toEqual(["read"]);
		expect(turns[0]?.asked.messages.map((m) => m.split(" ")[0])).toEqual(["user"]);
		expect(turns[1]?.asked.messages.map((m) => m.split(" ").slice(0, -1).join(" "))).toEqual([
			"user",
			"assistant",
			"result read",
		]);
	});

	it("fingerprints two runs in different folders with different ids alike, and a changed result apart", () => {
		const a = turnsOf(visit("/tmp/a", "t1"));
		const b = turnsOf(visit("/home/x/project", "call_99"));
		expect(b).toEqual(a);
		const c = turnsOf(visit("/tmp/a", "t1", "other notes"));
		expect(c[1]?.asked.messages[2]).not.toBe(a[1]?.asked.messages[2]);
		expect(c[1]?.asked.messages.slice(0, 2)).toEqual(a[1]?.asked.messages.slice(0, 2));
	});

	it("digests the tools declared, so a tool added is seen by name and schema", () => {
		const one = askedOf([system("/a"), user("x")]);
		const two = askedOf([system("/a", ["read", "bash"]), user("x")]);
		expect(two.tools).toEqual(["read", "bash"]);
		expect(two.schemas).not.toBe(one.schemas);
		expect(two.system).toBe(one.system);
	});

	it("masks a secret-shaped value in an answer and a tool result, and says where", () => {
		const found: { where: string; kind: string }[] = [];
		const messages = [
			system("/a"),
			user("go"),
			call("t", "k.txt"),
			result("t", "AKIAABCDEFGHIJKLMNOP"),
			say("the token is ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
		];
		const turns = turnsOf(messages, (f) => found.push(f));
		expect(turns[1]?.answer.say).toBe("the token is [redacted: github-token]");
		expect(found).toEqual([
			{ where: "turn 2, a result of `read`", kind: "aws-access-key" },
			{ where: "turn 2, the answer", kind: "github-token" },
		]);
	});

	it("keeps a provider error as `fail`, and splits a visit's attempts into their own conversations", () => {
		const failed = { role: "assistant", content: [], stopReason: "error", errorMessage: "503: overloaded" };
		const messages = [system("/a"), user("go"), failed, system("/a"), user("go"), say("ok")];
		const parts = conversations(messages);
		expect(parts.map((p) => p.length)).toEqual([3, 3]);
		const turns = parts.flatMap((p) => turnsOf(p));
		expect(turns.map((t) => t.answer)).toEqual([{ fail: "503: overloaded" }, { say: "ok" }]);
		// The retry was asked what the first attempt was: its own conversation, not the failed one's.
		expect(turns[1]?.asked).toEqual(turns[0]?.asked);
	});
});

describe("maskShapes", () => {
	it("names each kind and leaves prose alone", () => {
		const text = [
			"sk-ant-api03-abcdefghijklmnopqrstuv",
			"sk-proj-abcdefghijklmnopqrstuvwx",
			"AKIAIOSFODNN7EXAMPLE",
			"github_pat_11ABCDEFG0123456789abcdefghijklmnop",
			"xoxb-1234567890-abcdefghij",
			`AIza${"a".repeat(35)}`,
			"-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----",
		].join("\n");
		const masked = maskShapes(text);
		expect(masked.found).toEqual([
			"private-key",
			"anthropic-key",
			"openai-key",
			"aws-access-key",
			"github-token",
			"slack-token",
			"google-api-key",
		]);
		expect(masked.text).not.toMatch(/sk-|AKIA|github_pat|xoxb|AIza|MIIE/);
		const prose = "use sk-learn, the AKIA prefix, ghp_ tokens and a task-list";
		expect(maskShapes(prose)).toEqual({ text: prose, found: [] });
	});
});
