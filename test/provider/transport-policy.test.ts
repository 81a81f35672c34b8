/**
 * The arithmetic under transport retries: backoff with jitter and `retry-after`, the per-provider window
 * (AIMD), a flow's `transport:` key, and the live view's account of retries.
 */
import { describe, expect, it } from "vitest";
import { foldLive, startLive } from "../../src/extension/live/fold.ts";
import { showLive } from "../../src/extension/live/render.ts";
import { absorbedOf, formatAbsorbed } from "../../src/engine/index.ts";
import { LANGUAGE } from "../../src/kinds/language.ts";
import { readProviderScript, scriptResponder } from "../../src/provider/index.ts";
import { readFailureKind } from "../../src/runtime/failure.ts";
import { createGate } from "../../src/runtime/gate.ts";
import { DEFAULT_TRANSPORT, mergePolicy, parseRetryAfter, retryDelay } from "../../src/runtime/transport.ts";
import { addUsage, emptyUsage } from "../../src/runtime/usage.ts";
import { checkIn } from "../helpers/wire.ts";
import { tempProject } from "../helpers/project.ts";

describe("retry delays", () => {
	it("grows exponentially with jitter in the upper half, capped", () => {
		const p = { ...DEFAULT_TRANSPORT, baseMs: 1000, maxDelayMs: 10_000 };
		expect(retryDelay(p, 1, undefined, () => 0)).toBe(500);
		expect(retryDelay(p, 1, undefined, () => 1)).toBe(1000);
		expect(retryDelay(p, 3, undefined, () => 1)).toBe(4000);
		expect(retryDelay(p, 9, undefined, () => 1)).toBe(10_000);
		expect(retryDelay(p, 9, undefined, () => 0)).toBe(5000);
	});

	it("honours retry-after, with at most 250 ms of jitter on top", () => {
		const p = DEFAULT_TRANSPORT;
		expect(retryDelay(p, 1, 2000, () => 0)).toBe(2000);
		expect(retryDelay(p, 1, 2000, () => 1)).toBe(2200);
		expect(retryDelay(p, 5, 30_000, () => 1)).toBe(30_250);
	});

	it("reads retry-after-ms, seconds and HTTP dates", () => {
		const h = (o: Record<string, string>) => ({ get: (n: string) => o[n] ?? null });
		expect(parseRetryAfter(h({ "retry-after": "1" }))).toBe(1000);
		expect(parseRetryAfter(h({ "retry-after": "0.05" }))).toBe(50);
		expect(parseRetryAfter(h({ "retry-after-ms": "120", "retry-after": "9" }))).toBe(120);
		expect(parseRetryAfter(h({ "retry-after": new Date(10_000 + 3000).toUTCString() }), 10_000)).toBe(3000);
		expect(parseRetryAfter(h({}))).toBeUndefined();
		expect(parseRetryAfter(h({ "retry-after": "soon" }))).toBeUndefined();
	});

	it("merges run and flow settings over the defaults, later winning", () => {
		expect(mergePolicy({ attempts: 3 }, { totalWaitMs: 1000 }, undefined)).toMatchObject({
			attempts: 3,
			totalWaitMs: 1000,
			baseMs: 1000,
		});
		expect(mergePolicy({ attempts: 3 }, { attempts: 5 }).attempts).toBe(5);
	});
});

describe("the provider's window (AIMD)", () => {
	it("halves on a rate limit once per round and grows back by one per window of answers", async () => {
		const gate = createGate({ initial: 8 });
		const passes = await Promise.all(Array.from({ length: 8 }, () => gate.enter()));
		passes[0].leave("limited");
		expect(gate.limit()).toBe(4);
		// Requests sent before the cut do not cut again.
		passes[1].leave("limited");
		passes[2].leave("limited");
		expect(gate.limit()).toBe(4);
		expect(gate.cuts()).toBe(1);
		for (const p of passes.slice(3)) p.leave("ok");
		expect(gate.limit()).toBe(5);
	});

	it("makes the extra requests wait, and admits them as places free", async () => {
		const gate = createGate({ initial: 2 });
		const a = await gate.enter();
		await gate.enter();
		let third = false;
		const waiting = gate.enter().then((p) => {
			third = true;
			return p;
		});
		await Promise.resolve();
		expect(third).toBe(false);
		a.leave("ok");
		(await waiting).leave("ok");
		expect(third).toBe(true);
	});

	it("lets a waiting request go when its signal aborts", async () => {
		const gate = createGate({ initial: 1 });
		await gate.enter();
		const stop = new AbortController();
		const waiting = gate.enter(stop.signal);
		stop.abort(new Error("stopped"));
		await expect(waiting).rejects.toThrow("stopped");
	});
});

