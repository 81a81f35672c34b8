/**
 * Loads `grammar/chain.ohm` once. The grammar lives in its own file (as ohm's own grammar does) so it can be
 * read, diffed and tested alone; this module only compiles it and names it.
 */
import { readFileSync } from "node:fs";
import * as ohm from "ohm-js";

/** The chain grammar; `Chain` is its start rule. Shared by the parser and by the grammar's own tests. */
export const chainGrammar: ohm.Grammar = ohm.grammar(
	readFileSync(new URL("../../grammar/chain.ohm", import.meta.url), "utf8"),
);
