/**
 * How a run tool's call follows its run. A call that starts or resumes a run gets a task when its client
 * declared the Tasks extension; otherwise it follows the run for the server's wait (`attend`): a question
 * on the way goes back to the client as a form, and the client's next call (carrying the answer and the
 * sealed `requestState`) lands it and follows on. Every result is redacted.
 */
import type { Fault } from "../faults/index.ts";
import { faultText } from "../faults/index.ts";
import type { CheckedFlow, Value } from "../language/index.ts";
import type { InDoubt } from "../runs/index.ts";
import { redactJson, redactText } from "../secrets/index.ts";
import { attend, type CallView } from "./attend.ts";
import type { LaunchRefusal, RunBackend, Started } from "./backend.ts";
import { formatTraceparent, parseTraceparent } from "../telemetry/index.ts";
import type { flowCatalogue } from "./catalogue.ts";
import type { ToolAnswer } from "./dispatch.ts";
import { answerOf, formOf } from "./elicit.ts";
import type { LiveRun } from "./live-run.ts";
import { liveReport, type RunReport } from "./results.ts";
import {
	type CallToolResult,
	CLIENT_CAPABILITIES_META_KEY,
	inputRequired,
	inputResponse,
	type McpServer,
	type ServerContext,
	TRACEPARENT_META_KEY,
} from "./sdk.ts";
import type { McpSettings } from "./settings.ts";
import { declaresTasks, type TaskTable } from "./tasks.ts";

/** What a question's form carries back to the server, sealed (the client could otherwise forge it). */
export interface Resume {
	run: string;
	question: string;
}

/** Checks a `requestState` a client echoed (its seal and age); throws when it is not one this process made. */
export type Verify = (state: string, ctx: ServerContext) => Promise<unknown>;

/** What every server instance of one process shares: the settings, the flows, the backend, the runs. */
export interface ServerWorld {
	settings: McpSettings;
	catalogue: ReturnType<typeof flowCatalogue>;
	backend: RunBackend;
	/** The runs this process follows, by handle. */
	runs: Map<string, LiveRun>;
	tasks: TaskTable;
	mint(state: Resume): Promise<string>;
	/** A monotonic count for progress notifications: each token's values only ever grow. */
	tick(): number;
}

/**
 * The call's trace context, as the MCP conventions for OpenTelemetry carry it (`_meta.traceparent`); a value
 * that is not a well-formed `traceparent` is ignored, as a propagator ignores it.
 */
function traceOf(ctx: ServerContext): { traceparent?: string } {
	const meta = ctx.mcpReq._meta as Record<string, unknown> | undefined;
	const context = parseTraceparent(meta?.[TRACEPARENT_META_KEY]);
	const text = context ? formatTraceparent(context) : undefined;
	return text ? { traceparent: text } : {};
}

/** Launches a checked flow for a call and follows it (or makes it a task); a refusal is a tool error. */
export async function startAndFollow(
	world: ServerWorld,
	server: McpServer,
	ctx: ServerContext,
	flow: CheckedFlow,
	input: Value,
	place?: (faults: readonly Fault[]) => Fault[],
): Promise<ToolAnswer> {
	const call = callView(world, server, ctx);
	const launched = await world.backend.launch(flow, input, { attended: call.canElicit, ...traceOf(ctx) });
	return followStarted(world, server, ctx, call, launched, place);
}

/** Resumes a run by its handle for a call, and follows it as a started run is followed. */
export async function resumeAndFollow(
	world: ServerWorld,
	server: McpServer,
	ctx: ServerContext,
	handle: string,
	inDoubt: InDoubt | undefined,
): Promise<ToolAnswer> {
	const live = world.runs.get(handle);
	if (live && !live.outcome())
		return failure(`the run ${handle} is under way in this server; run_stop stops it, then run_resume picks it up`);
	const call = callView(world, server, ctx);
	const resumed = await world.backend.resume(handle, {
		attended: call.canElicit,
		...traceOf(ctx),
		...(inDoubt ? { inDoubt } : {}),
	});
	return followStarted(world, server, ctx, call, resumed);
}

async function followStarted(
	world: ServerWorld,
	server: McpServer,
	ctx: ServerContext,
	call: CallView,
	started: Started,
	place?: (faults: readonly Fault[]) => Fault[],
): Promise<ToolAnswer> {
	if (!started.ok) return refused(started, place);
	world.runs.set(started.run.id, started.run);
	if (declaresTasks(ctx)) return world.tasks.create(started.run, call.canElicit);
	return follow(world, server, ctx, started.run, call);
}

/** Follows a live run for this call: its report, a handle, or a question as an `input_required` result. */
export async function follow(
	world: ServerWorld,
	server: McpServer,
	ctx: ServerContext,
	run: LiveRun,
	view?: CallView,
): Promise<ToolAnswer> {
	const call = view ?? callView(world, server, ctx);
	const attended = await attend(run, call, world.settings.waitMs, world.settings.cwd);
	if (attended.kind === "report") return reportResult(attended.report);
	const { question } = attended;
	return inputRequired({
		inputRequests: { [question.id]: inputRequired.elicit(redactJson(formOf(question.card))) },
		requestState: await world.mint({ run: run.id, question: question.id }),
	});
}

/**
 * A call that carries the answer to a question this server put (its sealed state names the run and the
 * question): the answer lands, and the call follows the run on. Undefined for a fresh call.
 */
export async function resumeCall(
	world: ServerWorld,
	server: McpServer,
	ctx: ServerContext,
): Promise<ToolAnswer | undefined> {
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
export function callView(world: ServerWorld, server: McpServer, ctx: ServerContext): CallView {
	// The 2026 era carries the client's capabilities on each request; the 2025 era declared them once.
	const envelope = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as
		| { elicitation?: { form?: unknown; url?: unknown } }
		| undefined;
	const elicitation = envelope ? envelope.elicitation : server.server.getClientCapabilities()?.elicitation;
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

/** A run's report as a tool result: the text says the same as the structure, the answer first. */
export function reportResult(report: RunReport): CallToolResult {
	return {
		content: [{ type: "text", text: redactText(summary(report)) }],
		structuredContent: redactJson({ ...report }),
	};
}

/** The tool result a call following `run` to its end returns (a task's `result`). */
export function runResult(run: LiveRun, cwd: string): CallToolResult {
	return reportResult(liveReport(run, cwd));
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

/** A tool result with structure and its text. */
export function structured(value: Record<string, unknown>, text: string): CallToolResult {
	return { content: [{ type: "text", text: redactText(text) }], structuredContent: redactJson(value) };
}

/** A tool error: a sentence, and the faults at their lines when there are some. */
export function failure(message: string, faults: readonly Fault[] = []): CallToolResult {
	const lines = faults.map((f) => `${f.file}:${f.line}:${f.column}: ${f.code}: ${faultText(f)}`);
	return { content: [{ type: "text", text: redactText([...lines, message].join("\n")) }], isError: true };
}

function refused(r: LaunchRefusal, place?: (faults: readonly Fault[]) => Fault[]): CallToolResult {
	const faults = place && r.stage === "models" ? place(r.faults) : r.faults;
	const why =
		r.stage === "script"
			? "the script does not check; nothing was run"
			: r.stage === "stage"
				? "the flow cannot start here; nothing was run"
				: "nothing was run";
	return failure([...r.lines, why].join("\n"), faults);
}
