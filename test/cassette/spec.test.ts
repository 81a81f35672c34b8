/** A flow test names a cassette instead of a script: read with the key checked, never both. */
import { describe, expect, it } from "vitest";
import { readFlowTest } from "../../src/flowtest/index.ts";

describe("a flow test's `cassette`", () => {
	it("is read as a path beside the test", () => {
		const read = readFlowTest("flow: two\ncassette: two.r.cassette.yaml\ninput: q\n", "t.yaml");
		expect(read.problems).toEqual([]);
		expect(read.value?.cassette).toBe("two.r.cassette.yaml");
	});

	it("refuses a cassette beside a script, and one that is not a path", () => {
		expect(readFlowTest("cassette: c.yaml\nscript: { turns: {} }\ninput: q\n", "t.yaml").problems).toEqual([
			"t.yaml: a flow test has `script` or `cassette`, not both",
		]);
		expect(readFlowTest("cassette: [a]\ninput: q\n", "t.yaml").problems).toEqual([
			"t.yaml: `cassette` is the path of a cassette file, from the test's folder",
		]);
	});
});
