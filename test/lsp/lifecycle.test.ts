/**
 * The server's life as an editor sees it: what it says it can do, which documents it treats as flows (and
 * leaves every other Markdown file alone), a clean shutdown and exit, and the command's usage.
 */
import { spawnSync } from "node:child_process";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/agents/index.ts";
import { find, type LspClient, startClient } from "./client.ts";
import { FLOW, flowProject } from "./fixture.ts";

let project: ReturnType<typeof flowProject>;
let client: LspClient;
beforeAll(async () => {
	project = flowProject();
	client = await startClient(project);
});
afterEach(() => client.closeAll());
afterAll(async () => {
	expect(await client.stop()).toBe(0);
	project.cleanup();
});

describe("the language server", () => {
	it("announces incremental sync, completion with its trigger characters, hover and definition", () => {
		expect(client.initialized).toEqual({
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
		const agentText = "---\nname: helper\ndescription: Helps with small tasks.\ntools: read, grep\n---\nYou are helper.\n";
		const agent = client.open(`${project.cwd}/.pi/agents/helper.md`, agentText);
		const notes = client.open(`${project.cwd}/notes.md`, "---\ntitle: notes\n---\n## plan\n");
		const loose = client.open(`${project.cwd}/docs/example.md`, FLOW.replace("name: mine", "name: example"));
		expect((await client.diagnostics(loose, 1)).diagnostics).toEqual([]);
		expect(client.publications(agent)).toEqual([]);
		expect(client.publications(notes)).toEqual([]);
		expect(await client.completion(agent, 1, 0)).toEqual([]);
		expect(await client.hover(agent, 1, 2)).toBeNull();
		const at = find(FLOW, "agent: planner", 9);
		expect(await client.hover(loose, at.line, at.character)).not.toBeNull();
	});

	it("judges a flow whose closing `---` is not written yet", async () => {
		const text = "---\nname: mine\ndescription: d\ninput: string\nnodes:\n  - id: plan\n    agent: plannr\n";
		const uri = client.open(project.file, text);
		const { diagnostics } = await client.diagnostics(uri, 1);
		expect(diagnostics.map((d) => d.code)).toEqual(["not-a-flow"]);
		const at = find(text, "agent: plannr", 7);
		expect((await client.completion(uri, at.line, at.character)).map((i) => i.label)).toContain("planner");
	});

	it("runs from the installed binary with the flags editors pass, and exits 0 after shutdown and exit", async () => {
		const other = await startClient(project, [`${PACKAGE_ROOT}/bin/pi-flows.js`, "lsp", "--stdio", `--clientProcessId=${process.pid}`]);
		const uri = other.open(project.file, FLOW);
		expect((await other.diagnostics(uri, 1)).diagnostics).toEqual([]);
		expect(await other.stop()).toBe(0);
	});

	it("refuses arguments it does not take, with its usage", () => {
		const r = spawnSync(process.execPath, [`${PACKAGE_ROOT}/src/cli/main.ts`, "lsp", "flows/"], { cwd: project.cwd, env: project.env, encoding: "utf8" });
		expect(r.status).toBe(2);
		expect(r.stderr).toContain("usage: pi-flows lsp [--stdio]");
	});
});
