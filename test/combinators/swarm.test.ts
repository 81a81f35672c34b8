import { afterEach, describe, expect, it } from "vitest";
import { createClaims, fanOut, swarm } from "../../src/combinators/index.ts";
import { agent, cleanupReal, fakeOptions, fakeSpawn, real } from "./helpers.ts";

afterEach(cleanupReal);
const member = agent("member");

describe("swarm's board", () => {
	it("hands each member what the others posted since its last turn", async () => {
		const r = await real(
			'turns:\n  "member[0]#1":\n    - say: A-NOTE\n  "member[1]#1":\n    - say: B-NOTE\n  member:\n    - say: "{{task}}"\n',
		);
		const done = await swarm({
			...r.options,
			members: [{ agent: member, count: 2 }],
			goal: "map the repo",
			board: true,
			rounds: 2,
		});
		const [first, second] = done.members;
		expect(first.answer.output).toContain("## New on the board\n\n### member#2 (round 1)\n\nB-NOTE");
		expect(first.answer.output).not.toContain("A-NOTE");
		expect(second.answer.output).toContain("### member#1 (round 1)\n\nA-NOTE");
		expect(done.posts.map((p) => [p.round, p.member])).toEqual([
			[1, "member#1"],
			[1, "member#2"],
			[2, "member#1"],
			[2, "member#2"],
		]);
		expect(done.posts[0].text).toBe("A-NOTE");
		expect(done).toMatchObject({ ok: true, converged: false, rounds: 2 });
		expect(r.host.open()).toBe(0);
	});

	it("keeps each member's subagent across rounds: lifetime defaults to workflow here", async () => {
		const r = await real("turns:\n  member:\n    - say: ok\n");
		await swarm({ ...r.options, members: [{ agent: member, count: 2 }], goal: "g", rounds: 3 });
		const ids = r.events.flatMap((e) => (e.type === "turn_start" ? [e.subagent] : []));
		expect(ids).toHaveLength(6);
		expect(new Set(ids).size).toBe(2);
		expect(
			r.events
				.filter((e) => e.type === "turn_start")
				.map((e) => e.label)
				.slice(0, 2),
		).toEqual(["member[0]#1", "member[1]#1"]);
	});
});

describe("swarm's claims", () => {
	it("settles claims in member order and tells each member what it holds", async () => {
		const r = await real(
			'turns:\n  "member[0]#1":\n    - say: "CLAIM: a.ts"\n  "member[1]#1":\n    - say: "CLAIM: a.ts\\nCLAIM: b.ts\\nCLAIM: z.ts"\n  member:\n    - say: "{{task}}"\n',
		);
		const claims = createClaims({ keys: ["a.ts", "b.ts", "c.ts"] });
		const done = await swarm({
			...r.options,
			members: [{ agent: member, count: 2 }],
			goal: "describe files",
			claims,
			rounds: 2,
		});
		const second = done.members[1].answer.output;
		expect(second).toContain("You hold: b.ts.");
		expect(second).toContain("Free: c.ts.");
		expect(second).toContain("- a.ts is held by member#1.");
		expect(second).toContain("- Claimed b.ts.");
		expect(second).toContain("- z.ts is not a key of this swarm.");
		expect(done.claims?.held).toEqual([
			{ key: "a.ts", holder: "member#1" },
			{ key: "b.ts", holder: "member#2" },
		]);
		// Whatever a member still held is released when it goes.
		expect(done.claims?.released).toEqual([
			{ key: "a.ts", holder: "member#1", cause: "closed" },
			{ key: "b.ts", holder: "member#2", cause: "closed" },
		]);
		expect(claims.free()).toEqual(["a.ts", "b.ts", "c.ts"]);
	});

	it("drops a member out after two failed turns in a row, closes it and releases its claims", async () => {
		const r = await real(
			'turns:\n  "member[1]#1":\n    - say: "CLAIM: b.ts"\n  "member[1]#2":\n    - fail: flaky\n  "member[1]#3":\n    - fail: gone\n  member:\n    - say: working\n',
		);
		const claims = createClaims({ keys: ["a.ts", "b.ts"] });
		const done = await swarm({ ...r.options, members: [{ agent: member, count: 2 }], goal: "g", claims, rounds: 4 });
		const dropped = done.members[1];
		expect(dropped).toMatchObject({ id: "member#2", droppedOut: true });
		expect(dropped.answer).toMatchObject({ ok: false, error: "gone" });
		expect(done.claims?.released[0]).toEqual({ key: "b.ts", holder: "member#2", cause: "closed" });
		const turns = r.events.flatMap((e) => (e.type === "turn_start" ? [e.label] : []));
		expect(turns.filter((l) => l.startsWith("member[1]"))).toEqual(["member[1]#1", "member[1]#2", "member[1]#3"]);
		expect(turns.filter((l) => l.startsWith("member[0]"))).toHaveLength(4);
		const closedAt = r.events.findIndex((e) => e.type === "close" && e.subagent === "member#2");
		const lastTurn = r.events.findIndex((e) => e.type === "turn_start" && e.label === "member[0]#4");
		expect(closedAt).toBeLessThan(lastTurn);
		expect(done).toMatchObject({ ok: false, error: "gone" });
	});

	it("takes, releases and reports who holds what", () => {
		const claims = createClaims({ keys: ["a", "b", "a"] });
		expect(claims.keys).toEqual(["a", "b"]);
		expect(claims.take("a", "m1")).toBe(true);
		expect(claims.take("a", "m1")).toBe(true);
		expect(claims.take("a", "m2")).toBe(false);
		expect(claims.take("nope", "m2")).toBe(false);
		expect(claims.release("a", "m2")).toBe(false);
		expect(claims.release("a", "m1")).toBe(true);
		claims.take("b", "m2");
		expect([...claims.held()]).toEqual([["b", "m2"]]);
		expect(claims.releaseAll("m2")).toEqual(["b"]);
		expect(claims.releases().map((x) => x.cause)).toEqual(["released", "closed"]);
	});
});

