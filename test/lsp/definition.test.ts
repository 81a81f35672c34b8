/**
 * Go to definition through a real client: an agent's name to its file, a node's id to its section and back,
 * an address to the node it reads, a `flow:` callee to its file.
 */
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/agents/index.ts";
import { find } from "./client.ts";
import { FLOW, serverPerFile } from "./fixture.ts";

const lsp = serverPerFile();

/** Asks for the definition `offset` characters into the first `needle` of `text`. */
async function definitionAt(needle: string, offset: number, text = FLOW) {
	const uri = lsp.client.open(lsp.project.file, text);
	await lsp.client.diagnostics(uri, 1);
	const at = find(text, needle, offset);
	return { uri, location: await lsp.client.definition(uri, at.line, at.character) };
}

const fileStart = (file: string) => ({
	uri: pathToFileURL(file).href,
	range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
});

/** The range of `length` characters from `offset` into the first `needle` of `text`. */
function span(needle: string, offset: number, length: number, text = FLOW) {
	const start = find(text, needle, offset);
	return { start, end: { line: start.line, character: start.character + length } };
}

describe("definition", () => {
	it("goes from an agent's name to its file", async () => {
		expect((await definitionAt("agent: helper", 8)).location).toEqual(
			fileStart(`${lsp.project.cwd}/.pi/agents/helper.md`),
		);
		lsp.client.closeAll();
		expect((await definitionAt("agent: planner", 8)).location).toEqual(fileStart(`${PACKAGE_ROOT}/agents/planner.md`));
	});

	it("goes from a node's id to its section heading, and from the heading back to the id", async () => {
		const down = await definitionAt("id: work", 5);
		expect(down.location).toEqual({ uri: down.uri, range: span("## work", 3, 4) });
		lsp.client.closeAll();
		const up = await definitionAt("## work", 5);
		expect(up.location).toEqual({ uri: up.uri, range: span("id: work", 4, 4) });
	});

	it("goes from an address, in reads and in a condition, to the node it reads", async () => {
		const read = await definitionAt("plan.output.tasks]", 13);
		expect(read.location).toEqual({ uri: read.uri, range: span("id: plan", 4, 4) });
		lsp.client.closeAll();
		const condition = await definitionAt("plan.output.status ==", 1);
		expect(condition.location).toEqual({ uri: condition.uri, range: span("id: plan", 4, 4) });
	});

	it("goes from a `flow:` callee to its file", async () => {
		const callee = lsp.project.write(
			".pi/flows/helpers.md",
			"---\nname: helpers\ndescription: d\ninput: string\nnodes:\n  - id: a\n    agent: helper\n---\n## a\nx\n",
		);
		const text = FLOW.replace(
			"agent: helper\n    reads: [input, plan.output.tasks]",
			"flow: helpers\n    input: input",
		);
		expect((await definitionAt("flow: helpers", 8, text)).location).toEqual(fileStart(callee));
	});
});
