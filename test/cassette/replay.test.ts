/**
 * The replay's judgement without pi: a request compared with its recording names the visit, the turn and
 * the part; strict fails the request, warn only reports; a request the cassette does not hold fails in every
 * mode; lockdown's network is off and back on after. The file reads back as written, and bad files are
 * refused by key.
 */
import { connect, createServer } from "node:net";
import { describe, expect, it } from "vitest";
import {
	type Cassette,
	cassettePlayer,
	readCassette,
	turnsOf,
	withoutNetwork,
	writeCassette,
} from "../../src/cassette/index.ts";
import { agentIdentity, type VisitIdentity } from "../../src/identity/index.ts";

const sys = { role: "system", content: "", sections: { cwd: "<cwd>\n/r\n</cwd>" }, toolsAdded: [{ name: "read" }] };
const user = (text: string) => ({ role: "user", content: [{ type: "text", text }] });
const call = { role: "assistant", content: [{ type: "toolCall", id: "1", name: "read", arguments: { path: "a" } }] };
const result = (text: string) => ({ role: "toolResult", toolName: "read", content: [{ type: "text", text }] });
const say = { role: "assistant", content: [{ type: "text", text: "ok {{result}}" }], stopReason: "stop" };

function identity(section: string, model = "wire/wire-1"): VisitIdentity {
	return agentIdentity({
		agent: { name: "reader", file: "/x/reader.md", prompt: "p", tools: ["read"] },
		answerTools: [],
		nodeSkills: [],
		model,
		thinking: "default",
		section,
		reads: [],
		settings: {},
		tree: "none",
		task: section,
	});
}

function cassette(): Cassette {
	const id = identity("Read a.");
	return {
		flow: "f",
		run: "r1",
		backend: "folder",
		model: "wire/wire-1",
		visits: new Map([
			["look", { node: "look", identity: id, turns: turnsOf([sys, user("Read a."), call, result("A"), say]) }],
		]),
		redacted: [],
	};
}

describe("a cassette's replay", () => {
	it("passes a request asked as recorded, and plays the answer as written (no template filled)", () => {
		const p = cassettePlayer(cassette(), "strict", "f.c.yaml");
		p.identity("look", identity("Read a."));
		expect(p.script.check?.({ visit: "look", index: 0, messages: [sys, user("Read a.")] })).toBeUndefined();
		expect(
			p.script.check?.({ visit: "look", index: 1, messages: [sys, user("Read a."), call, result("A")] }),
		).toBeUndefined();
		expect(p.differences).toEqual([]);
		const step = p.script.turns.get("look")?.[1];
		expect(step).toMatchObject({ say: "ok {{result}}", literal: true });
	});

	it("names a changed section, a changed tool result, a changed model; strict fails, warn reports", () => {
		const strict = cassettePlayer(cassette(), "strict", "f.c.yaml");
		strict.identity("look", identity("Read b."));
		const refused = strict.script.check?.({ visit: "look", index: 0, messages: [sys, user("Read b.")] });
		expect(refused).toBe("strict replay of f.c.yaml: visit look, turn 1: `## look` changed");
		const warn = cassettePlayer(cassette(), "warn", "f.c.yaml");
		warn.identity("look", identity("Read a.", "wire/wire-2"));
		expect(warn.script.check?.({ visit: "look", index: 0, messages: [sys, user("Read a.")] })).toBeUndefined();
		expect(
			warn.script.check?.({ visit: "look", index: 1, messages: [sys, user("Read a."), call, result("B")] }),
		).toBeUndefined();
		expect(warn.differences.map((d) => `${d.visit} ${d.turn}: ${d.part}`)).toEqual([
			"look 1: model changed (wire/wire-1 → wire/wire-2)",
			"look 2: the result of `read` (call 1 of this visit) changed",
		]);
	});

	it("names tools added and a conversation of another length", () => {
		const p = cassettePlayer(cassette(), "warn", "f.c.yaml");
		const more = { ...sys, toolsAdded: [{ name: "read" }, { name: "bash" }] };
		p.script.check?.({ visit: "look", index: 1, messages: [more, user("Read a."), call] });
		expect(p.differences.map((d) => d.part)).toEqual([
			"the tools declared changed (+bash)",
			"it was sent 2 message(s); the recording 3",
		]);
	});

	it("compares a visit that continued a shared conversation (`memory:`) from where it began", () => {
		const earlier = [sys, user("Read a."), call, result("A"), say];
		const c = cassette();
		c.visits.set("second", { node: "second", turns: turnsOf([user("Go on."), say]) });
		const p = cassettePlayer(c, "strict", "f.c.yaml");
		expect(p.script.check?.({ visit: "second", index: 0, messages: [...earlier, user("Go on.")] })).toBeUndefined();
		expect(p.script.check?.({ visit: "second", index: 0, messages: [...earlier, user("Go.")] })).toBe(
			"strict replay of f.c.yaml: visit second, turn 1: the task changed",
		);
	});

	it("fails at once, in every mode, a request the cassette does not hold", () => {
		for (const mode of ["warn", "strict", "lockdown"] as const) {
			const p = cassettePlayer(cassette(), mode, "f.c.yaml");
			expect(p.script.check?.({ visit: "answer", index: 0, messages: [] })).toBe(
				"visit answer is not in the cassette f.c.yaml (it holds look); record the run again",
			);
			expect(p.script.check?.({ visit: "look", index: 2, messages: [] })).toBe(
				"visit look, turn 3 is not in the cassette f.c.yaml: it recorded 2 turn(s) of this visit",
			);
		}
	});
});

