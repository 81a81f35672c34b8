/**
 * Editors ask at every position of every half-written file: completion, hover and definition must answer
 * (possibly with nothing) and never throw, on the shipped flows whole and cut short at random points.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadRoster, PACKAGE_ROOT } from "../../src/agents/index.ts";
import { LANGUAGE } from "../../src/kinds/language.ts";
import { buildFlow, readFlow } from "../../src/language/index.ts";
import { listFlows } from "../../src/load/index.ts";
import { checkFlowText } from "../../src/load/index.ts";
import { complete } from "../../src/lsp/completion.ts";
import { definitionAt } from "../../src/lsp/definition.ts";
import { hoverAt } from "../../src/lsp/hover.ts";

const dir = join(PACKAGE_ROOT, "flows");
const names = readdirSync(dir).filter((f) => f.endsWith(".md"));
const files = names.map((f) => join(dir, f));
const env = { ...process.env, PI_CODING_AGENT_DIR: join(PACKAGE_ROOT, "no-such-agent-dir") };
const roster = loadRoster(PACKAGE_ROOT, {}, env);

function askEverywhere(text: string, file: string): number {
	const judged = checkFlowText(text, file, roster);
	const read = readFlow(text, file).value;
	const flow = judged.value ?? (read && buildFlow(LANGUAGE, read).value);
	const world = {
		...(flow ? { flow } : {}),
		...(judged.scopes ? { scopes: judged.scopes } : {}),
		roster,
		flows: () => listFlows(PACKAGE_ROOT, {}, env).flows,
		uri: "file:///x.md",
	};
	let answers = 0;
	const lines = text.split("\n");
	for (const [line, lineText] of lines.entries()) {
		for (let character = 0; character <= lineText.length; character++) {
			answers += complete(text, line, character, world).length;
			if (hoverAt(text, line, character, world)) answers++;
			if (definitionAt(text, line, character, world)) answers++;
		}
	}
	return answers;
}

describe("requests at any position", () => {
	it.each(names)("answer throughout flows/%s", (name) => {
		const file = join(dir, name);
		expect(askEverywhere(readFileSync(file, "utf8"), file)).toBeGreaterThan(0);
	});

	it("answer on shipped flows cut short anywhere", () => {
		const texts = files.map((f) => readFileSync(f, "utf8"));
		fc.assert(
			fc.property(
				fc.integer({ min: 0, max: texts.length - 1 }),
				fc.double({ min: 0, max: 1, noNaN: true }),
				(which, where) => {
					const text = texts[which];
					const cut = text.slice(0, Math.floor(text.length * where));
					expect(() => askEverywhere(cut, files[which])).not.toThrow();
				},
			),
			{ numRuns: 25 },
		);
	});
});
