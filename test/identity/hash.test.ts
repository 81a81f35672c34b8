/**
 * The hashing under every identity: journals and cassettes keep these digests across versions, so the
 * text a value is written as and its digest are pinned against expectations written out by hand (and
 * SHA-256 as `createHash` computes it), and a value marked stable writes the same text as one that is not.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonical, digest, digestOf, stable } from "../../src/identity/index.ts";

const sha = (text: string) => createHash("sha256").update(text, "utf8").digest("hex").slice(0, 32);

describe("canonical JSON and its digest", () => {
	it("writes keys sorted at every depth, drops undefined and functions, and nulls holes in arrays", () => {
		const value = { b: [1, undefined, "x", () => 0], a: { d: null, c: true, e: undefined }, f: () => 1 };
		expect(canonical(value)).toBe('{"a":{"c":true,"d":null},"b":[1,null,"x",null]}');
		expect(canonical([])).toBe("[]");
		expect(canonical({})).toBe("{}");
		expect(canonical("é\n")).toBe('"é\\n"');
		expect(canonical(undefined)).toBe("null");
	});

	it("digests as SHA-256 of the UTF-8 text, cut to 32 hex characters; a string as itself", () => {
		expect(digest("")).toBe("e3b0c44298fc1c149afbf4c8996fb924");
		expect(digest("héron ✓")).toBe(sha("héron ✓"));
		expect(digestOf("a prompt")).toBe(sha("a prompt"));
		expect(digestOf({ y: 2, x: [1] })).toBe(sha('{"x":[1],"y":2}'));
	});

	it("writes a stable value as it writes the same value unmarked, inside others too", () => {
		const schema = { type: "object", properties: { status: { enum: ["done", "partial"] } }, required: ["status"] };
		const copy = structuredClone(schema);
		const before = canonical({ tools: [{ name: "finish", parameters: copy }] });
		expect(stable(schema)).toBe(schema);
		expect(canonical({ tools: [{ name: "finish", parameters: schema }] })).toBe(before);
		expect(digestOf(schema)).toBe(digestOf(copy));
		expect(digestOf(stable([schema, "x"]))).toBe(sha(`[${canonical(copy)},"x"]`));
	});
});
