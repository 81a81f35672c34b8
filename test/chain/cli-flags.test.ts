// The CLI's literal list of chain-wide flags is the chain table's, so `--help` can stay light and still agree.
import { expect, it } from "vitest";
import { CHAIN_CLI_FLAGS } from "../../src/chain/cli-flags.ts";
import { CHAIN_FLAGS } from "../../src/chain/index.ts";

it("lists exactly the chain-wide flags of CHAIN_FLAGS, with whether each takes a value", () => {
	const derived = Object.fromEntries(
		Object.entries(CHAIN_FLAGS)
			.filter(([, spec]) => spec.scope !== "step")
			.map(([name, spec]) => [name, spec.check !== undefined]),
	);
	expect(CHAIN_CLI_FLAGS).toEqual(derived);
});
