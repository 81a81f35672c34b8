/**
 * A folder is a unit: what the rest of the tree may use of it is what its `index.ts` exports (issue 15's
 * "a door for every folder that is imported from outside"). A deep import from outside couples the
 * importer to a file layout the folder is free to change, and hides from a reader what the folder offers.
 * Imports from inside a folder's own subtree (a child reaching its parent's files) stay direct: routing them
 * through the door would make the door import itself. `src/flow` has two doors: `check-only.ts` for the
 * language, and `index.ts`, which adds the evaluator (a static judgement must not load it).
 */
import { readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";

const src = join(import.meta.dirname, "../../src");

function sources(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
		e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
	);
}

/**
 * The kind modules stand across the stages (docs/architecture.md, "Adding a node kind"): each calls back
 * into the builder's and the checker's helper files (a block reads and checks its body), which those stages'
 * doors do not offer, so a kind module imports those files directly.
 */
const KIND_HELPERS = /^kinds\//;

/**
 * The language, the engine and the kinds are the one room `src/flow` was, split across three folders: no
 * cycle joins the folders any more (folder-cycles.test.ts), but they still reach each other's files
 * directly (a kind's run half uses the engine's helper files, which its door does not offer). Giving each
 * folder a door the others go through is the work left.
 */
const ONE_ROOM = /^(language|engine|kinds)\//;

/** The kind tables are the kinds' doors: a stage is handed a table, and only a composition root imports one. */
const KIND_TABLES = /^kinds\/(language|run|facts)\.ts$/;

/**
 * Imports that pass a door on purpose, each with its reason. pi loads the extension's entry at every start,
 * so it must stay light (test/e2e/install/library-by-name.test.ts holds its first bundle to that): it takes the
 * tool's registration alone, where the tool's door also carries the run the tool starts, and the
 * registration takes the agents' names from their files' `name:` lines, where the agents' door also carries
 * the roster's YAML reader. The redaction (at every writer, the extension's messages among them) and the
 * trust rule's words (which the handoff switch, read at pi's start, says) need only where the agent folder
 * is (agents/locations.ts), for the same reason.
 */
const PAST_THE_DOOR = new Set([
	"extension/index.ts imports extension/tool/subagent-tool.ts",
	"extension/tool/subagent-tool.ts imports agents/roster-files.ts",
	"secrets/index.ts imports agents/locations.ts",
	"trust/rule.ts imports agents/locations.ts",
	// `pi-flows --help` loads main.ts alone of the commands' code (test/cli/help-loads.test.ts): it takes
	// the agents' folder and the chain's flag names from their files, not from the doors that carry the
	// roster's YAML reader and the chain's value checkers.
	"cli/main.ts imports agents/locations.ts",
	"cli/main.ts imports chain/cli-flags.ts",
]);

/** Relative specifiers a file imports or re-exports, type-only ones included. */
function relativeSpecifiers(text: string): string[] {
	return [...text.matchAll(/\bfrom\s*["'](\.[^"']+)["']/g)].map((m) => m[1]);
}

/** Each import that reaches a file of another folder from outside that folder, past its door. */
function deepImports(files: Array<[file: string, text: string]>): string[] {
	const found: string[] = [];
	for (const [file, text] of files) {
		for (const spec of relativeSpecifiers(text)) {
			const target = normalize(join(dirname(file), spec));
			const folder = dirname(target);
			if (basename(target) === "index.ts" || folder === src) continue;
			if (KIND_TABLES.test(relative(src, target))) continue;
			if (ONE_ROOM.test(relative(src, file)) && ONE_ROOM.test(relative(src, target))) continue;
			if (KIND_HELPERS.test(relative(src, file)) && /^language\/(build|check)$/.test(relative(src, folder))) continue;
			if (!relative(folder, dirname(file)).startsWith("..")) continue;
			const line = `${relative(src, file)} imports ${relative(src, target)}`;
			if (!PAST_THE_DOOR.has(line)) found.push(line);
		}
	}
	return found;
}

describe("folder doors", () => {
	it("no file imports another folder's files past its index.ts", () => {
		expect(deepImports(sources(src).map((f) => [f, readFileSync(f, "utf8")]))).toEqual([]);
	});

	it("tells a deep import from a door, a folder-mate and a child reaching its parent", () => {
		const files: Array<[string, string]> = [
			[join(src, "cli/a.ts"), 'import { addUsage } from "../runtime/usage.ts";'],
			[join(src, "cli/b.ts"), 'import type { Usage } from "../runtime/index.ts";'],
			[join(src, "cli/c.ts"), 'import { a } from "./a.ts";'],
			[join(src, "flow/check/d.ts"), 'import { loadFlow } from "../load.ts";'],
			[join(src, "lsp/e.ts"), 'import { checkFlow } from "../language/index.ts";'],
			[join(src, "kinds/f/language.ts"), 'import { readList } from "../../language/build/read.ts";'],
		];
		expect(deepImports(files)).toEqual(["cli/a.ts imports runtime/usage.ts"]);
	});
});
