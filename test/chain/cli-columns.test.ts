// A fault inside a chain given on the command line stands at its column in the chain as typed, even where
// the chain holds quotes that the synthetic flow doubles for YAML.
import { expect, it } from "vitest";
import { chainColumn } from "../../src/cli/chain.ts";

const PREFIX = "chain: '".length;
const flowColumn = (chain: string, at: number) => {
	const escaped = chain.slice(0, at - 1).replace(/'/g, "''");
	return PREFIX + escaped.length + 1;
};

it.each([
	['"don\'t look" -> @scuot', 17],
	["@scout -> @scuot", 11],
	["@a 'x' -> @b ''", 11],
])("%j: column %i maps back to itself", (chain, column) => {
	expect(chainColumn(chain, flowColumn(chain, column))).toBe(column);
});
