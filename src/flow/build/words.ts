/**
 * The closed tables of the language: which keys a flow and each node kind take, and which words an id
 * may not be (conditions read ids, so ids follow CEL's identifier rules and avoid its reserved words).
 */

/** Keys of the frontmatter. */
export const FLOW_KEYS = ["name", "description", "input", "model", "nodes"] as const;

/** Kind keys: a node is `id` plus exactly one of these. */
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

/** Keys each built kind takes besides its kind key and `id`. */
export const NODE_KEYS = {
	agent: ["reads", "model"],
} as const;

/** Words an address starts with; an id may not be one. */
export const ADDRESS_WORDS = ["input", "item", "diff", "output", "ok", "error", "previous", "carry", "ledger", "handoff"];

/** CEL's reserved words. */
export const RESERVED_WORDS = [
	"as", "break", "const", "continue", "else", "false", "for", "function", "if", "import", "in", "let", "loop",
	"namespace", "null", "package", "return", "true", "var", "void", "while",
];

/** An id a condition can read. */
export const ID_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
