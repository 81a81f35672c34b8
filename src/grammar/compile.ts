/**
 * Compiles a grammar of `grammar/`. From the sources it parses the `.ohm` text; from the pack-time build it
 * rebuilds the grammar from the recipe the build wrote (`dist/grammar/<file>.json`, ohm's own serialised
 * form), which skips parsing grammar text with ohm's meta-grammar: most of what `pi-flows check` spent
 * starting (docs/performance.md, "Start-up"). Same grammar either way; a test compares them.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as ohm from "ohm-js";
import { grammarSource, PACKAGE_ROOT } from "../package/index.ts";

// `makeRecipe` is exported by ohm-js (for generated bundles) but missing from its type declarations.
const { makeRecipe } = ohm as unknown as { makeRecipe(recipe: string): ohm.Grammar };

/**
 * The build this code runs from, when it runs from one: the sources are TypeScript, and the build's modules
 * sit under its `dist/`. That folder, not the package root's: a build kept elsewhere (the tests' copy)
 * reads the recipes it was built with, and a checkout's sources never read a `dist/` a build left there.
 */
const BUILD = builtDist(fileURLToPath(import.meta.url));

function builtDist(module: string): string | undefined {
	if (!module.endsWith(".js")) return undefined;
	for (let dir = dirname(module); dir !== dirname(dir); dir = dirname(dir)) if (basename(dir) === "dist") return dir;
	return join(PACKAGE_ROOT, "dist");
}

/** Where the build puts recipes; only read when running the build (a checkout's sources read the .ohm). */
export function recipeFile(file: string): string {
	return join(BUILD ?? join(PACKAGE_ROOT, "dist"), "grammar", `${file}.json`);
}

/** The grammar in `grammar/<file>`; throws (a bug or a damaged install) when it cannot be had. */
export function compileGrammar(file: string): ohm.Grammar {
	const recipe = recipeFile(file);
	if (BUILD && existsSync(recipe)) return makeRecipe(readFileSync(recipe, "utf8"));
	return ohm.grammar(grammarSource(file));
}
