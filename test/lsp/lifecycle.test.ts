/**
 * The server's life as an editor sees it: what it says it can do, which documents it treats as flows (and
 * leaves every other Markdown file alone), a clean shutdown and exit, and the command's usage.
 */
import { cliBin } from "../helpers/built-cli.ts";
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { find, startClient } from "./client.ts";
import { FLOW, serverPerFile } from "./fixture.ts";

const lsp = serverPerFile();

describe("the language server", () => {
	it("announces incremental sync, completion with its trigger characters, hover and definition", () => {
		expect(lsp.client.initialized).toEqual({
			capabilities: {
				textDocumentSync: 2,
				completionProvider: { triggerCharacters: [" ", ":", "[", ",", ".", '"', "'", "#"] },
				hoverProvider: true,
				definitionProvider: true,
			},
			serverInfo: { name: "pi-flows" },
		});
	});

	it("treats Markdown with `nodes:` outside a flows folder as a flow, and leaves agents and notes alone", async () => {
		const agentText =
			"---\nname: helper\ndescription: Helps with small tasks.\ntools: read, grep\n---\nYou are helper.\n";
		const agent = lsp.client.open(`${lsp.project.cwd}/.pi/agents/helper.md`, agentText);
		const notes = lsp.client.open(`${lsp.project.cwd}/notes.md`, "---\ntitle: notes\n---\n## plan\n");
		const loose = lsp.client.open(`${lsp.project.cwd}/docs/example.md`, FLOW.replace("name: mine", "name: example"));
		expect((await lsp.client.diagnostics(loose, 1)).diagnostics).toEqual([]);
		expect(lsp.client.publications(agent)).toEqual([]);
		expect(lsp.client.publications(notes)).toEqual([]);
		expect(await lsp.client.completion(agent, 1, 0)).toEqual([]);
		expect(await lsp.client.hover(agent, 1, 2)).toBeNull();
		const at = find(FLOW, "agent: planner", 9);
		expect(await lsp.client.hover(loose, at.line, at.character)).not.toBeNull();
	});

	it("judges a flow whose closing `---` is not written yet", async () => {
		const text = "---\nname: mine\ndescription: d\ninput: string\nnodes:\n  - id: plan\n    agent: plannr\n";
		const uri = lsp.client.open(lsp.project.file, text);
		const { diagnostics } = await lsp.client.diagnostics(uri, 1);
		expect(diagnostics.map((d) => d.code)).toEqual(["not-a-flow"]);
		const at = find(text, "agent: plannr", 7);
		expect((await lsp.client.completion(uri, at.line, at.character)).map((i) => i.label)).toContain("planner");
	});

	it("runs from the installed binary with the flags editors pass, and exits 0 after shutdown and exit", async () => {
		const other = await startClient(lsp.project, [cliBin(), "lsp", "--stdio", `--clientProcessId=${process.pid}`]);
		const uri = other.open(lsp.project.file, FLOW);
		expect((await other.diagnostics(uri, 1)).diagnostics).toEqual([]);
		expect(await other.stop()).toBe(0);
	});

	it("refuses arguments it does not take, with its usage", () => {
		const r = spawnSync(process.execPath, [cliBin(), "lsp", "flows/"], {
			cwd: lsp.project.cwd,
			env: lsp.project.env,
			encoding: "utf8",
		});
		expect(r.status).toBe(2);
		expect(r.stderr).toContain("usage: pi-flows lsp [--stdio]");
	});
});
