/**
 * docs/flows.md teaches by example, so its examples must be right: every whole flow in it checks, and every
 * node and frontmatter snippet validates against the frontmatter's schema.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { PACKAGE_ROOT } from "../../src/agents/index.ts";
import { LANGUAGE } from "../../src/kinds/language.ts";
import { frontmatterSchema } from "../../src/language/schema.ts";
import { judge } from "./helpers.ts";
import { validate } from "./json-schema-lite.ts";

const page = readFileSync(join(PACKAGE_ROOT, "docs", "flows.md"), "utf8");
const blocks = (lang: string) =>
	[...page.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, "g"))].map((m) => m[1]);
const schema = frontmatterSchema(LANGUAGE);

describe("docs/flows.md", () => {
	const flows = blocks("markdown").filter((b) => b.startsWith("---\n"));
	it("has whole flows, and each checks", () => {
		expect(flows.length).toBeGreaterThan(0);
		for (const text of flows) {
			const name = /^name: (\S+)$/m.exec(text)?.[1] ?? "t";
			expect(judge(text, name).faults, name).toEqual([]);
		}
	});

	const nodes = blocks("yaml").filter((b) => b.startsWith("- id:"));
	it(`has ${nodes.length} node examples, each valid by the schema`, () => {
		expect(nodes.length).toBeGreaterThanOrEqual(10);
		for (const text of nodes) {
			for (const node of parse(text) as unknown[])
				expect(validate({ $ref: "#/$defs/node", $defs: schema.$defs }, node), text).toEqual([]);
		}
	});

	it("has frontmatter snippets, each valid by the schema", () => {
		const keys = blocks("yaml").filter((b) => /^(budget|handoff):/.test(b));
		expect(keys.length).toBeGreaterThanOrEqual(2);
		for (const text of keys) {
			const fm = {
				name: "t",
				description: "d",
				input: "string",
				nodes: [{ id: "a", agent: "scout" }],
				...(parse(text) as object),
			};
			expect(validate(schema, fm), text).toEqual([]);
		}
	});
});
