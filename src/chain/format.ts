/**
 * Prints a chain in canonical syntax: steps joined by ` -> `, each step's flags in table order, and the
 * chain-wide flags after ` -- `. Used to show a chain back to its author (normalised: `deep` prints
 * `high`, `90s` prints `1m30s`) and to store one; reading the output gives the same spec.
 */
import { CHAIN_FLAGS, type FlagSpec, unset } from "./flags.ts";
import type { ChainGlobals, ChainRef, ChainSpec, ChainStep } from "./types.ts";

function quoted(text: string): string {
	return `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

function ref(r: ChainRef): string {
	switch (r.kind) {
		case "agent":
			return `@${r.name}${r.label === undefined ? "" : `:${r.label}`}${r.goal === undefined ? "" : ` ${quoted(r.goal)}`}`;
		case "flow":
			return `flow:${r.name}`;
		case "template":
			return `template:${r.name}`;
		case "goal":
			return quoted(r.text);
	}
}

function step(s: ChainStep): string {
	return [ref(s.ref), ...flagsOf((spec) => (spec.step ? s[spec.step] : undefined))].join(" ");
}

function globals(g: ChainGlobals): string[] {
	return flagsOf((spec) => (spec.global ? g[spec.global] : undefined));
}

/** Every flag whose field `fieldOf` finds set, in the table's order, each with its printed value. */
function flagsOf(fieldOf: (spec: FlagSpec) => unknown): string[] {
	return Object.entries(CHAIN_FLAGS).flatMap(([name, spec]) => {
		const value = fieldOf(spec);
		// An empty text (a thinking level never is one) prints nothing, as the parser never makes one.
		return unset(value) || value === "" ? [] : [`--${name}`, ...spec.print(value as never)];
	});
}

/** The canonical text of a chain; `parseChain` reads it back to an equal spec (ranges aside). */
export function formatChain(spec: ChainSpec): string {
	const chain = spec.steps.map(step).join(" -> ");
	const tail = globals(spec.globals);
	return tail.length > 0 ? `${chain} -- ${tail.join(" ")}` : chain;
}
