/**
 * The MCP Tasks extension (`io.modelcontextprotocol/tasks`, modelcontextprotocol/ext-tasks, revision
 * 2026-07-28), served on the SDK's low-level request handlers: SDK 2.x has no server side for it. A
 * client that declares the extension in a call's capabilities gets its run as a task: the call answers at
 * once with the task's seed state (`resultType: "task"`, `taskId`, `status`, `ttlMs`, `pollIntervalMs`),
 * `tasks/get` says how the run stands (working, with the last visit; `input_required`, carrying an ask
 * node's form in `inputRequests`; completed, carrying the tool result a call would have returned;
 * cancelled), `tasks/update` carries the form's answer back, and `tasks/cancel` stops the run the way
 * Ctrl-C does, so it stays resumable (`run_resume`). Progress notifications are not sent for a task (the
 * extension does not carry them); its `statusMessage` says where the run is.
 *
 *   tools/call hello {…, _meta: {clientCapabilities: {extensions: {tasks: {}}}}}  →  { resultType: "task", taskId, status: "working" }
 *   tasks/get { taskId }  →  { status: "input_required", inputRequests: { q1: { method: "elicitation/create", … } } }
 */
import { randomBytes } from "node:crypto";
import { redactJson } from "../secrets/index.ts";
import { answerOf, formOf } from "./elicit.ts";
import type { TaskAnswer } from "./dispatch.ts";
import type { LiveRun, Question } from "./live-run.ts";
import { liveReport } from "./results.ts";
import {
	type CallToolResult,
	CLIENT_CAPABILITIES_META_KEY,
	fromJsonSchema,
	inputResponse,
	type InputResponseView,
	type McpServer,
	ProtocolError,
	ProtocolErrorCode,
	type ServerContext,
} from "./sdk.ts";

/** The extension's identifier, as clients and servers declare it. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** How long a task is kept from its creation: a person may come back to a long run the next day. */
export const TASK_TTL_MS = 24 * 60 * 60_000;

/** How often a client is asked to poll: a flow's visits take seconds to minutes. */
export const TASK_POLL_MS = 1000;

/** The code for a client that did not declare a capability the request needs (the extension's -32021). */
const MISSING_CAPABILITY = -32021;

/** A task of this server: the run it follows, and what its client has been asked. */
interface TaskRecord {
	taskId: string;
	run: LiveRun;
	created: number;
	updated: number;
	cancelled: boolean;
	/** The question handed to this task's client and not answered yet. */
	question?: Question;
	/** Why the run could not be followed to its end (a JSON-RPC error for `failed`). */
	failure?: string;
	detach(): void;
}

/** Whether a request declared the Tasks extension in its per-request capabilities (2026-07-28). */
export function declaresTasks(ctx: ServerContext): boolean {
	const caps = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as
		| { extensions?: Record<string, unknown> }
		| undefined;
	const declared = caps?.extensions?.[TASKS_EXTENSION];
	return typeof declared === "object" && declared !== null;
}

/**
 * The tasks of one server process, shared by its server instances (one per stdio connection, one per
 * HTTP request on the 2026 era). A task's id is its bearer: 128 random bits, never listed to anyone.
 */
export class TaskTable {
	readonly #tasks = new Map<string, TaskRecord>();
	readonly #resultOf: (run: LiveRun) => CallToolResult;
	readonly #cwd: string;

	/** `resultOf`: the tool result a call following the run to its end would have returned. */
	constructor(cwd: string, resultOf: (run: LiveRun) => CallToolResult) {
		this.#cwd = cwd;
		this.#resultOf = resultOf;
	}

	/** Makes `run` a task; `canElicit`: the creating client answers forms, so questions come to it. */
	create(run: LiveRun, canElicit: boolean): TaskAnswer {
		this.#purge();
		const now = Date.now();
		const task: TaskRecord = {
			taskId: randomBytes(16).toString("base64url"),
			run,
			created: now,
			updated: now,
			cancelled: false,
			detach: () => {},
		};
		const touch = () => {
			task.updated = Date.now();
		};
		task.detach = run.attach({
			canElicit,
			onQuestion: (question) => {
				task.question = question;
				touch();
			},
			onEvent: touch,
		});
		run.done.then(
			() => {
				touch();
				task.detach();
			},
			(error: unknown) => {
				task.failure = (error as Error).message;
				touch();
				task.detach();
			},
		);
		this.#tasks.set(task.taskId, task);
		// The seed state is a bare task: what it waits on, or carries, is for `tasks/get` to say.
		const { inputRequests: _i, result: _r, error: _e, ...seed } = this.#view(task);
		return { resultType: "task", ...seed } as TaskAnswer;
	}

	/** The task as `tasks/get` answers it, or undefined when there is no such task (any more). */
	get(taskId: string): Record<string, unknown> | undefined {
		this.#purge();
		const task = this.#tasks.get(taskId);
		return task ? this.#view(task) : undefined;
	}

