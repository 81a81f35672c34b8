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
		env: { PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1" },
	},
});