describe("swarm's rounds", () => {
	it("refuses lifetime task with more than one round outright, spawning nothing", async () => {
		const fake = fakeSpawn();
		const done = await swarm({
			...fakeOptions(fake.spawn, { lifetime: "task" }),
			members: [{ agent: member, count: 2 }],
			goal: "g",
			rounds: 2,
		});
		expect(done).toMatchObject({ ok: false, errorKind: "schema", rounds: 0 });
		expect(done.error).toContain('lifetime "task" with 2 rounds is refused');
		expect(fake.requests).toHaveLength(0);
	});

	it("reads until as converged, apart from ok; reaching the cap is not success", async () => {
		const fake = fakeSpawn(({ subagent }) => ({ output: `${subagent} DONE` }));
		const stopped = await swarm({
			...fakeOptions(fake.spawn),
			members: [{ agent: member, count: 2 }],
			goal: "g",
			rounds: 5,
			until: (s) => s.answers.every((a) => a.output.includes("DONE")),
		});
		expect(stopped).toMatchObject({ ok: true, converged: true, rounds: 1 });
		const capped = await swarm({
			...fakeOptions(fake.spawn),
			members: [{ agent: member }],
			goal: "g",
			rounds: 2,
			until: () => false,
		});
		expect(capped).toMatchObject({ ok: true, converged: false, rounds: 2 });
		expect(fake.open()).toBe(0);
	});

	it("with no board, no claims and one round, is a fan-out", async () => {
		// Two hosts: a visit's script cursor lives as long as its host, and both workflows label their turns alike.
		const r = await real('turns:\n  member:\n    - say: "did: {{task}}"\n');
		const r2 = await real('turns:\n  member:\n    - say: "did: {{task}}"\n');
		const asSwarm = await swarm({
			...r.options,
			members: [{ agent: member, count: 3 }],
			goal: "describe src",
			rounds: 1,
		});
		const asFanOut = await fanOut({
			...r2.options,
			agent: member,
			tasks: ["describe src", "describe src", "describe src"],
			concurrency: 3,
		});
		expect(asSwarm.output).toBe(asFanOut.output);
		expect(asSwarm.members.map((m) => m.answer.output)).toEqual([
			"did: describe src",
			"did: describe src",
			"did: describe src",
		]);
		expect(asSwarm.steps).toHaveLength(3);
		expect(asSwarm.posts).toEqual([]);
	});

	it("closes every member when the signal aborts mid-round", async () => {
		const fake = fakeSpawn(() => ({ delay: 5_000 }));
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 30);
		const done = await swarm({
			...fakeOptions(fake.spawn, { signal: controller.signal }),
			members: [{ agent: member, count: 3 }],
			goal: "g",
			rounds: 3,
		});
		expect(done).toMatchObject({ ok: false, errorKind: "aborted", rounds: 1 });
		expect(fake.subs).toHaveLength(3);
		expect(fake.open()).toBe(0);
	});
});
