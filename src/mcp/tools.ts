/**
 * The server's tools on one `McpServer`: a tool per flow the scope can see, `chain`, `flow_check`,
 * `flow_plan`, and `runs`, `run_status`, `run_result`, `run_stop`, `run_resume` for runs started
 * earlier. A run tool starts its run through the CLI's launch on the server's backend, then follows it
 * (`follow.ts`: a task, or a bounded wait with questions as forms); the Tasks extension's methods are
 * served beside the tools (`tasks.ts`). Every result is redacted.
 */
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { loadRoster } from "../agents/index.ts";
import type { Fault } from "../faults/index.ts";
import { faultText } from "../faults/index.ts";
import { judgeChain, planFlow } from "../launch/index.ts";
import { catalogueOptions, checkFlowText } from "../load/index.ts";
import { PACKAGE_ROOT } from "../package/index.ts";
import { openHost, readScript } from "../pi/index.ts";
import { runsHome } from "../runs/index.ts";
import { type FlowTool, inputOf } from "./catalogue.ts";
import { type ToolHandler, ToolTable } from "./dispatch.ts";
import {
	failure,
	follow,
	reportResult,
	resumeAndFollow,
	resumeCall,
	type ServerWorld,
	startAndFollow,
	structured,
	type Verify,
} from "./follow.ts";
import type { LiveRun } from "./live-run.ts";
import { liveReport, RUN_REPORT_SCHEMA, type RunReport } from "./results.ts";
import { McpServer } from "./sdk.ts";
import { serveTasks, TASKS_EXTENSION } from "./tasks.ts";

export type { Resume, ServerWorld, Verify } from "./follow.ts";

const VERSION = (JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { version: string }).version;
const REPORT = RUN_REPORT_SCHEMA as unknown as Record<string, unknown>;

/** A handler typed by the arguments its input schema admits (the table checks them before it runs). */
const typed = <A>(handler: (args: A, ctx: Parameters<ToolHandler>[1]) => ReturnType<ToolHandler>) =>
	handler as unknown as ToolHandler;

/**
 * Builds one server instance (per stdio connection, per HTTP request on the 2026 era, per HTTP session on
 * the 2025 era). The Tasks extension is declared to the 2026 era only: it rides per-request capabilities,
 * which the 2025 era does not have.
 */
