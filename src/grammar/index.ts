/**
 * The ohm grammars' compiler, apart from src/package so that what only needs the package's root (the
 * extension's start, among others) does not load ohm.
 */
export { compileGrammar } from "./compile.ts";
