/**
 * Hover through a real client: an agent's card, the type an address reads up to the segment under the
 * pointer (in `reads:` and in conditions), and a node's kind with its worst case.
 */
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/agents/index.ts";
import { find } from "./client.ts";
import { FLOW, serverPerFile } from "./fixture.ts";

const lsp = serverPerFile();
let uri: string;

/** Hovers `offset` characters into the first `needle` of the flow. */
async function hoverAt(needle: string, offset: number) {
	uri = lsp.client.open(lsp.project.file, FLOW);
	await lsp.client.diagnostics(uri, 1);
	const at = find(FLOW, needle, offset);
	return lsp.client.hover(uri, at.line, at.character);
}

/** The range of `length` characters from `offset` into the first `needle`. */
function span(needle: string, offset: number, length: number) {
	const start = find(FLOW, needle, offset);
	return { start, end: { line: start.line, character: start.character + length } };
}

describe("hover", () => {
	it("shows an agent's description, tools and file", async () => {
		expect(await hoverAt("agent: helper", 9)).toEqual({
			contents: {
				kind: "markdown",
				value: `**helper** · agent (project)\n\nHelps with small tasks.\n\ntools: read, grep\n\n\`${lsp.project.cwd}/.pi/agents/helper.md\``,
			},
			range: span("agent: helper", 7, 6),
		});
		lsp.client.closeAll();
		const shipped = await hoverAt("agent: planner", 8);
		expect(shipped?.contents).toEqual({
			kind: "markdown",
			value: expect.stringContaining(`\`${PACKAGE_ROOT}/agents/planner.md\``),
		});
	});

	it("shows the type an address reads, up to the segment under the pointer", async () => {
		expect(await hoverAt("plan.output.tasks]", 14)).toEqual({
			contents: { kind: "markdown", value: "`plan.output.tasks`: `[string]`" },
			range: span("plan.output.tasks]", 0, 17),
		});
		lsp.client.closeAll();
		expect(await hoverAt("plan.output.tasks]", 2)).toEqual({
			contents: { kind: "markdown", value: "`plan`: `{ tasks: [string], status: ready | blocked }`" },
			range: span("plan.output.tasks]", 0, 4),
		});
	});

	it("shows the type an address reads in a condition", async () => {
		expect(await hoverAt("plan.output.status ==", 13)).toEqual({
			contents: { kind: "markdown", value: "`plan.output.status`: `ready | blocked`" },
			range: span("plan.output.status ==", 0, 18),
		});
	});

	it("shows a node's kind and worst case over its id and over its section heading", async () => {
		expect(await hoverAt("id: plan", 6)).toEqual({
			contents: { kind: "markdown", value: "**plan** · agent node · ≤ 3 turns · ≤ 1h30m" },
			range: span("id: plan", 4, 4),
		});
		lsp.client.closeAll();
		expect((await hoverAt("id: gate", 5))?.contents).toEqual({
			kind: "markdown",
			value: "**gate** · choice node · ≤ 3 turns · ≤ 1h30m",
		});
		lsp.client.closeAll();
		expect(await hoverAt("## work", 4)).toEqual({
			contents: { kind: "markdown", value: "**work** · agent node · ≤ 3 turns · ≤ 1h30m" },
			range: span("## work", 3, 4),
		});
	});

	it("says nothing over a key", async () => {
		expect(await hoverAt("reads: [input]", 2)).toBeNull();
	});
});
