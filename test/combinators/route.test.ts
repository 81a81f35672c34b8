import { afterEach, describe, expect, it } from "vitest";
import { parseChoice, route } from "../../src/combinators/index.ts";
import { agent, cleanupReal, real } from "./helpers.ts";

afterEach(cleanupReal);
const router = agent("router");
const coder = agent("coder");
const scout = agent("scout");

describe("route", () => {
	it("gives the input to the destination the router named, and reads as that destination", async () => {
		const r = await real('turns:\n  router:\n    - say: "**coder**"\n  coder:\n    - say: "coding: {{task}}"\n');
		const handled = await route({ ...r.options, router, destinations: [coder, scout], input: "fix the bug" });
		expect(handled.destination?.name).toBe("coder");
		expect(handled).toMatchObject({ ok: true, agent: "coder", output: "coding: fix the bug", choice: "**coder**" });
		expect(handled.steps.map((s) => s.agent)).toEqual(["router", "coder"]);
	});

	it("picks nobody for an unknown name, never a neighbour, and spawns no destination", async () => {
		const r = await real("turns:\n  router:\n    - say: codr\n");
		const handled = await route({ ...r.options, router, destinations: [coder, scout], input: "x" });
		expect(handled.destination).toBeUndefined();
		expect(handled).toMatchObject({ ok: true, agent: "router", output: "codr" });
		expect(r.events.filter((e) => e.type === "spawn")).toHaveLength(1);
	});

	it("picks nobody for an ambiguous answer rather than the first match", async () => {
		const r = await real("turns:\n  router:\n    - say: either coder or scout would do\n");
		const handled = await route({ ...r.options, router, destinations: [coder, scout], input: "x" });
		expect(handled.destination).toBeUndefined();
		expect(handled.steps).toHaveLength(1);
	});

	it("reads a router that failed as failed", async () => {
		const r = await real("turns:\n  router:\n    - fail: down\n");
		const handled = await route({ ...r.options, router, destinations: [coder], input: "x" });
		expect(handled).toMatchObject({ ok: false, error: "down" });
		expect(handled.destination).toBeUndefined();
	});
});

describe("parseChoice: lenient in shape, strict in content", () => {
	const names = ["coder", "coder-lite", "scout"];
	it.each([
		["coder", "coder"],
		["`Scout`.", "scout"],
		["I would send this to the scout.", "scout"],
		["coder-lite", "coder-lite"],
		["codr", undefined],
		["reviewer", undefined],
		["coder, or maybe scout", undefined],
		["coder or coder-lite", undefined],
		["", undefined],
	])("%j picks %j", (answer, expected) => {
		expect(parseChoice(answer, names)).toBe(expected);
	});
});
