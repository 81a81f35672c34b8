/**
 * A visit's identity part by part, and a difference named in a person's words: the words are part of what
 * users see (a miss says what changed), so they are pinned here once, for every part.
 */
import { describe, expect, it } from "vitest";
import {
	type AgentFacts,
	agentIdentity,
	askIdentity,
	changedParts,
	checkIdentity,
	digestOf,
	explainChange,
	NO_TREE,
} from "../../src/identity/index.ts";

const facts = (over: Partial<AgentFacts> = {}): AgentFacts => ({
	agent: { name: "scout", file: "/p/.pi/agents/scout.md", prompt: "You are scout.", tools: ["read", "grep"] },
	answerTools: [],
	nodeSkills: [],
	model: "scripted/scripted",
	thinking: "default",
	section: "Read the notes.",
	reads: [
		{ address: "input", text: "what do herons do?" },
		{ address: "look", text: "they stand still" },
	],
	settings: { handoff: "off" },
	tree: "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
	task: "Read the notes.\n\n## input\n\nwhat do herons do?\n",
	...over,
});

const words = (over: Partial<AgentFacts>, node = "answer", treeFiles?: string[]) => {
	const was = agentIdentity(facts());
	const now = agentIdentity(facts(over));
	return explainChange(changedParts(was, now), { node, was, now, ...(treeFiles ? { treeFiles } : {}) });
};

describe("a visit's identity", () => {
	it("hashes each part on its own, whatever order its values were built in", () => {
		expect(digestOf({ b: 1, a: [2, { d: 3, c: 4 }] })).toBe(digestOf({ a: [2, { c: 4, d: 3 }], b: 1 }));
		const a = agentIdentity(facts());
		const b = agentIdentity(facts());
		expect(a).toEqual(b);
		expect(Object.keys(a.parts)).toEqual(
			expect.arrayContaining(["section", "read:input", "read:look", "prompt", "tools", "skills", "model", "tree"]),
		);
		expect(a.task).toBe(digestOf(facts().task));
	});

	it("keeps the key when policy changes and only then: retries and timeouts are no part", () => {
		// Policy never reaches the facts; a changed task does, through the part it came from.
		expect(changedParts(agentIdentity(facts()), agentIdentity(facts({ task: "other" })))).toEqual([]);
		expect(agentIdentity(facts()).key).not.toBe(agentIdentity(facts({ section: "Read it twice." })).key);
	});

	it("names each part that changed in words", () => {
		expect(words({ section: "Read the notes twice." })).toBe("`## answer` changed");
		expect(words({ reads: [{ address: "input", text: "other" }, facts().reads[1]] })).toBe("input changed");
		expect(words({ reads: [facts().reads[0], { address: "look", text: "they fly" }] })).toBe("`look`'s output changed");
		expect(words({ agent: { ...facts().agent, tools: ["read"] } })).toBe("`scout.md` tools changed");
		expect(words({ agent: { ...facts().agent, tools: ["read"] }, nodeTools: ["read"] })).toBe(
			"the node's tools changed",
		);
		expect(words({ agent: { ...facts().agent, prompt: "You are a scout." } })).toBe("`scout.md` prompt changed");
		expect(words({ model: "anthropic/claude-sonnet-4-5" })).toBe(
			"model changed (scripted/scripted → anthropic/claude-sonnet-4-5)",
		);
		expect(words({ thinking: "high" })).toBe("thinking changed (default → high)");
		expect(words({ tree: "aaaa" }, "answer", ["a.ts", "b.ts", "c.ts", "d.ts"])).toBe(
			"4 files of the tree changed: a.ts, b.ts, c.ts, and 1 more",
		);
		expect(words({ tree: "aaaa" })).toBe("the tree changed");
		expect(words({ tree: NO_TREE })).toBe("it no longer sees a repository tree");
		expect(words({ reads: [facts().reads[0]] })).toBe("it no longer reads `look`");
	});

	it("puts what a person edited before what flowed in, each said once", () => {
		expect(
			words({
				section: "Twice.",
				model: "x/y",
				reads: [{ address: "input", text: "other" }, facts().reads[1]],
			}),
		).toBe("`## answer` changed; input changed; model changed (scripted/scripted → x/y)");
	});

	it("keys a check on its script and tree, and a question on the card and its reads", () => {
		const c = checkIdentity({ script: "t.sh", content: "exit 0", tree: "t1" });
		const d = checkIdentity({ script: "t.sh", content: "exit 1", tree: "t1" });
		expect(explainChange(changedParts(c, d), { node: "test", was: c, now: d })).toBe("the check script changed");
		const q = askIdentity({ question: { question: "Go?", confirm: true }, reads: [] });
		const r = askIdentity({ question: { question: "Go on?", confirm: true }, reads: [] });
		expect(explainChange(changedParts(q, r), { node: "go", was: q, now: r })).toBe("the question changed");
		expect(askIdentity({ question: { question: "Go?", confirm: true }, reads: [] }).key).toBe(q.key);
	});
});
