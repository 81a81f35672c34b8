/**
 * Loads `grammar/chain.ohm` once. The grammar lives in its own file (as ohm's own grammar does) so it can be
 * read, diffed and tested alone; this module only compiles it and names it.
 */
import type * as ohm from "ohm-js";
// By path, not through the folder's door: only the grammar users should load ohm.
import { compileGrammar } from "../grammar/index.ts";

/** The chain grammar; `Chain` is its start rule. Shared by the parser and by the grammar's own tests. */
export const chainGrammar: ohm.Grammar = compileGrammar("chain.ohm");
