/**
 * The project the MCP tests serve, and the official SDK's `Client` spawning the real `pi-flows mcp` in it
 * over stdio: a greeting flow, one that asks first (with a default, so the unattended rule has an answer),
 * and a slow one for cancels and handles, all on the scripted model.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { PACKAGE_ROOT } from "../../../src/agents/index.ts";
import { agentFile, type TempProject, tempProject } from "../../helpers/project.ts";

/** The flows, their agent and the two scripts (one per server: a script is checked against every flow). */
export function mcpProject(): TempProject {
	const p = tempProject();
	p.write(".pi/agents/helper.md", agentFile("helper", "read"));
	p.write(
		".pi/flows/hello.md",
		"---\nname: hello\ndescription: Greets whoever is named.\ninput: string\nnodes:\n  - id: work\n    agent: helper\n    reads: [input]\n---\n\n## work\n\nGreet the one named under `input`.\n",
	);
	p.write(
		".pi/flows/asker.md",
		'---\nname: asker\ndescription: Asks who to greet, then greets them.\ninput: string\nnodes:\n  - id: q\n    ask: "Who should be greeted?"\n    default: Bob\n  - id: work\n    agent: helper\n    reads: [q]\n---\n\n## work\n\nGreet the one named under `q`.\n',
	);
	p.write(
		"slow/.pi/flows/slow.md",
		"---\nname: slow\ndescription: Greets, slowly.\ninput: string\nnodes:\n  - id: work\n    agent: helper\n    reads: [input]\n---\n\n## work\n\nGreet the one named under `input`.\n",
	);
	p.write("slow/.pi/agents/helper.md", agentFile("helper", "read"));
	p.write("greet.yaml", 'turns:\n  "*":\n    - say: "greeted {{section:q}}{{section:input}}"\n');
	p.write("slow/late.yaml", "turns:\n  work:\n    - delay: 4000\n      say: greeted late\n");
	return p;
}

/** How a test client answers forms: accept with this answer, decline, or declare no elicitation at all. */
export type Reply = { accept: string | boolean } | "decline" | "none";

/** The SDK's client on the real CLI: `pi-flows mcp --project <args>` in `cwd`. */
export async function connect(
	project: TempProject,
	options: { reply: Reply; era?: "legacy" | "auto"; args?: string[]; cwd?: string; forms?: unknown[] },
): Promise<Client> {
	const client = new Client(
		{ name: "pi-flows-test", version: "1.0.0" },
		{
			capabilities: options.reply === "none" ? {} : { elicitation: { form: {} } },
			...(options.era === "auto" ? { versionNegotiation: { mode: "auto" } } : {}),
		},
	);
	const reply = options.reply;
	if (reply !== "none")
		client.setRequestHandler("elicitation/create", async (request) => {
			options.forms?.push(request.params);
			return reply === "decline" ? { action: "decline" } : { action: "accept", content: { answer: reply.accept } };
		});
	await client.connect(
		new StdioClientTransport({
			command: process.execPath,
			args: [join(PACKAGE_ROOT, "bin/pi-flows.js"), "mcp", "--project", ...(options.args ?? [])],
			cwd: options.cwd ?? project.cwd,
			env: project.env as Record<string, string>,
			stderr: "pipe",
		}),
	);
	return client;
}

/** The `asked` entries of a run's journal. */
export function askedIn(runDir: string): { path: string; answer: { kind: string; via?: string; value?: unknown } }[] {
	return readFileSync(join(runDir, "journal.jsonl"), "utf8")
		.split("\n")
		.filter(Boolean)
		.map((l) => JSON.parse(l) as { entry?: { type: string }; type?: string })
		.map((l) => (l.entry ?? l) as { type: string; path: string; answer: { kind: string; via?: string } })
		.filter((e) => e.type === "asked");
}

/** The journal's last `run_end`. */
export function runEndOf(runDir: string): { ok: boolean; errorKind?: string } | undefined {
	const ends = readFileSync(join(runDir, "journal.jsonl"), "utf8")
		.split("\n")
		.filter(Boolean)
		.map((l) => JSON.parse(l) as { entry?: { type: string }; type?: string })
		.map((l) => (l.entry ?? l) as { type: string; ok: boolean; errorKind?: string })
		.filter((e) => e.type === "run_end");
	return ends.at(-1);
}
