/**
 * The project the MCP tests serve, and the official SDK's clients on the real `pi-flows mcp` in it: over
 * stdio (the client spawns the CLI) or over streamable HTTP (one server process, started once per file,
 * that every client of the file connects to). Two flows on the scripted model: `hello` greets, `asker`
 * asks who to greet first (with a default, so the unattended rule has an answer). The scripts are one per
 * server, since a script is checked against every flow it may play: `greet.yaml` answers at once,
 * `late.yaml` writes a file and answers 3 s later (a run that outlives a short `--wait`, and one cut after
 * a write: in doubt), `http.yaml` answers after 1.5 s (long enough to cancel).
 */
import { cliBin } from "../../helpers/built-cli.ts";
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { createTaskSessionFromClient } from "@modelcontextprotocol/ext-tasks/client";
import { agentFile, type TempProject, tempProject } from "../../helpers/project.ts";

/** The report every run tool returns (`structuredContent`). */
export type Report = {
	status: string;
	run: string;
	runDir?: string;
	answer?: unknown;
	asks: { via: string; answer?: unknown }[];
	resumable?: boolean;
	next?: string;
};

/** The flows, their agent and the scripts. */
export function mcpProject(): TempProject {
	const p = tempProject();
	p.write(".pi/agents/helper.md", agentFile("helper", "read, write"));
	p.write(
		".pi/flows/hello.md",
		"---\nname: hello\ndescription: Greets whoever is named.\ninput: string\nnodes:\n  - id: work\n    agent: helper\n    reads: [input]\n---\n\n## work\n\nGreet the one named under `input`.\n",
	);
	p.write(
		".pi/flows/asker.md",
		'---\nname: asker\ndescription: Asks who to greet, then greets them.\ninput: string\nnodes:\n  - id: q\n    ask: "Who should be greeted?"\n    default: Bob\n  - id: work\n    agent: helper\n    reads: [q]\n---\n\n## work\n\nGreet the one named under `q`.\n',
	);
	const say = '"greeted {{section:q}}{{section:input}}"';
	p.write("greet.yaml", `turns:\n  "*":\n    - say: ${say}\n`);
	p.write(
		"late.yaml",
		`turns:\n  "*":\n    - call: write\n      args: { path: late.txt, content: half }\n    - delay: 3000\n      say: ${say}\n`,
	);
	p.write("http.yaml", `turns:\n  "*":\n    - delay: 1500\n      say: ${say}\n`);
	return p;
}

/** How a test client answers forms: accept with this answer, or decline. */
export type Reply = { accept: string | boolean } | "decline";

/** A client's replies, changeable between tests (one stdio server per client, so one client per way). */
export interface Replies {
	now: Reply;
	forms: unknown[];
}

/** The SDK's client, declaring forms (answered from `replies`) unless `replies` is absent. */
export function sdkClient(replies: Replies | undefined, era: "legacy" | "auto"): Client {
	const client = new Client(
		{ name: "pi-flows-test", version: "1.0.0" },
		{
			capabilities: replies ? { elicitation: { form: {} } } : {},
			...(era === "auto" ? { versionNegotiation: { mode: "auto" } } : {}),
		},
	);
	if (replies)
		client.setRequestHandler("elicitation/create", async (request) => {
			replies.forms.push(request.params);
			const reply = replies.now;
			return reply === "decline" ? { action: "decline" } : { action: "accept", content: { answer: reply.accept } };
		});
	return client;
}

/** The SDK's client on the real CLI over stdio: `pi-flows mcp --project <args>` in the project. */
export async function connectStdio(
	project: TempProject,
	options: { replies?: Replies; era: "legacy" | "auto"; args: string[] },
): Promise<Client> {
	const client = sdkClient(options.replies, options.era);
	await client.connect(
		new StdioClientTransport({
			command: process.execPath,
			args: [cliBin(), "mcp", "--project", ...options.args],
			cwd: project.cwd,
			env: project.env as Record<string, string>,
			stderr: "pipe",
		}),
	);
	return client;
}

/** A `pi-flows mcp --http` process and where it serves. */
export interface HttpServer {
	url: URL;
	token: string;
	stderr(): string;
	stop(): Promise<void>;
}

