/**
 * One failure type with a closed set of kinds: the table says how each kind is treated (the rules the
 * evaluator, the resume and `on-fail: continue` used to hard-code), the checker's `x.error.kind` enum is
 * the same set, and a kind outside it does not compile. The report's `kindWords` is the exhaustive
 * `switch` that makes a new kind a compile error until it is worded (`tsc` is that test; here its proof).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ERROR_TYPE } from "../../src/language/check/node-types.ts";
import { kindWords } from "../../src/report/kind-words.ts";
import {
	assertNever,
	FAILURE_KIND_TABLE,
	FAILURE_KINDS,
	type Failure,
	type FailureKind,
	readFailure,
	readFailureKind,
} from "../../src/runtime/failure.ts";

const kindsWhere = (flag: "retry" | "stop" | "final" | "freshSubagent") =>
	FAILURE_KINDS.filter((k) => FAILURE_KIND_TABLE[k][flag]);

/**
 * Every kind, in the order docs list them, written out by hand: journals of older runs hold these words,
 * so a kind renamed or dropped, or one added without its row here, is a change this test must be told of.
 */
const EVERY_KIND = [
	"provider",
	"timeout",
	"aborted",
	"stopped",
	"cancelled",
	"schema",
	"condition",
	"child",
	"nobody",
	"unavailable",
	"empty-message",
	"unconverged",
	"too-many",
	"budget",
	"idle",
	"blocked",
	"unfinished",
	"refused",
	"model",
	"unscripted",
	"unknown",
];

describe("the failure kinds", () => {
	it("are the enum a flow's `x.error.kind` is checked against", () => {
		expect(FAILURE_KINDS).toEqual(EVERY_KIND);
		const kind = ERROR_TYPE.fields.find((f) => f.name === "kind");
		expect(kind?.type).toEqual({ kind: "enum", values: EVERY_KIND });
	});

	it("keep the rules the runner had hard-coded: what is retried, what is a stop, what the flow decided", () => {
		expect(kindsWhere("retry")).toEqual(["provider", "timeout", "schema", "idle"]);
		expect(kindsWhere("freshSubagent")).toEqual(["timeout", "idle"]);
		expect(kindsWhere("stop")).toEqual(["stopped", "cancelled", "budget", "blocked"]);
		expect(kindsWhere("final")).toEqual(["condition", "empty-message", "unconverged", "too-many"]);
	});

	it("are each worded for the report", () => {
		const words = EVERY_KIND.map((k) => kindWords(k as FailureKind));
		for (const w of words) expect(w).toMatch(/^[A-Z].*\.$/);
	});

	it("do not admit a kind outside the set, and a switch that leaves one out does not compile", () => {
		// @ts-expect-error a kind outside the closed set
		const foreign: Failure = { kind: "gone-away", message: "" };
		expect(readFailureKind(foreign.kind)).toBe("unknown");
		const partial = (k: FailureKind): string => {
			switch (k) {
				case "provider":
					return "p";
				default:
					// @ts-expect-error every other kind is still possible here
					return assertNever(k);
			}
		};
		expect(partial("provider")).toBe("p");
		expect(() => partial("timeout")).toThrow(/unexpected value: timeout/);
	});
});

describe("reading a failure a journal wrote", () => {
	it("reads every kind as it is, and anything else as `unknown`", () => {
		for (const k of EVERY_KIND) expect(readFailureKind(k)).toBe(k);
		for (const odd of ["gone-away", "", "PROVIDER", "__proto__", "toString", 7, null, undefined])
			expect(readFailureKind(odd)).toBe("unknown");
	});

	it("reads a record's error, a bare string included, and nothing as nothing", () => {
		expect(readFailure({ kind: "schema", message: "no submit" })).toEqual({ kind: "schema", message: "no submit" });
		expect(readFailure({ kind: "later-kind", message: "x" })).toEqual({ kind: "unknown", message: "x" });
		expect(readFailure("boom")).toEqual({ kind: "unknown", message: "boom" });
		expect(readFailure(undefined)).toBeUndefined();
	});
});

describe("the flow guide's table of kinds", () => {
	it("lists every kind, with the table's retry, stop and decision columns", () => {
		const guide = readFileSync(join(import.meta.dirname, "../../docs/flows.md"), "utf8");
		const section = guide.slice(guide.indexOf("`x.error.kind` is one of a closed set"));
		const table = section.slice(section.indexOf("\n| kind |"), section.indexOf("\n\n", section.indexOf("\n| kind |")));
		const rows = table.split("\n").filter((l) => /^\| `[a-z-]+`/.test(l));
		const listed = rows.flatMap((r) => [...(r.split("|")[1] ?? "").matchAll(/`([a-z-]+)`/g)].map((m) => m[1]));
		expect([...listed].sort()).toEqual([...EVERY_KIND].sort());
		for (const r of rows) {
			const [, names = "", , retry = "", stop = "", final = ""] = r.split("|");
			for (const [, k] of names.matchAll(/`([a-z-]+)`/g)) {
				const spec = FAILURE_KIND_TABLE[k as FailureKind];
				expect(retry.includes("yes"), `${k} retry`).toBe(spec.retry);
				expect(stop.includes("yes"), `${k} stop`).toBe(spec.stop);
				expect(final.includes("yes"), `${k} final`).toBe(spec.final);
			}
		}
	});
});
