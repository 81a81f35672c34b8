/**
 * The built package rebuilds its grammars from ohm recipes written at pack time instead of parsing the
 * `.ohm` text (src/grammar/compile.ts). A grammar rebuilt from its recipe must be the same grammar: same
 * recipe again, and the same verdicts, failure positions and expected-text on inputs that match and not.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as ohm from "ohm-js";
import { describe, expect, it } from "vitest";
import { repo } from "../helpers/packed.ts";

const { makeRecipe } = ohm as unknown as { makeRecipe(recipe: string): ohm.Grammar };
const recipeOf = (g: ohm.Grammar) => (g as unknown as { toRecipe(): string }).toRecipe();

const CASES: Record<string, { rule?: string; inputs: string[] }> = {
	"duration.ohm": { inputs: ["90s", "1h30m", "2d", "90", "1h 30m", "s90"] },
	"expression.ohm": {
		inputs: ["review.ok", "tests.passed && !lint.failed", "count > 3", "a ==", "(x || y", 'x.error.kind == "timeout"'],
	},
	"chain.ohm": { inputs: ['@scout -> @worker --model p/m -> "goal"', "@a -> ", "@a -> @b --retry 1", "->"] },
};

describe("grammar recipes", () => {
	for (const [file, { inputs }] of Object.entries(CASES)) {
		it(`${file}: the grammar rebuilt from its recipe is the grammar parsed from its text`, () => {
			const parsed = ohm.grammar(readFileSync(join(repo, "grammar", file), "utf8"));
			const rebuilt = makeRecipe(recipeOf(parsed));
			expect(recipeOf(rebuilt)).toBe(recipeOf(parsed));
			for (const input of inputs) {
				const a = parsed.match(input);
				const b = rebuilt.match(input);
				expect(b.succeeded(), input).toBe(a.succeeded());
				if (a.failed() && b.failed()) {
					expect(b.getRightmostFailurePosition(), input).toBe(a.getRightmostFailurePosition());
					expect(b.getExpectedText(), input).toBe(a.getExpectedText());
				}
			}
		});
	}
});