/** Starts `pi-flows mcp --http --project <args>` in the project; resolves once it says where it serves. */
export async function startHttp(
	project: TempProject,
	args: string[],
	env: NodeJS.ProcessEnv = {},
): Promise<HttpServer> {
	const token = "test-token-0123456789";
	const child: ChildProcess = spawn(process.execPath, [cliBin(), "mcp", "--http", "--project", ...args], {
		cwd: project.cwd,
		env: { ...project.env, ...env, PI_FLOWS_MCP_TOKEN: token },
	});
	let err = "";
	const url = await new Promise<URL>((resolve, reject) => {
		child.stderr?.on("data", (d) => {
			err += d;
			const m = /serving (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
			if (m) resolve(new URL(m[1] as string));
		});
		child.once("exit", () => reject(new Error(`the server exited: ${err}`)));
	});
	return {
		url,
		token,
		stderr: () => err,
		stop: async () => {
			if (child.exitCode !== null || child.signalCode !== null) return;
			const exited = new Promise((r) => child.once("exit", r));
			child.kill("SIGINT");
			await exited;
		},
	};
}

/** The SDK's client over streamable HTTP, bearing the server's token. */
export async function connectHttp(
	server: HttpServer,
	options: { replies?: Replies; era: "legacy" | "auto" },
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
	const client = sdkClient(options.replies, options.era);
	const transport = new StreamableHTTPClientTransport(server.url, {
		requestInit: { headers: { authorization: `Bearer ${server.token}` } },
	});
	await client.connect(transport);
	return { client, transport };
}

/** Calls a run tool and follows the handle it may return with `run_result` until the run ends. */
export async function settle(
	client: Client,
	name: string,
	args: Record<string, unknown>,
	onprogress?: (message: string) => void,
): Promise<{ first: Report; last: Report }> {
	const options = onprogress ? { onprogress: (p: { message?: string }) => onprogress(p.message ?? "") } : {};
	const first = (await client.callTool({ name, arguments: args }, options)).structuredContent as Report;
	let last = first;
	for (let i = 0; i < 60 && (last.status === "running" || last.status === "waiting"); i++)
		last = (await client.callTool({ name: "run_result", arguments: { run: first.run } }, options))
			.structuredContent as Report;
	return { first, last };
}

/** Polls `run_status` until the run has ended (a stop lands its handoff first). */
export async function ended(client: Client, run: string): Promise<Report> {
	for (let i = 0; i < 300; i++) {
		const r = (await client.callTool({ name: "run_status", arguments: { run } })).structuredContent as Report;
		if (r.status !== "running" && r.status !== "waiting") return r;
		await new Promise((done) => setTimeout(done, 50));
	}
	throw new Error(`run ${run} did not end`);
}

/** The journal's entries of one type, in a run folder. */
function journal(runDir: string): { type: string; [key: string]: unknown }[] {
	return readFileSync(join(runDir, "journal.jsonl"), "utf8")
		.split("\n")
		.filter(Boolean)
		.map((l) => JSON.parse(l) as { entry?: { type: string }; type?: string })
		.map((l) => (l.entry ?? l) as { type: string });
}

/** The `asked` entries of a run's journal. */
export function askedIn(runDir: string): { path: string; answer: { kind: string; via?: string; value?: unknown } }[] {
	return journal(runDir).filter((e) => e.type === "asked") as never;
}

/** The journal's last `run_end`. */
export function runEndOf(runDir: string): { ok: boolean; errorKind?: string } | undefined {
	return journal(runDir)
		.filter((e) => e.type === "run_end")
		.at(-1) as never;
}

/** The 2026-07-28 envelope a request carries: protocol version, client info and capabilities. */
function envelope(capabilities: Record<string, unknown>) {
	return {
		"io.modelcontextprotocol/protocolVersion": MODERN,
		"io.modelcontextprotocol/clientInfo": { name: "pi-flows-test", version: "1.0.0" },
		"io.modelcontextprotocol/clientCapabilities": capabilities,
	};
}

const MODERN = "2026-07-28";
let rpcId = 0;

/**
 * One JSON-RPC request POSTed as the 2026-07-28 streamable HTTP binding frames it (`MCP-Protocol-Version`,
 * `Mcp-Method`, and `Mcp-Name` from the call's tool name or task id); the answer read from JSON or from
 * the SSE stream's last message. `params._meta` is kept when the caller framed it (the Tasks client
 * does), else the envelope for `capabilities` is added.
 */
export async function rawRequest(
	server: HttpServer,
	request: { method: string; params?: Record<string, unknown> },
	capabilities: Record<string, unknown> = {},
): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } }> {
	const params = request.params ?? {};
	const framed = params._meta ? params : { ...params, _meta: envelope(capabilities) };
	const name = (params.taskId ?? params.name) as string | undefined;
	const response = await fetch(server.url, {
		method: "POST",
		headers: {
			"content-type": "application/json",
			accept: "application/json, text/event-stream",
			authorization: `Bearer ${server.token}`,
			"mcp-protocol-version": MODERN,
			"mcp-method": request.method,
			...(name ? { "mcp-name": name } : {}),
		},
		body: JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method: request.method, params: framed }),
	});
	const text = await response.text();
	if (!response.headers.get("content-type")?.includes("text/event-stream")) return JSON.parse(text);
	const messages = text
		.split("\n")
		.filter((l) => l.startsWith("data:"))
		.map((l) => JSON.parse(l.slice(5)) as { id?: unknown });
	return messages.filter((m) => m.id !== undefined).at(-1) as never;
}

/**
 * A requester of the Tasks extension: `@modelcontextprotocol/ext-tasks`'s session on the SDK's client (the
 * 2026-07-28 era), its task traffic sent through {@link rawRequest} (the package asks its host for that
 * path, since the SDK's client codec has no `resultType: "task"`), its forms answered from `replies`.
 */
export async function tasksSession(server: HttpServer, replies: Replies) {
	const { client } = await connectHttp(server, { replies, era: "auto" });
	const capabilities = { elicitation: { form: {} } };
	const session = createTaskSessionFromClient(client, {
		endpointId: "pi-flows-test",
		rawDispatch: async (request) => {
			const answer = await rawRequest(server, request as { method: string; params?: Record<string, unknown> });
			return answer.error
				? { kind: "error", error: answer.error as never }
				: { kind: "result", result: answer.result as never };
		},
		v2RequestFraming: {
			protocolVersion: MODERN,
			clientInfo: { name: "pi-flows-test", version: "1.0.0" },
			clientCapabilities: capabilities,
		},
		onInputRequest: async (request) => {
			replies.forms.push(request.params);
			const reply = replies.now;
			return (
				reply === "decline" ? { action: "decline" } : { action: "accept", content: { answer: reply.accept } }
			) as never;
		},
	});
	return {
		session,
		close: async () => {
			await session.close();
			await client.close();
		},
	};
}
