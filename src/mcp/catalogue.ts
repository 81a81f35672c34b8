/**
 * The flows the server offers as tools: every flow the scope can see (the package's, the user's, the
 * project's only with `--project`), judged as `pi-flows run` judges it. A flow that checks is a tool named
 * after it, described by its `description:`, taking its `input:` type as the tool's input schema (an
 * object type as it is, any other under one `input` property). A flow with faults, or whose name is no
 * tool name or is taken by one of the server's own tools, is left out and said once.
 *
 *   input: { topic: string, depth?: number }  →  { type: object, properties: { topic, depth }, required: [topic] }
 *   input: string                             →  { type: object, properties: { input: { type: string } } }
 */
import { statSync } from "node:fs";
import { loadRoster } from "../agents/index.ts";
import { type CheckedFlow, type Type, typeToJsonSchema, type Value } from "../language/index.ts";
import { listFlows } from "../load/index.ts";
import { readInput } from "../launch/index.ts";
import { catalogueOptions, checkFlowFile } from "../load/index.ts";
import type { McpSettings } from "./settings.ts";

/** A flow served as a tool. */
export interface FlowTool {
	name: string;
	description: string;
	inputSchema: Record<string, unknown>;
	flow: CheckedFlow;
}

/** The names of the server's own tools; a flow of one of these names is not served. */
export const OWN_TOOLS = [
	"chain",
	"flow_check",
	"flow_plan",
	"runs",
	"run_status",
	"run_result",
	"run_stop",
	"run_resume",
];

/** What MCP allows in a tool name (2025-11-25: letters, digits, `_`, `-`, `.`; at most 128). */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** The flow catalogue, read again when a flow file changed since it was last read. */
export function flowCatalogue(settings: McpSettings): { tools(): FlowTool[] } {
	let cached: { stamp: string; tools: FlowTool[] } | undefined;
	const said = new Set<string>();
	const scope = { project: settings.project };
	return {
		tools() {
			const { flows } = listFlows(settings.cwd, scope, settings.env);
			const stamp = flows.map((f) => `${f.file}@${mtime(f.file)}`).join("\n");
			if (cached?.stamp === stamp) return cached.tools;
			const roster = loadRoster(settings.cwd, scope, settings.env);
			const options = catalogueOptions(settings.cwd, scope, settings.env);
			const tools: FlowTool[] = [];
			for (const f of flows) {
				const why = !TOOL_NAME.test(f.name)
					? "its name is not a tool name"
					: OWN_TOOLS.includes(f.name)
						? "its name is one of the server's own tools"
						: undefined;
				const judged = why ? undefined : checkFlowFile(f.file, roster, options);
				const note =
					why ?? (judged?.value ? undefined : `${judged?.faults.length ?? 0} fault(s); \`pi-flows check\` shows them`);
				if (note || !judged?.value) {
					const line = `flow ${f.name} is not served: ${note}`;
					if (!said.has(line)) settings.note(line);
					said.add(line);
					continue;
				}
				const flow = judged.value;
				tools.push({
					name: f.name,
					description: flow.description?.value ?? `Runs the flow ${f.name}.`,
					inputSchema: inputSchemaOf(flow.input.value),
					flow,
				});
			}
			cached = { stamp, tools };
			return tools;
		},
	};
}

/** The tool's input schema for a flow's `input:` type. */
export function inputSchemaOf(type: Type): Record<string, unknown> {
	if (type.kind === "object") return typeToJsonSchema(type);
	const input = typeToJsonSchema(type);
	return {
		type: "object",
		properties: {
			input: { ...input, description: input.description ?? "What the flow works on (its `input:`)." },
		},
		required: ["input"],
		additionalProperties: false,
	};
}

/** The tool's arguments as the flow's input, read as `pi-flows run` reads its input. */
export function inputOf(
	flow: CheckedFlow,
	args: Record<string, unknown>,
): { ok: true; value: Value } | { ok: false; error: string } {
	const type = flow.input.value;
	const given = type.kind === "object" ? args : args.input;
	const text = type.kind === "string" && typeof given === "string" ? given : JSON.stringify(given ?? null);
	return readInput(text, type, { flow: flow.name.value, usage: `the tool's \`input\` argument` });
}

function mtime(file: string): number {
	try {
		return statSync(file).mtimeMs;
	} catch {
		// Gone since it was listed: the next listing drops it.
		return 0;
	}
}
