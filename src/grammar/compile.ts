/**
 * Compiles a grammar of `grammar/`. From the sources it parses the `.ohm` text; from the pack-time build it
 * rebuilds the grammar from the recipe the build wrote (`dist/grammar/<file>.json`, ohm's own serialised
 * form), which skips parsing grammar text with ohm's meta-grammar: most of what `pi-flows check` spent
 * starting (docs/performance.md, "Start-up"). Same grammar either way; a test compares them.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as ohm from "ohm-js";
import { grammarSource, PACKAGE_ROOT } from "../package/index.ts";

// `makeRecipe` is exported by ohm-js (for generated bundles) but missing from its type declarations.
const { makeRecipe } = ohm as unknown as { makeRecipe(recipe: string): ohm.Grammar };

/** Where the build puts recipes; only read when running the build (a checkout's sources read the .ohm). */
export function recipeFile(file: string): string {
	return join(PACKAGE_ROOT, "dist", "grammar", `${file}.json`);
}

/** True when this code runs from the built package rather than from a checkout's sources. */
const BUILT = !existsSync(join(PACKAGE_ROOT, "src"));

/** The grammar in `grammar/<file>`; throws (a bug or a damaged install) when it cannot be had. */
export function compileGrammar(file: string): ohm.Grammar {
	const recipe = recipeFile(file);
	if (BUILT && existsSync(recipe)) return makeRecipe(readFileSync(recipe, "utf8"));
	return ohm.grammar(grammarSource(file));
}