	/**
	 * Lands the client's answer to the task's outstanding question (`reply` reads one `inputResponses`
	 * entry); false when there is no such task. Keys that are not outstanding (never issued, answered
	 * already, settled by a timeout) are ignored, as the extension asks.
	 */
	update(taskId: string, reply: (key: string) => InputResponseView): boolean {
		const task = this.#tasks.get(taskId);
		if (!task) return false;
		const q = task.question;
		const answer = q ? reply(q.id) : undefined;
		if (q && answer?.kind === "elicit" && task.run.pending()?.id === q.id) {
			task.question = undefined;
			task.run.answer(q.id, answerOf(q.card, { action: answer.action, content: answer.content }));
			task.updated = Date.now();
		}
		return true;
	}

	/** Stops the task's run as Ctrl-C does; false when there is no such task. */
	cancel(taskId: string): boolean {
		const task = this.#tasks.get(taskId);
		if (!task) return false;
		if (!task.run.outcome()) {
			task.cancelled = true;
			task.run.stop();
			task.updated = Date.now();
		}
		return true;
	}

	#view(task: TaskRecord): Record<string, unknown> {
		// A form's reads and a run's messages carry agents' words: redacted as every writer's are.
		return redactJson(this.#state(task));
	}

	#state(task: TaskRecord): Record<string, unknown> {
		const base = {
			taskId: task.taskId,
			createdAt: new Date(task.created).toISOString(),
			lastUpdatedAt: new Date(task.updated).toISOString(),
			ttlMs: TASK_TTL_MS,
			pollIntervalMs: TASK_POLL_MS,
		};
		const { run } = task;
		if (task.failure)
			return {
				...base,
				status: "failed",
				statusMessage: task.failure,
				error: { code: ProtocolErrorCode.InternalError, message: task.failure },
			};
		if (run.outcome()) {
			const report = liveReport(run, this.#cwd);
			if (task.cancelled && report.status === "stopped")
				return { ...base, status: "cancelled", statusMessage: `stopped as at Ctrl-C; ${report.next ?? ""}`.trim() };
			// The tool result as the call would have carried it on this revision, `resultType` and all.
			const result = { ...this.#resultOf(run), resultType: "complete" };
			return { ...base, status: "completed", statusMessage: `${run.flow}: ${report.status}`, result };
		}
		const q = task.question;
		if (q && run.pending()?.id === q.id)
			return {
				...base,
				status: "input_required",
				statusMessage: q.card.question,
				inputRequests: { [q.id]: { method: "elicitation/create", params: formOf(q.card) } },
			};
		const p = run.progress();
		const where = task.cancelled ? "stopping" : `${p.ended} visit(s) ended${p.last ? `; at ${p.last}` : ""}`;
		return { ...base, status: "working", statusMessage: `${run.flow}: run ${run.id}; ${where}` };
	}

	/** Forgets tasks past their time to live whose runs have ended. */
	#purge(): void {
		const now = Date.now();
		for (const [id, task] of this.#tasks)
			if (now - task.created > TASK_TTL_MS && (task.run.outcome() || task.failure)) this.#tasks.delete(id);
	}
}

const TASK_ID = fromJsonSchema<{ taskId: string }>({
	type: "object",
	properties: { taskId: { type: "string" } },
	required: ["taskId"],
});

/** Serves `tasks/get`, `tasks/update` and `tasks/cancel` on `server` from `table`. */
export function serveTasks(server: McpServer, table: TaskTable): void {
	const low = server.server;
	const gate = (ctx: ServerContext) => {
		if (!declaresTasks(ctx))
			throw new ProtocolError(MISSING_CAPABILITY, "Missing required client capability", {
				requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
			});
	};
	const unknown = (taskId: string) =>
		new ProtocolError(
			ProtocolErrorCode.InvalidParams,
			`Failed to retrieve task: no task ${taskId} (it may have expired)`,
		);
	low.setRequestHandler("tasks/get", { params: TASK_ID }, async (params, ctx) => {
		gate(ctx);
		const task = table.get(params.taskId);
		if (!task) throw unknown(params.taskId);
		return task;
	});
	low.setRequestHandler("tasks/update", { params: TASK_ID }, async (params, ctx) => {
		gate(ctx);
		// The SDK lifts `inputResponses` out of every request's params, as it does for a call's next round.
		if (!table.update(params.taskId, (key) => inputResponse(ctx.mcpReq.inputResponses, key)))
			throw unknown(params.taskId);
		return {};
	});
	low.setRequestHandler("tasks/cancel", { params: TASK_ID }, async (params, ctx) => {
		gate(ctx);
		if (!table.cancel(params.taskId)) throw unknown(params.taskId);
		return {};
	});
}
