/**
 * What a chain adds to a run beyond its nodes: the handoff summaries between steps and the chain-wide
 * flags that are run settings rather than node keys (`--budget-total`, `--budget-warning`, `--backoff`,
 * `--max-history`). Every flag is applied somewhere; none is parsed and dropped.
 */
import { type Budget, budgetInForce, type RunPlugin } from "../engine/index.ts";
import type { CheckedFlow } from "../language/index.ts";
import { chainHandoffs, parseChain } from "../chain/index.ts";

/** Run options for a flow written as a chain; empty for any other flow. */
export function chainRunOptions(
	flow: CheckedFlow,
	cwd: string,
): { plugins: RunPlugin[]; budget?: Budget; retryBackoffMs?: number } {
	if (!flow.chain) return { plugins: [] };
	const parsed = parseChain(flow.chain.value, { file: flow.file });
	const globals = parsed.value?.globals ?? {};
	const steps = flow.nodes.map((n) => ({
		id: n.id.value,
		task: flow.prompts.get(n.id.value) ?? (n.kind === "flow" ? `flow ${n.callee?.value}` : n.id.value),
	}));
	// The chain's budget beside the flow's own, as every launch computes it (no launch flags here).
	const budget = budgetInForce(flow).budget;
	return {
		plugins: [
			chainHandoffs({ cwd, steps, ...(globals.maxHistory !== undefined ? { maxHistory: globals.maxHistory } : {}) }),
		],
		...(budget ? { budget } : {}),
		...(globals.backoffMs !== undefined ? { retryBackoffMs: globals.backoffMs } : {}),
	};
}
