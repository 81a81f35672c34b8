import { configDefaults, defineConfig } from "vitest/config";

/**
 * Files that change what other files would see in the same worker: a module mock (`vi.mock` replaces a
 * module for the file's whole life, so a later file in a shared worker would get the mock). They run in a
 * worker of their own; every other file shares its worker's loaded modules.
 */
const OWN_WORKER = ["test/launch/one-preparation.test.ts"];

// Tests are offline and deterministic: PI_OFFLINE keeps pi from reaching for the network,
// and each test that needs pi's agent dir makes its own temp folder.
export default defineConfig({
	test: {
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
		// Before each file: the cleanups every file needs (test/helpers/each-file.ts says why they are there).
		setupFiles: ["test/helpers/each-file.ts"],
		env: { PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1" },
		// A file's tests import pi, the engine and the language afresh in an isolated worker: about a second and
		// a half of CPU a file, a third of the suite's. The test files keep no state between files (each makes
		// its own temp project, and what sets the environment or the clock puts it back), so they share a
		// worker's modules; `vi.mock` would leak, so its files keep their isolation.
		projects: [
			{
				extends: true,
				test: {
					name: "shared",
					include: ["test/**/*.test.ts"],
					exclude: [...configDefaults.exclude, ...OWN_WORKER],
					isolate: false,
				},
			},
			{ extends: true, test: { name: "own-worker", include: OWN_WORKER } },
		],
	},
});
