/**
 * A tool the evaluator hands a subagent (`submit`, `verdict`, `finish`, ...), described without pi's
 * types so the evaluator stays offline-testable; `src/pi/` turns it into pi's tool definition.
 */
import type { Usage } from "./usage.ts";

/** What a tool call gave back. */
export interface ToolOutcome {
	/** The text the model reads. */
	text: string;
	/** A refusal the model should correct (the call is sent back, the turn goes on). */
	isError?: boolean;
	/** Ends the turn after this call: no further model request (pi's `terminate`). */
	terminate?: boolean;
	/** What the tool itself spent on models (a delegated subagent), so pi's session totals include it. */
	usage?: Usage;
	details?: unknown;
}

/** A tool offered to one subagent. */
export interface ToolSpec {
	name: string;
	label: string;
	/** What the model is told the tool is for. */
	description: string;
	/** JSON Schema of the arguments (an object schema). */
	parameters: Record<string, unknown>;
	execute(args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolOutcome>;
	/**
	 * Arguments a dry run answers with when no script does: a call this tool accepts, made up without a
	 * model. Only the tool knows what it accepts (`submit` knows its node's type), so it says it here.
	 */
	sampleArgs?: () => Record<string, unknown>;
}