export function buildServer(world: ServerWorld, verify: Verify, era: "legacy" | "modern"): McpServer {
	const capabilities = { tools: {}, ...(era === "modern" ? { extensions: { [TASKS_EXTENSION]: {} } } : {}) };
	const server = new McpServer({ name: "pi-flows", version: VERSION }, { capabilities, requestState: { verify } });
	const tools = new ToolTable();
	const register = (name: string, config: Parameters<ToolTable["add"]>[2], handler: ToolHandler) =>
		tools.add(server, name, config, handler);
	const run =
		(tool: FlowTool): ToolHandler =>
		async (args, ctx) => {
			const resumed = await resumeCall(world, server, ctx);
			if (resumed) return resumed;
			const input = inputOf(tool.flow, args);
			if (!input.ok) return failure(input.error);
			return startAndFollow(world, server, ctx, tool.flow, input.value);
		};
	for (const tool of world.catalogue.tools())
		register(
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
		typed(async (args: { chain: string; goal?: string }, ctx) => {
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
		}),
	);
	register(
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
		typed(async (args: { text: string; name?: string }) => {
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
		}),
	);
	register(
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
		typed(async (args: { flow: string }) => {
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
		}),
	);
	register(
		"runs",
		{
			description:
				"Lists the runs of this server's backend (its runs folder, or the DBOS database), newest first, with how each stands.",
			inputSchema: {
				type: "object",
				properties: { limit: { type: "number", description: "At most this many (default 20)." } },
				additionalProperties: false,
			},
			annotations: { title: "runs", readOnlyHint: true, openWorldHint: false },
		},
		typed(async (args: { limit?: number }) => {
			const limit = Math.max(1, Math.min(200, Math.floor(args.limit ?? 20)));
			const rows: RunReport[] = [];
			for (const handle of await world.backend.list(limit)) {
				const found = await findRun(world, handle);
				if (found.ok) rows.push(found.report);
			}
			return structured(
				{ runs: rows },
				rows.length ? rows.map((r) => `${r.run} · ${r.status}`).join("\n") : "no runs here yet",
			);
		}),
	);
	const runArg = {
		type: "object",
		properties: { run: { type: "string", description: "The run's handle, as a run tool returned it." } },
		required: ["run"],
		additionalProperties: false,
	};
	register(
		"run_status",
		{
			description: "How a run started earlier stands: running, waiting for an answer, or how it ended.",
			inputSchema: runArg,
			outputSchema: REPORT,
			annotations: { title: "run status", readOnlyHint: true, openWorldHint: false },
		},
		typed(async (args: { run: string }) => {
			const found = await findRun(world, args.run);
			return found.ok ? reportResult(found.report) : failure(found.error);
		}),
	);
	register(
		"run_result",
		{
			description:
				"Waits (a bounded time) for a run started earlier and returns its answer; a question it waits on is put to you as a form.",
			inputSchema: runArg,
			outputSchema: REPORT,
			annotations: { title: "run result", readOnlyHint: false, openWorldHint: true },
		},
		typed(async (args: { run: string }, ctx) => {
			const resumed = await resumeCall(world, server, ctx);
			if (resumed) return resumed;
			const found = await findRun(world, args.run);
			if (!found.ok) return failure(found.error);
			if (!found.live || found.live.outcome()) return reportResult(found.report);
			return follow(world, server, ctx, found.live);
		}),
	);
	register(
		"run_stop",
		{
			description:
				"Stops a run as Ctrl-C does: running turns land their handoff, the journal says stopped, and run_resume picks it up.",
			inputSchema: runArg,
			outputSchema: REPORT,
			annotations: { title: "stop a run", readOnlyHint: false, destructiveHint: false, openWorldHint: false },
		},
		typed(async (args: { run: string }) => {
			const live = world.runs.get(args.run);
			if (!live || live.outcome()) {
				const read = await world.backend.stopElsewhere(args.run);
				return read.ok ? reportResult(read.report) : failure(read.error);
			}
			live.stop();
			await live.done.catch(() => undefined);
			return reportResult(liveReport(live, world.settings.cwd));
		}),
	);
	register(
		"run_resume",
		{
			description:
				'Resumes a run that stopped, failed for a reason the flow did not decide, or was cut off, from its journal, as `pi-flows resume` does: ended visits are replayed, answered questions are not asked again, and the run is followed as a new call\'s is. A visit cut after calling a tool that writes is in doubt (its edits may be in the tree): the resume is refused, saying so, unless inDoubt is "rerun" (run it again from its start).',
			inputSchema: {
				type: "object",
				properties: {
					run: { type: "string", description: "The run's handle, as a run tool returned it." },
					inDoubt: {
						type: "string",
						enum: ["rerun", "stop"],
						description:
							'What to do with a visit cut after it may have written: "rerun" runs it again from its start; "stop" (the default) refuses the resume.',
					},
				},
				required: ["run"],
				additionalProperties: false,
			},
			outputSchema: REPORT,
			annotations: { title: "resume a run", readOnlyHint: false, destructiveHint: false, openWorldHint: true },
		},
		typed(async (args: { run: string; inDoubt?: "rerun" | "stop" }, ctx) => {
			const resumed = await resumeCall(world, server, ctx);
			if (resumed) return resumed;
			return resumeAndFollow(world, server, ctx, args.run, args.inDoubt);
		}),
	);
	tools.serve(server);
	if (era === "modern") serveTasks(server, world.tasks);
	return server;
}

/** A run by its handle: followed by this server, or read from the backend (a folder, the database). */
async function findRun(
	world: ServerWorld,
	handle: string,
): Promise<{ ok: true; live?: LiveRun; report: RunReport } | { ok: false; error: string }> {
	const live = world.runs.get(handle);
	if (live) return { ok: true, live, report: liveReport(live, world.settings.cwd) };
	return world.backend.read(handle);
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
