/**
 * The MCP Inspector's CLI mode (the dev dependency `@modelcontextprotocol/inspector`, pinned) against
 * `pi-flows mcp` over stdio, offline: the check docs/mcp.md gives a person for their set-up (`npx
 * @modelcontextprotocol/inspector --cli --method tools/list -- … mcp --project`), the CLI started once.
 * Calling the tools is the SDK client's part (stdio.test.ts, http.test.ts).
 */
import { cliBin } from "../../helpers/built-cli.ts";
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TempProject } from "../../helpers/project.ts";
import { mcpProject } from "./fixture.ts";

const run = promisify(execFile);
const INSPECTOR = join(
	dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/inspector/package.json")),
	"clients/launcher/build/index.js",
);

let project: TempProject;

beforeAll(() => {
	project = mcpProject();
});

afterAll(() => project.cleanup());

/** `inspector --cli <method args> -- node pi-flows mcp --project --script greet.yaml`, its JSON answer. */
async function inspect(method: string[]): Promise<Record<string, unknown>> {
	const server = [process.execPath, cliBin(), "mcp", "--project", "--script", "greet.yaml"];
	const { stdout } = await run(process.execPath, [INSPECTOR, "--cli", ...method, "--", ...server], {
		cwd: project.cwd,
		// The Inspector keeps a catalogue under HOME; the test's own home keeps the person's untouched.
		env: { ...project.env, HOME: join(project.cwd, "..") },
		timeout: 60_000,
	});
	return JSON.parse(stdout) as Record<string, unknown>;
}

describe("the MCP Inspector's CLI against pi-flows mcp", () => {
	it("lists the flows as tools, with their input schemas", async () => {
		const listed = await inspect(["--method", "tools/list"]);
		const tools = listed.tools as { name: string; inputSchema: unknown }[];
		expect(tools.map((t) => t.name)).toEqual(
			expect.arrayContaining(["hello", "asker", "flow_check", "run_result", "run_resume"]),
		);
		expect(tools.find((t) => t.name === "hello")?.inputSchema).toMatchObject({ required: ["input"] });
	});
});
