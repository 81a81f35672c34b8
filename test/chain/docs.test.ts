// docs/chain.md keeps up with the code: every chain fault code and every flag is documented.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CHAIN_FLAGS } from "../../src/chain/index.ts";
import { FAULT_CATALOGUE, FAULT_CODES } from "../../src/faults/index.ts";

const DOC = readFileSync(new URL("../../docs/chain.md", import.meta.url), "utf8");

describe("docs/chain.md", () => {
	const chainCodes = FAULT_CODES.filter((code) => FAULT_CATALOGUE[code].stage === "chain");

	it("has chain fault codes to document", () => {
		expect(chainCodes.length).toBeGreaterThanOrEqual(6);
	});

	it.each(chainCodes)("documents %s with an example", (code) => {
		expect(DOC).toMatch(new RegExp(`\\| \`${code}\` \\| \``));
	});

	it.each(Object.keys(CHAIN_FLAGS))("documents --%s in a flag table", (flag) => {
		expect(DOC).toContain(`| \`--${flag}\` |`);
	});
});
