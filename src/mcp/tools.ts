/**
 * The server's tools on one `McpServer`: a tool per flow the scope can see, `chain`, `flow_check`,
 * `flow_plan`, and `runs`, `run_status`, `run_result`, `run_stop` for runs started earlier. A run tool
 * starts its run through the CLI's launch (`launchRun`), then follows it for the server's wait
 * (`attend`); a question on the way goes back to the client as a form, and the client's next call
 * (carrying the answer and the sealed `requestState`) lands it and follows on. Every result is redacted.
 */
import { readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { loadRoster } from "../agents/index.ts";
import { type Fault, faultText } from "../faults/index.ts";
import type { CheckedFlow, Value } from "../language/index.ts";
import { judgeChain, planFlow } from "../launch/index.ts";
import { catalogueOptions, checkFlowText } from "../load/index.ts";
import { PACKAGE_ROOT } from "../package/index.ts";
import { openHost, readScript } from "../pi/index.ts";
import { listRunFolders, runsHome } from "../runs/index.ts";
import { redactJson, redactText } from "../secrets/index.ts";
import {
	CLIENT_CAPABILITIES_META_KEY,
	fromJsonSchema,
	inputRequired,
	type InputRequiredResult,
	inputResponse,
	McpServer,
	type ServerContext,
} from "./sdk.ts";
import { attend, type CallView } from "./attend.ts";
import { type FlowTool, type flowCatalogue, inputOf } from "./catalogue.ts";
import { answerOf, formOf } from "./elicit.ts";
import { type LaunchRefusal, launchRun, type LiveRun } from "./live-run.ts";
import { diskReport, liveReport, RUN_REPORT_SCHEMA, type RunReport } from "./results.ts";
import type { McpSettings } from "./settings.ts";

/** What a question's form carries back to the server, sealed (the client could otherwise forge it). */
export interface Resume {
	run: string;
	question: string;
}

/** Checks a `requestState` a client echoed (its seal and age); throws when it is not one this process made. */
export type Verify = (state: string, ctx: ServerContext) => Promise<unknown>;

/** What every server instance of one process shares: the settings, the flow catalogue, the live runs. */
export interface ServerWorld {
	settings: McpSettings;
	catalogue: ReturnType<typeof flowCatalogue>;
	runs: Map<string, LiveRun>;
	mint(state: Resume): Promise<string>;
	/** A monotonic count for progress notifications: each token's values only ever grow. */
	tick(): number;
}

type ToolResult = {
	content: { type: "text"; text: string }[];
	structuredContent?: Record<string, unknown>;
	isError?: boolean;
};

const VERSION = (JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { version: string }).version;
const REPORT = RUN_REPORT_SCHEMA as unknown as Record<string, unknown>;

/** A tool's description, its schemas as JSON Schema, and its hints. */
interface ToolConfig {
	description: string;
	inputSchema: Record<string, unknown>;
	outputSchema?: Record<string, unknown>;
	annotations: Record<string, unknown>;
}

/**
 * Registers a tool whose schemas are JSON Schema (the flow's own, from its type notation). The SDK checks
 * the arguments against `inputSchema` before the handler runs, so the handler's argument type is a claim
 * the SDK has already made good.
 */
function register<A>(
	server: McpServer,
	name: string,
	config: ToolConfig,
	handler: (args: A, ctx: ServerContext) => Promise<ToolResult | InputRequiredResult>,
): void {
	server.registerTool(
		name,
		{
			description: config.description,
			inputSchema: fromJsonSchema<Record<string, unknown>>(config.inputSchema),
			...(config.outputSchema ? { outputSchema: fromJsonSchema(config.outputSchema) } : {}),
			annotations: config.annotations,
		},
		handler as unknown as (
			args: Record<string, unknown>,
			ctx: ServerContext,
		) => Promise<ToolResult | InputRequiredResult>,
	);
}

/** Builds one server instance (per stdio connection, per HTTP request on the 2026 era). */
export function buildServer(world: ServerWorld, verify: Verify): McpServer {
	const server = new McpServer(
		{ name: "pi-flows", version: VERSION },
		{ capabilities: { tools: {} }, requestState: { verify } },
	);
	const run = (tool: FlowTool) => async (args: Record<string, unknown>, ctx: ServerContext) => {
		const resumed = await resumeCall(world, server, ctx);
		if (resumed) return resumed;
		const input = inputOf(tool.flow, args);
		if (!input.ok) return failure(input.error);
		return startAndFollow(world, server, ctx, tool.flow, input.value);
	};
	for (const tool of world.catalogue.tools())
		register(
			server,
			tool.name,
			{
				description: tool.description,
				inputSchema: tool.inputSchema,
				outputSchema: REPORT,
				annotations: { title: `flow ${tool.name}`, readOnlyHint: false, openWorldHint: true },
			},
			run(tool),
		);
	register(
		server,
		"chain",
		{
			description:
				'Runs a chain of agents such as "@scout -> @worker -> @reviewer" as a flow, on a goal; handoff summaries pass between the steps. Faults come back with their column in the chain.',
			inputSchema: {
				type: "object",
				properties: {
					chain: { type: "string", description: 'The chain: "@scout -> @worker --model p/m -> @reviewer".' },
					goal: { type: "string", description: "What the chain works on." },
				},
				required: ["chain"],
				additionalProperties: false,
			},
			outputSchema: REPORT,
			annotations: { title: "chain", readOnlyHint: false, openWorldHint: true },
		},
		async (args: { chain: string; goal?: string }, ctx: ServerContext) => {
			const resumed = await resumeCall(world, server, ctx);
			if (resumed) return resumed;
			const { cwd, env, project } = world.settings;
			const judged = judgeChain(args.chain, {
				cwd,
				scope: { project },
				env,
				description: "a chain run through the MCP server",
				file: "chain.md",
			});
			if (!judged.ok) return failure("the chain does not check; nothing was run", judged.faults);
			return startAndFollow(world, server, ctx, judged.flow, args.goal?.trim() || "(no goal given)", judged.place);
		},
	);
	register(
		server,
		"flow_check",
		{
			description:
				"Checks a flow file's text (Markdown with YAML frontmatter) against the agents and flows this server sees, and returns every fault with its line, column, code and fix. Nothing runs.",
			inputSchema: {
				type: "object",
				properties: {
					text: { type: "string", description: "The whole flow file." },
					name: { type: "string", description: "The flow's file name without `.md` (default: draft)." },
				},
				required: ["text"],
				additionalProperties: false,
			},
			outputSchema: CHECK_SCHEMA,
			annotations: { title: "check a flow", readOnlyHint: true, openWorldHint: false },
		},
		async (args: { text: string; name?: string }) => {
			const { cwd, env, project } = world.settings;
			const name = (args.name ?? "draft").replace(/[^\w.-]/g, "-");
			const judged = checkFlowText(
				args.text,
				join(cwd, `${name}.md`),
				loadRoster(cwd, { project }, env),
				catalogueOptions(cwd, { project }, env),
			);
			const faults = judged.faults.map((f) => faultOut(f, cwd));
			const ok = faults.length === 0;
			return structured(
				{ ok, faults, notes: (judged.notes ?? []).map((f) => faultOut(f, cwd)) },
				ok ? `the flow checks` : faults.map((f) => `${f.line}:${f.column}: ${f.code}: ${f.message}`).join("\n"),
			);
		},
	);
	register(
		server,
		"flow_plan",
		{
			description:
				"What a flow would run, node by node: each node's model, timeout and worst case, the budgets in force and the forecast from earlier runs. Nothing runs.",
			inputSchema: {
				type: "object",
				properties: { flow: { type: "string", description: "A flow this server serves." } },
				required: ["flow"],
				additionalProperties: false,
			},
			annotations: { title: "plan a flow", readOnlyHint: true, openWorldHint: false },
		},
		async (args: { flow: string }) => {
			const tool = world.catalogue.tools().find((t) => t.name === args.flow);
			if (!tool) return failure(`no flow \`${args.flow}\` is served here (the tools list names them)`);
			const { cwd, agentDir, project, flags } = world.settings;
			const script = readScript("turns: {}\n", "plan").value;
			const host = await openHost({ cwd, agentDir, projectTrusted: project, ...(script ? { script } : {}) });
			const plan = planFlow(tool.flow, {
				resolveModel: host.resolveModel,
				...(flags.model ? { model: flags.model } : {}),
				...(flags.timeoutMs !== undefined ? { timeoutMs: flags.timeoutMs } : {}),
				...(flags.budget ? { budget: flags.budget } : {}),
				runsHome: runsHome(cwd, world.settings.runsDir),
				display: (p) => relative(cwd, p) || p,
			});
			const unknown = plan.unknown.map((f) => faultOut(f, cwd));
			return structured({ ...plan.json, unknownModels: unknown }, plan.text);
		},
	);
	register(
		server,
		"runs",
		{
			description: "Lists the runs in this server's runs folder, newest first, with how each stands.",
			inputSchema: {
				type: "object",
				properties: { limit: { type: "number", description: "At most this many (default 20)." } },
				additionalProperties: false,
			},
			annotations: { title: "runs", readOnlyHint: true, openWorldHint: false },
		},
		async (args: { limit?: number }) => {
			const limit = Math.max(1, Math.min(200, Math.floor(args.limit ?? 20)));
			const { cwd, agentDir } = world.settings;
			const rows: RunReport[] = [];
			for (const dir of listRunFolders(runsHome(cwd, world.settings.runsDir))) {
				if (rows.length >= limit) break;
				const live = world.runs.get(dir.split(/[\\/]/).pop() ?? "");
				if (live) rows.push(liveReport(live, cwd));
				else {
					const read = diskReport(dir, cwd, agentDir);
					if (read.ok) rows.push(read.report);
				}
			}
			return structured(
				{ runs: rows },
				rows.length ? rows.map((r) => `${r.run} · ${r.status}`).join("\n") : "no runs here yet",
			);
		},
	);
	const runArg = {
		type: "object",
		properties: { run: { type: "string", description: "The run's handle, as a run tool returned it." } },
		required: ["run"],
		additionalProperties: false,
	};
	register(
		server,
		"run_status",
		{
			description: "How a run started earlier stands: running, waiting for an answer, or how it ended.",
			inputSchema: runArg,
			outputSchema: REPORT,
			annotations: { title: "run status", readOnlyHint: true, openWorldHint: false },
		},
		async (args: { run: string }) => {
			const found = findRun(world, args.run);
			if (!found.ok) return failure(found.error);
			return reportResult(found.live ? liveReport(found.live, world.settings.cwd) : found.report);
		},
	);
	register(
		server,
		"run_result",
		{
			description:
				"Waits (a bounded time) for a run started earlier and returns its answer; a question it waits on is put to you as a form.",
			inputSchema: runArg,
			outputSchema: REPORT,
			annotations: { title: "run result", readOnlyHint: false, openWorldHint: true },
		},
		async (args: { run: string }, ctx: ServerContext) => {
			const resumed = await resumeCall(world, server, ctx);
			if (resumed) return resumed;
			const found = findRun(world, args.run);
			if (!found.ok) return failure(found.error);
			if (!found.live) return reportResult(found.report);
			return follow(world, server, ctx, found.live);
		},
	);
	register(
		server,
		"run_stop",
		{
			description:
				"Stops a run this server runs, as Ctrl-C does: running turns land their handoff, the journal says stopped, and `pi-flows resume` can pick it up.",
			inputSchema: runArg,
			outputSchema: REPORT,
			annotations: { title: "stop a run", readOnlyHint: false, destructiveHint: false, openWorldHint: false },
		},
		async (args: { run: string }) => {
			const found = findRun(world, args.run);
			if (!found.ok) return failure(found.error);
			if (!found.live) {
				const r = found.report;
				return r.status === "running" ? failure(`${r.run} runs in another process; stop it there`) : reportResult(r);
			}
			found.live.stop();
			await found.live.done.catch(() => undefined);
			return reportResult(liveReport(found.live, world.settings.cwd));
		},
	);
	return server;
}

/** Launches a checked flow for a call and follows it; a refusal is a tool error with the faults. */
async function startAndFollow(
	world: ServerWorld,
	server: McpServer,
	ctx: ServerContext,
	flow: CheckedFlow,
	input: Value,
	place?: (faults: readonly Fault[]) => Fault[],
): Promise<ToolResult | InputRequiredResult> {
	const call = callView(world, server, ctx);
	const launched = await launchRun(flow, input, world.settings, { attended: call.canElicit });
	if (!launched.ok) return refused(launched, place);
	world.runs.set(launched.run.id, launched.run);
	return follow(world, server, ctx, launched.run, call);
}

/** Follows a live run for this call: its report, a handle, or a question as an `input_required` result. */
async function follow(
	world: ServerWorld,
	server: McpServer,
	ctx: ServerContext,
	run: LiveRun,
	view?: CallView,
): Promise<ToolResult | InputRequiredResult> {
	const call = view ?? callView(world, server, ctx);
	const attended = await attend(run, call, world.settings.waitMs, world.settings.cwd);
	if (attended.kind === "report") return reportResult(attended.report);
	const { question } = attended;
	return inputRequired({
		inputRequests: { [question.id]: inputRequired.elicit(formOf(question.card)) },
		requestState: await world.mint({ run: run.id, question: question.id }),
	});
}

/**
 * A call that carries the answer to a question this server put (its sealed state names the run and the
 * question): the answer lands, and the call follows the run on. Undefined for a fresh call.
 */
async function resumeCall(
	world: ServerWorld,
	server: McpServer,
	ctx: ServerContext,
): Promise<ToolResult | InputRequiredResult | undefined> {
	const state = ctx.mcpReq.requestState<Resume>();
	if (!state) return undefined;
	const run = world.runs.get(state.run);
	if (!run) return failure(`the run ${state.run} is not under way in this server any more`);
	const pending = run.pending();
	if (pending?.id === state.question) {
		const reply = inputResponse(ctx.mcpReq.inputResponses, state.question);
		run.answer(
			state.question,
			answerOf(pending.card, reply.kind === "elicit" ? { action: reply.action, content: reply.content } : undefined),
		);
	}
	return follow(world, server, ctx, run);
}

/** What this call's client can do: forms (elicitation, form mode), progress, and its cancel. */
function callView(world: ServerWorld, server: McpServer, ctx: ServerContext): CallView {
	// The 2026 era carries the client's capabilities on each request; the 2025 era declared them once.
	const envelope = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as
		| { elicitation?: { form?: unknown; url?: unknown } }
		| undefined;
	const elicitation = envelope?.elicitation ?? server.server.getClientCapabilities()?.elicitation;
	// A bare `elicitation: {}` is form support (the meaning before modes existed); URL-only is no form.
	const canElicit = elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
	const token = ctx.mcpReq._meta?.progressToken;
	return {
		canElicit,
		signal: ctx.mcpReq.signal,
		...(token !== undefined
			? {
					progress: (message: string) => {
						ctx.mcpReq
							.notify({
								method: "notifications/progress",
								params: { progressToken: token, progress: world.tick(), message: redactText(message) },
							})
							.catch(() => {
								// The call ended meanwhile: there is nobody to tell.
							});
					},
				}
			: {}),
	};
}

/** A run by its handle: live in this server, or a folder of the runs folder that this person made. */
function findRun(
	world: ServerWorld,
	handle: string,
): { ok: true; live?: LiveRun; report: RunReport } | { ok: false; error: string } {
	const live = world.runs.get(handle);
	const { cwd, agentDir } = world.settings;
	if (live) return { ok: true, live, report: liveReport(live, cwd) };
	// A handle is a folder's name, never a path: nothing outside the runs folder is read through it.
	if (!/^[\w.-]+$/.test(handle) || handle === "." || handle === "..")
		return { ok: false, error: `\`${handle}\` is not a run handle (a run tool returns one as \`run\`)` };
	const home = runsHome(cwd, world.settings.runsDir);
	const dir = resolve(home, handle);
	if (!listRunFolders(home).includes(dir))
		return { ok: false, error: `no run \`${handle}\` in ${relative(cwd, home) || home}` };
	const read = diskReport(dir, cwd, agentDir);
	return read.ok ? { ok: true, report: read.report } : { ok: false, error: read.error };
}

function reportResult(report: RunReport): ToolResult {
	return {
		content: [{ type: "text", text: redactText(summary(report)) }],
		structuredContent: redactJson({ ...report }),
	};
}

/** The report in a few lines: the answer first when there is one. */
function summary(r: RunReport): string {
	const head = `${r.flow} · ${r.status} · run ${r.run} · ${r.visits} visit(s) · ${r.usage.tokens} tokens`;
	const answer =
		r.answer === undefined ? [] : [typeof r.answer === "string" ? r.answer : JSON.stringify(r.answer, null, 2)];
	const asks = r.asks.map(
		(a) => `asked at ${a.visit}: ${a.question} → ${a.via}${a.answer !== undefined ? ` (${String(a.answer)})` : ""}`,
	);
	const error = r.error ? [`failed at ${r.failedAt}: ${r.error}`] : [];
	return [...answer, head, ...asks, ...error, ...(r.next ? [r.next] : [])].join("\n");
}

function structured(value: Record<string, unknown>, text: string): ToolResult {
	return { content: [{ type: "text", text: redactText(text) }], structuredContent: redactJson(value) };
}

/** A tool error: a sentence, and the faults at their lines when there are some. */
function failure(message: string, faults: readonly Fault[] = []): ToolResult {
	const lines = faults.map((f) => `${f.file}:${f.line}:${f.column}: ${f.code}: ${faultText(f)}`);
	return { content: [{ type: "text", text: redactText([...lines, message].join("\n")) }], isError: true };
}

function refused(r: LaunchRefusal, place?: (faults: readonly Fault[]) => Fault[]): ToolResult {
	const faults = place && r.stage === "models" ? place(r.faults) : r.faults;
	const why =
		r.stage === "script"
			? "the script does not check; nothing was run"
			: r.stage === "stage"
				? "the flow cannot start here; nothing was run"
				: "nothing was run";
	return failure([...r.lines, why].join("\n"), faults);
}

/** A fault as the `flow_check` result carries it. */
function faultOut(f: Fault, cwd: string) {
	return {
		code: f.code,
		file: relative(cwd, f.file) || f.file,
		line: f.line,
		column: f.column,
		endLine: f.endLine,
		endColumn: f.endColumn,
		path: f.path,
		message: faultText(f),
		...(f.hint ? { hint: f.hint } : {}),
		...(f.expected?.length ? { expected: f.expected } : {}),
	};
}

const FAULT_SCHEMA = {
	type: "object",
	properties: {
		code: { type: "string" },
		file: { type: "string" },
		line: { type: "number" },
		column: { type: "number" },
		endLine: { type: "number" },
		endColumn: { type: "number" },
		path: { type: "string" },
		message: { type: "string" },
		hint: { type: "string" },
		expected: { type: "array", items: { type: "string" } },
	},
	required: ["code", "file", "line", "column", "endLine", "endColumn", "path", "message"],
};

const CHECK_SCHEMA = {
	type: "object",
	properties: {
		ok: { type: "boolean" },
		faults: { type: "array", items: FAULT_SCHEMA },
		notes: { type: "array", items: FAULT_SCHEMA },
	},
	required: ["ok", "faults", "notes"],
};
