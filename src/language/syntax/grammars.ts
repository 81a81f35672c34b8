/**
 * Loads the grammars of `grammar/` once and names them, as Shopify's `grammar.ts` does: nothing here
 * parses. A grammar that fails to load is our bug, not the user's, so it throws (style rule 9).
 */
import type * as ohm from "ohm-js";
// By path, not through the folder's door: only the grammar users should load ohm.
import { compileGrammar } from "../../grammar/index.ts";

const cache = new Map<string, ohm.Grammar>();

/**
 * The grammar in `grammar/<file>`, compiled on first use. Lazy, so importing the syntax layer costs
 * nothing until a flow actually has a condition or a duration.
 */
function load(file: string): ohm.Grammar {
	const cached = cache.get(file);
	if (cached) return cached;
	let grammar: ohm.Grammar;
	try {
		grammar = compileGrammar(file);
	} catch (cause) {
		throw new Error(
			`pi-flows: grammar/${file} cannot be read or does not compile; the package is incomplete or this is a bug in pi-flows`,
			{ cause },
		);
	}
	cache.set(file, grammar);
	return grammar;
}

/** The condition language and its address-only entry rule (`Condition`, `Address`). */
export function expressionGrammar(): ohm.Grammar {
	return load("expression.ohm");
}

/** Durations like `90s` and `1h30m` (`duration`). */
export function durationGrammar(): ohm.Grammar {
	return load("duration.ohm");
}