describe("the cassette file", () => {
	it("reads back what it wrote, and writes the same bytes again", () => {
		const text = writeCassette(cassette(), " head");
		const read = readCassette(text, "c.yaml");
		expect(read.problems).toEqual([]);
		expect(writeCassette(read.value as Cassette, " head")).toBe(text);
		expect(text.startsWith("# head\n")).toBe(true);
	});

	it("refuses a file of another version, without visits, or with a malformed turn, naming the key", () => {
		expect(readCassette("- a\n", "c.yaml").problems).toEqual(["c.yaml: a cassette is a mapping"]);
		expect(readCassette("cassette: 2\nflow: f\nrun: r\nvisits: {}\n", "c.yaml").problems).toEqual([
			"c.yaml: `cassette` is 2; this pi-flows reads cassettes of version 1",
		]);
		expect(readCassette("cassette: 1\nflow: f\nrun: r\n", "c.yaml").problems).toEqual([
			"c.yaml: `visits` maps visit paths to their turns",
		]);
		expect(
			readCassette("cassette: 1\nflow: f\nrun: r\nvisits: { look: { turns: [{ answer: {} }] } }\n", "c.yaml").problems,
		).toEqual(["c.yaml: visit `look`, turn 1: a turn is `{ asked: { system, tools, schemas, messages }, answer }`"]);
		expect(readCassette("cassette: 1\nflow: [\n", "c.yaml").problems[0]).toMatch(/^c\.yaml: /);
	});
});

describe("lockdown's network", () => {
	it("refuses fetch and TCP while it lasts, and gives both back after", async () => {
		const server = createServer((s) => s.end("hi"));
		await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
		const port = (server.address() as { port: number }).port;
		const tcp = () =>
			new Promise<string>((resolve) => {
				const socket = connect({ host: "127.0.0.1", port });
				socket.on("error", (e) => resolve(e.message));
				socket.on("data", () => resolve("answered"));
			});
		try {
			await withoutNetwork(async () => {
				await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow(/lockdown: no network/);
				expect(await tcp()).toMatch(/lockdown: no network during a cassette's replay \(connect 127\.0\.0\.1:\d+\)/);
			});
			expect(await tcp()).toBe("answered");
		} finally {
			server.close();
		}
	});
});
