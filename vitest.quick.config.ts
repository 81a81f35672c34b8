import { defineConfig } from "vitest/config";
import base from "./vitest.config.ts";

// `npm run test:quick`: the language and engine units, the inner loop of a change to either (at most a
// minute on two cores). Left to `npm test`: the sweeps over every prefix of every shipped flow and the
// fuzz sample (test/language/read/never-throws, syntax/parsers-never-throw, fuzz-sample), the files that
// start processes of their own (check-only-entry's fresh Nodes, dry-skips' CLI runs) and the ports on real
// git and bash (test/engine/ports, world). The files share a worker's modules (no isolation): they keep no
// state between files, and loading pi once per worker instead of once per file is most of the minute saved.
export default defineConfig({
	test: {
		...base.test,
		projects: undefined,
		include: ["test/language/**/*.test.ts", "test/kinds/**/*.test.ts", "test/engine/**/*.test.ts"],
		exclude: [
			"test/language/read/never-throws.test.ts",
			"test/language/syntax/parsers-never-throw.test.ts",
			"test/language/fuzz-sample.test.ts",
			"test/language/check-only-entry.test.ts",
			"test/engine/dry-skips.test.ts",
			"test/engine/world.test.ts",
			"test/engine/ports/**",
		],
		isolate: false,
		globalSetup: [],
	},
});
