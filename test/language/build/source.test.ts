// A checked flow keeps the file it was read from without the YAML tree its nodes were built from
// (`Flow.source`, src/language/build/build.ts): the flow lives as long as its run, the tree only as long
// as the build.
import { describe, expect, it } from "vitest";
import { judge } from "../../helpers/flows.ts";

const TEXT =
	"---\nname: t\ndescription: one map\ninput: string\nnodes:\n  - id: each\n    map: [a, b, c]\n    do:\n      - id: act\n        agent: scout\n---\n\n## act\n\nAct.\n";

describe("a checked flow's source", () => {
	it("holds the file's text and sections but not its YAML tree", () => {
		const checked = judge(TEXT);
		if (!checked.value) throw new Error(JSON.stringify(checked.faults));
		const { source } = checked.value;
		expect("yaml" in source).toBe(false);
		expect(source.text).toBe(TEXT);
		expect(source.sections.map((s) => s.id)).toEqual(["act"]);
		expect(source.yamlBase).toBe(4);
	});
});
