/**
 * The closed tables of the language: which keys a flow and each node kind take, and which words an id
 * may not be (conditions read ids, so ids follow CEL's identifier rules and avoid its reserved words).
 */
import { RESERVED_WORDS as CEL_RESERVED } from "../syntax/index.ts";

/** Keys of the frontmatter. */
export const FLOW_KEYS = [
	"name",
	"description",
	"input",
	"model",
	"timeout",
	"nodes",
	"chain",
	"budget",
	"handoff",
	"transport",
] as const;

/** Kind keys: a node is `id` plus exactly one of these (twins count as one kind). */
export const KIND_KEYS = [
	"agent",
	"agent-from",
	"choice",
	"parallel",
	"map",
	"map-from",
	"loop",
	"check",
	"commit",
	"ask",
	"ask-from",
	"flow",
	"swarm",
] as const;

/** The kind a kind key makes. */
export const KIND_OF: Record<(typeof KIND_KEYS)[number], string> = {
	agent: "agent",
	"agent-from": "agent",
	choice: "choice",
	parallel: "parallel",
	map: "map",
	"map-from": "map",
	loop: "loop",
	check: "check",
	commit: "commit",
	ask: "ask",
	"ask-from": "ask",
	flow: "flow",
	swarm: "swarm",
};

/** Keys each kind takes besides `id`, its kind key and `on-fail`. */
export const NODE_KEYS: Record<string, readonly string[]> = {
	agent: [
		"among",
		"reads",
		"output",
		"memory",
		"verdict",
		"retry",
		"timeout",
		"model",
		"thinking",
		"tools",
		"skills",
		"handoff",
		"pane",
		"openInHerdr",
	],
	choice: ["default"],
	parallel: ["copies", "fail-fast", "join"],
	map: ["do", "max", "concurrency", "copies", "fail-fast", "ledger", "join"],
	loop: ["do", "max", "give-up", "carry", "ledger"],
	check: ["timeout"],
	commit: [],
	ask: ["options", "confirm", "enough", "default", "reads", "timeout"],
	flow: ["input"],
	swarm: ["rounds", "claims-from", "until", "reads", "timeout"],
};

/** Which kind a key belongs to, for "it belongs to loop nodes" in unknown-key faults. */
export const KEY_OWNER: ReadonlyMap<string, string> = new Map(
	Object.entries(NODE_KEYS)
		.flatMap(([kind, keys]) => keys.map((k) => [k, `${kind} nodes`] as [string, string]))
		.reverse(),
);

/** Why `retry:` is refused on kinds that cannot retry. */
export const RETRY_REFUSED: Record<string, string> = {
	check: "a check is a script: raise its `timeout:` or make it stable instead",
	commit: "put the retry on the node that writes the message",
	ask: "a person's answer is not retried",
	flow: "rerunning a flow would ask answered questions and commit again; retry inside the callee",
	choice: "retry the nodes inside the case",
	parallel: "retry the nodes inside the branches",
	map: "retry the nodes inside the body",
	loop: "a loop already repeats; raise its `max:`",
	swarm: "a swarm asks a failing member again next round",
};

/** Words an address starts with or selects; an id may not be one. */
export const ADDRESS_WORDS = [
	"input",
	"item",
	"diff",
	"output",
	"ok",
	"error",
	"previous",
	"carry",
	"ledger",
	"handoff",
];

/** CEL's reserved words (the expression grammar's list). */
export const RESERVED_WORDS: readonly string[] = CEL_RESERVED;

/** An id a condition can read. */
export const ID_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Thinking levels pi knows. */
export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"];
