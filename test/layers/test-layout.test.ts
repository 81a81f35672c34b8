/**
 * test/ mirrors src/: a module's tests are found where its path says. Every folder of test/ that holds a
 * test file names a folder or a module of src/ (test/language/check for src/language/check/,
 * test/runtime/budget for src/runtime/budget.ts), except the folders that test no one module: test/e2e
 * (the package end to end, as a user meets it), test/security (attacks), test/layers (rules over all of
 * src/) and test/flows (the package's shipped flows/). No test file sits at the top of test/, and none is
 * named by an issue number: the issue is in its header, the module is in its path (docs/testing.md).
 */
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/agents/index.ts";

/** The top folders of test/ that hold tests of no single src/ module, and why each is where it is. */
const BESIDE_SRC: Record<string, string> = {
	e2e: "the package end to end: the CLI, MCP, traces, the web view, installs, a newcomer's first steps",
	security: "attacks, each across the modules it must get past",
	layers: "rules over every file of src/",
	flows: "the shipped flows of the package's flows/ folder",
};

const TEST = join(PACKAGE_ROOT, "test");
const SRC = join(PACKAGE_ROOT, "src");

/** Every test file of test/, relative to it, fixtures and helpers left out (helpers/ tests only the suite's own tools). */
const testFiles = readdirSync(TEST, { recursive: true, encoding: "utf8" }).filter(
	(f) => f.endsWith(".test.ts") && !f.startsWith("fixtures/") && !f.startsWith("helpers/"),
);

describe("test/ mirrors src/", () => {
	it("finds the suite's test files", () => {
		// A walk that found nothing would pass every check below.
		expect(testFiles.length).toBeGreaterThan(150);
	});

	it("puts every test file in a folder named after a src/ folder or module, or in one of the folders beside src/", () => {
		const astray = [...new Set(testFiles.map((f) => dirname(f)))]
			.filter((dir) => dir !== "." && !(dir.split("/")[0] in BESIDE_SRC))
			.filter((dir) => !existsSync(join(SRC, dir)) && !existsSync(join(SRC, `${dir}.ts`)));
		expect(astray).toEqual([]);
	});

	it("keeps no test file at the top of test/", () => {
		expect(testFiles.filter((f) => !f.includes("/"))).toEqual([]);
	});

	it("names no test file by an issue number", () => {
		expect(testFiles.filter((f) => /(^|\/)\d+-[^/]*$/.test(f))).toEqual([]);
	});
});
