/**
 * Turns the evaluator's tool specs into pi tool definitions. The parameters are plain JSON Schema, which
 * pi validates as it validates TypeBox schemas (TypeBox schemas are JSON Schema); a refused call goes back
 * to the model as an error result, so a model that submits the wrong shape can correct itself.
 */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import type { ToolSpec } from "../runtime/index.ts";
import type { Usage } from "../runtime/index.ts";

/** Our usage in pi-ai's shape, so pi's session totals include it (the cost split is not known, so it is all in the total). */
export function piUsage(u: Usage) {
	return {
		input: u.input,
		output: u.output,
		cacheRead: u.cacheRead,
		cacheWrite: u.cacheWrite,
		totalTokens: u.totalTokens,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: u.cost },
	};
}

/** pi's definition of one of our tools; `inactive`: registered, not declared until a watermark declares it. */
export function toPiTool(spec: ToolSpec, inactive = false): ToolDefinition {
	return {
		name: spec.name,
		label: spec.label,
		description: spec.description,
		parameters: spec.parameters as unknown as ToolDefinition["parameters"],
		// Registered, not declared: a watermark declares it (src/pi/subagent.ts, `toolSelection`).
		...(inactive ? { defaultActive: false } : {}),
		async execute(_toolCallId, params, signal) {
			const outcome = await spec.execute(params as Record<string, unknown>, signal);
			return {
				content: [{ type: "text", text: outcome.text }],
				details: outcome.details ?? null,
				...(outcome.isError ? { isError: true } : {}),
				...(outcome.terminate ? { terminate: true } : {}),
				...(outcome.usage ? { usage: piUsage(outcome.usage) } : {}),
			};
		},
	} as ToolDefinition;
}