describe("a flow's transport: key", () => {
	it("builds attempts, wait, stall and adaptive", () => {
		const p = tempProject();
		try {
			const flow = checkIn(
				p,
				"t",
				`---\nname: t\ndescription: x\ninput: string\ntransport:\n  attempts: 3\n  wait: 2m\n  stall: 30s\n  adaptive: false\nnodes:\n  - id: a\n    agent: scout\n---\n\n## a\n\nGo.\n`,
			);
			expect(flow.transport?.attempts?.value).toBe(3);
			expect(flow.transport?.wait?.value).toBe(120_000);
			expect(flow.transport?.stall?.value).toBe(30_000);
			expect(flow.transport?.adaptive?.value).toBe(false);
			expect(() =>
				checkIn(
					p,
					"u",
					`---\nname: u\ndescription: x\ninput: string\ntransport:\n  tries: 3\nnodes:\n  - id: a\n    agent: scout\n---\n\n## a\n\nGo.\n`,
				),
			).toThrow(/tries/);
		} finally {
			p.cleanup();
		}
	});
});

describe("what the run says about retries and absorbed failures", () => {
	it("the live view counts retries in its header and on the turn's row", () => {
		const s = startLive("look", 0);
		foldLive(s, { type: "node_start", path: "look[1]/find", node: "find", kind: "agent", agent: "scout" }, 0);
		foldLive(
			s,
			{ type: "turn_start", path: "look[1]/find", agent: "scout", model: "wire/wire-1", subagent: "scout#1" },
			0,
		);
		foldLive(
			s,
			{
				type: "provider_retry",
				path: "look[1]/find",
				agent: "scout",
				subagent: "scout#1",
				model: "wire/wire-1",
				attempt: 1,
				reason: "429",
				message: "429: rate limited",
				delayMs: 1500,
				retryAfterMs: 1500,
			},
			10,
		);
		const text = showLive(s, [{ depth: 0, address: "look/find", id: "find", what: "scout" }], 20).join("\n");
		expect(text).toMatch(/1 provider retry/);
		expect(text).toMatch(/↻1 \(429, retry in 1\.5s\)/);
	});

	it("usage sums retries and their waits", () => {
		const u = addUsage({ ...emptyUsage(), retries: 2, retryWaitMs: 300 }, emptyUsage(), {
			...emptyUsage(),
			retries: 1,
			retryWaitMs: 50,
		});
		expect(u).toMatchObject({ retries: 3, retryWaitMs: 350 });
		expect(addUsage(emptyUsage()).retries).toBeUndefined();
	});

	it("absorbed failures are counted by kind; stops and the run's own failure are not", () => {
		const v = (path: string, kind: string, ok: boolean, error?: string) => ({
			path,
			node: "n",
			kind,
			ok,
			usage: emptyUsage(),
			...(error ? { error, errorKind: readFailureKind(error.slice(0, error.indexOf(":"))) } : {}),
		});
		const a = absorbedOf(
			LANGUAGE.leaves,
			[
				v("m[1]/f", "agent", false, "provider: 503 (gave up after 8 attempts)"),
				v("m[2]/f", "agent", false, "schema: no submit"),
				v("m[3]/f", "agent", false, "cancelled: cut"),
				v("m", "map", true),
				v("z", "agent", false, "provider: boom"),
			],
			"z",
		);
		expect(a).toMatchObject({ count: 2, byKind: { provider: 1, schema: 1 } });
		expect(a && formatAbsorbed(a)).toBe("2 failed visits absorbed by on-fail: continue (provider 1, schema 1)");
		expect(absorbedOf(LANGUAGE.leaves, [v("a", "agent", true)])).toBeUndefined();
	});
});

describe("the provider server's YAML script", () => {
	it("plays faults in order per rule, then replies by turn", () => {
		const read = readProviderScript(
			`rules:\n  - when: "item-2"\n    faults: [429, cut]\n    replies: [{ text: first }, { text: second }]\ndefault: { text: other }\n`,
		);
		if (!read.ok) throw new Error(read.error);
		const req = (lastUser: string, turn = 0) => ({ lastUser, turn, system: "" }) as never;
		const script = read.value.script;
		if (!script) throw new Error("no script");
		expect(script(req("look at item-2"))).toEqual({ fault: "429" });
		expect(script(req("look at item-2"))).toEqual({ fault: "cut" });
		expect(script(req("look at item-2"))).toEqual({ text: "first" });
		expect(script(req("look at item-2", 3))).toEqual({ text: "second" });
		expect(script(req("item-9"))).toEqual({ text: "other" });
		expect(scriptResponder({})(req("x"))).toEqual({ text: "ok" });
		expect(readProviderScript("rules:\n  - faults: [418]\n")).toMatchObject({
			ok: false,
			error: expect.stringMatching(/unknown fault `418`/),
		});
	});
});
