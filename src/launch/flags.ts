/**
 * The flags a run is launched with from a command line, as data: read by the CLI's parser
 * (`src/cli/run-flags.ts`) and applied by every surface that starts runs with them (`pi-flows run`,
 * `chain`, and `pi-flows mcp` for each run it starts).
 */
import type { Budget } from "../engine/index.ts";
import type { TransportPolicy } from "../runtime/index.ts";

/** A run's launch flags, read and checked (`--timeout`, `--idle-timeout`, the budget, the retries). */
export interface RunFlags {
	timeoutMs?: number;
	idleMs?: number;
	budget?: Budget;
	transport?: Partial<TransportPolicy>;
	model?: string;
	/** `--script` as given (a path from the working folder). */
	script?: string;
}
