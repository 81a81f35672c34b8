/**
 * Prints a chain in canonical syntax: steps joined by ` -> `, each step's flags in table order, and the
 * chain-wide flags after ` -- `. Used to show a chain back to its author (normalised: `deep` prints
 * `high`, `90s` prints `1m30s`) and to store one; reading the output gives the same spec.
 */
import { formatDuration } from "./duration.ts";
import type { ChainGlobals, ChainRef, ChainSpec, ChainStep } from "./types.ts";
import { modelText as model } from "./values.ts";

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
	const parts = [ref(s.ref)];
	if (s.model) parts.push("--model", model(s.model));
	if (s.skills?.length) parts.push("--skill", s.skills.join(","));
	if (s.thinking) parts.push("--thinking", s.thinking);
	if (s.timeoutMs !== undefined) parts.push("--timeout", formatDuration(s.timeoutMs));
	if (s.retry !== undefined) parts.push("--retry", String(s.retry));
	if (s.continueOnError !== undefined) parts.push("--continue-on-error", ...(s.continueOnError ? [] : ["false"]));
	return parts.join(" ");
}

function globals(g: ChainGlobals): string[] {
	const parts: string[] = [];
	if (g.model) parts.push("--global-model", model(g.model));
	if (g.skills?.length) parts.push("--global-skill", g.skills.join(","));
	if (g.thinking) parts.push("--global-thinking", g.thinking);
	if (g.budgetTotal !== undefined) parts.push("--budget-total", String(g.budgetTotal));
	if (g.budgetWarning !== undefined) parts.push("--budget-warning", String(g.budgetWarning));
	if (g.retry !== undefined) parts.push("--retry", String(g.retry));
	if (g.backoffMs !== undefined) parts.push("--backoff", formatDuration(g.backoffMs));
	if (g.maxHistory !== undefined) parts.push("--max-history", String(g.maxHistory));
	if (g.continueOnError !== undefined) parts.push("--continue-on-error", ...(g.continueOnError ? [] : ["false"]));
	return parts;
}

/** The canonical text of a chain; `parseChain` reads it back to an equal spec (ranges aside). */
export function formatChain(spec: ChainSpec): string {
	const chain = spec.steps.map(step).join(" -> ");
	const tail = globals(spec.globals);
	return tail.length > 0 ? `${chain} -- ${tail.join(" ")}` : chain;
}
