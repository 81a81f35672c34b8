import { defineConfig } from "vitest/config";

// Tests are offline and deterministic: PI_OFFLINE keeps pi from reaching for the network,
// and each test that needs pi's agent dir makes its own temp folder.
export default defineConfig({
	test: {
		include: ["test/**/*.test.ts"],
		environment: "node",
		testTimeout: 30_000,
		hookTimeout: 30_000,
		pool: "forks",
		// vitest's default is one worker fewer than the cores, one on a two-core machine, and most files
		// spend their time waiting on the processes they start (pi-flows, pi, git, Postgres, Chromium): three
		// files at a time keep two cores busy. VITEST_MAX_WORKERS overrides it.
		maxWorkers: 3,
		// One temp folder per run for what test files share (the packed tarball, test/helpers/packed.ts).
		globalSetup: ["test/helpers/global-setup.ts"],
		env: { PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1" },
	},
});
