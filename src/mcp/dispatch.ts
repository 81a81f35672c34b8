/**
 * `tools/call`, answered by our own handler on the SDK's low-level server. The SDK's `McpServer` lists the
 * tools (their schemas projected for each era) and its call handler checks every result against the
 * tool's output schema, which a Tasks extension answer (`resultType: "task"`, no tool result yet) cannot
 * pass; so the call is ours: the arguments are checked against the tool's input schema and a result
 * against its output schema, as the SDK checks them, a task or an `input_required` round goes out as it
 * is, and a tool result is projected for the era by the SDK's own projection. Arguments or a result that
 * do not check, or a tool that throws, make a tool error, as in the SDK.
 *
 *   tools.add("hello", schemas, handler); tools.serve(server)   // after every `registerTool`
 */
import { redactText } from "../secrets/index.ts";
import {
	type CallToolResult,
	fromJsonSchema,
	type InputRequiredResult,
	isInputRequiredResult,
	type McpServer,
	ProtocolError,
	ProtocolErrorCode,
	type ServerContext,
} from "./sdk.ts";

/** A tool's answer: a result, a round asking for input, or a task (`src/mcp/tasks.ts`). */
export type ToolAnswer = CallToolResult | InputRequiredResult | TaskAnswer;

/** A Tasks extension answer to a call: the task's seed state (`resultType: "task"`). */
export interface TaskAnswer {
	resultType: "task";
	taskId: string;
	status: string;
	[key: string]: unknown;
}

/** A tool's call handler; the arguments have passed the tool's input schema. */
export type ToolHandler = (args: Record<string, unknown>, ctx: ServerContext) => Promise<ToolAnswer>;

/** A tool's description, its schemas as JSON Schema, and its hints. */
export interface ToolConfig {
	description: string;
	inputSchema: Record<string, unknown>;
	outputSchema?: Record<string, unknown>;
	annotations: Record<string, unknown>;
}

interface Entry {
	input: ReturnType<typeof fromJsonSchema<Record<string, unknown>>>;
	output?: { json: Record<string, unknown>; schema: ReturnType<typeof fromJsonSchema> };
	handler: ToolHandler;
}

/** The tools of one server instance, listed by the SDK and called through {@link ToolTable.serve}. */
export class ToolTable {
	readonly #tools = new Map<string, Entry>();

	/** Registers a tool with the SDK (for `tools/list`) and here (for `tools/call`). */
	add(server: McpServer, name: string, config: ToolConfig, handler: ToolHandler): void {
		const input = fromJsonSchema<Record<string, unknown>>(config.inputSchema);
		server.registerTool(
			name,
			{
				description: config.description,
				inputSchema: input,
				...(config.outputSchema ? { outputSchema: fromJsonSchema(config.outputSchema) } : {}),
				annotations: config.annotations,
			},
			// Never called: `serve` answers `tools/call` for every tool registered here.
			async () => ({ content: [], isError: true }),
		);
		const output = config.outputSchema
			? { json: config.outputSchema, schema: fromJsonSchema(config.outputSchema) }
			: undefined;
		this.#tools.set(name, { input, ...(output ? { output } : {}), handler });
	}

	/** Takes `tools/call` over from the `McpServer`; call it once every tool is added. */
	serve(server: McpServer): void {
		const low = server.server;
		low.setRequestHandler("tools/call", async (request, ctx) => {
			const { name } = request.params;
			const tool = this.#tools.get(name);
			if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} not found`);
			const checked = await tool.input["~standard"].validate(request.params.arguments ?? {});
			if (checked.issues) {
				const why = checked.issues.map((i) => i.message).join("; ");
				return toolError(`Input validation error: Invalid arguments for tool ${name}: ${why}`);
			}
			let answer: ToolAnswer;
			try {
				answer = await tool.handler(checked.value, ctx);
			} catch (error) {
				return toolError((error as Error).message);
			}
			if (isInputRequiredResult(answer)) return answer;
			// A task's seed state is the answer itself; the SDK stamps nothing over a `resultType` it is given.
			if ("resultType" in answer && answer.resultType === "task") return answer as unknown as CallToolResult;
			const result = answer as CallToolResult;
			// A result is held to the tool's output schema, as the SDK's own call handler holds it.
			if (tool.output && !result.isError) {
				const held = await tool.output.schema["~standard"].validate(result.structuredContent);
				if (held.issues) {
					const why = held.issues.map((i) => i.message).join("; ");
					return toolError(`Output validation error: Invalid structured content for tool ${name}: ${why}`);
				}
			}
			return low.projectCallToolResult(result, tool.output?.json);
		});
	}
}

function toolError(message: string): CallToolResult {
	return { content: [{ type: "text", text: redactText(message) }], isError: true };
}
