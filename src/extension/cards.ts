/**
 * What pi shows of pi-flows' commands before any of their code is loaded: each command's name and one-line
 * description. The extension's entry registers the commands from these cards and loads a command's code
 * when it first runs (or completes); the commands' own registrations read their descriptions from here, so
 * the two never disagree.
 */

/** Description of each lazily loaded command, by name. */
export const COMMAND_CARDS = {
	flows: "List the flows with their bounds or faults; /flows <name> shows one flow's plan and graph",
	run: "Run a flow: /run <flow> [input] [--model M] [--timeout T] [--budget-tokens N] [--script FILE] [--retries N]",
	step: "Walk a flow one agent turn at a time, or run one turn of an agent: /step <flow or agent> [input] [--model M] [--timeout T] [--script S]",
} as const satisfies Record<string, string>;
