/**
 * The one catalogue of fault codes. The names follow combo's catalogue where the fault is the same, so
 * users and tools that know one know the other. `docs/faults.md` is checked against this table by a test,
 * so the two cannot drift.
 */

/** Cause and fix of one fault code, as the docs print them. */
export interface FaultEntry {
	/** Which stage raises it. */
	stage: "read" | "check" | "roster" | "script" | "cli";
	/** What triggers it. */
	trigger: string;
	/** How to fix it. */
	fix: string;
}

export const FAULT_CATALOGUE = {
	"yaml-syntax": {
		stage: "read",
		trigger: "The frontmatter is not valid YAML (or a script file is not).",
		fix: "Fix the YAML at the line and column given; the message quotes the parser.",
	},
	"not-a-flow": {
		stage: "read",
		trigger: "The file has no `---` frontmatter, or the frontmatter is not a mapping.",
		fix: "Start the file with a `---` fenced YAML mapping holding at least `name`, `description`, `input` and `nodes`.",
	},
	"missing-key": {
		stage: "read",
		trigger: "A required key is absent: a flow key (`name`, `description`, `input`, `nodes`) or a node's `id`.",
		fix: "Add the key.",
	},
	"unknown-key": {
		stage: "read",
		trigger: "A key the flow or this node kind does not have.",
		fix: "Remove it, or correct its spelling (the message names the nearest key).",
	},
	"key-type": {
		stage: "read",
		trigger: "A value of the wrong type: a list where a string is needed, an empty `nodes`, a `reads` that is not a list of addresses.",
		fix: "Write the value in the form the message names.",
	},
	"name-mismatch": {
		stage: "read",
		trigger: "`name:` differs from the file name without `.md`.",
		fix: "Rename the file or change `name:`; the name is how `/run` and `flow:` find it.",
	},
	"node-kind": {
		stage: "read",
		trigger: "A node has no kind key (`agent`, ...) or two of them.",
		fix: "Give the node exactly one kind key.",
	},
	"invalid-id": {
		stage: "read",
		trigger: "A node id is not `[A-Za-z_][A-Za-z0-9_]*` (conditions read ids, and a dash reads as subtraction).",
		fix: "Use letters, digits and `_` (the message suggests one).",
	},
	"reserved-id": {
		stage: "read",
		trigger: "A node id is an address word (`input`, `item`, `diff`, ...) or a reserved word of the condition language.",
		fix: "Choose another id.",
	},
	"duplicate-id": {
		stage: "check",
		trigger: "A node id is already used in the file (ids are unique in the whole file, not per block).",
		fix: "Rename one of the nodes; the fault points at the second and names the first.",
	},
	"unknown-agent": {
		stage: "check",
		trigger: "No agent of that name in the roster.",
		fix: "Correct the name (the message names the nearest agent) or add the agent file.",
	},
	"broken-agent": {
		stage: "check",
		trigger: "The agent file of that name exists but does not parse or lacks `name:`/`description:`.",
		fix: "Fix the agent file; its path and cause are in the message.",
	},
	"unknown-address": {
		stage: "check",
		trigger: "A read names nothing readable at that point: no such node, or one that has not ended before this one.",
		fix: "Read `input` or a node that runs earlier in the same or an enclosing sequence.",
	},
	"invalid-address": {
		stage: "check",
		trigger: "An address that is not a name followed by `.field`s, or one that reads into an agent's untyped text.",
		fix: "Write `node`, `node.ok`, `node.output.field`, `input` or `input.field`.",
	},
	"section-missing": {
		stage: "check",
		trigger: "An agent node has no `## <id>` section in the body.",
		fix: "Add a `## <id>` section saying what the turn is asked to do.",
	},
	"section-empty": {
		stage: "check",
		trigger: "A `## <id>` section has no text.",
		fix: "Write the instructions for the turn under the heading.",
	},
	"section-duplicate": {
		stage: "check",
		trigger: "Two `## ` sections share a heading.",
		fix: "Merge them; each agent node has exactly one section.",
	},
	"section-unknown": {
		stage: "check",
		trigger: "A `## ` section matches no node.",
		fix: "Rename it to a node id (the message names the nearest) or remove it.",
	},
	"body-preamble": {
		stage: "check",
		trigger: "Text before the first `## ` section.",
		fix: "Move it into `description:` or a YAML comment; the body holds only sections.",
	},
	"unknown-flow": {
		stage: "cli",
		trigger: "No flow file has that name.",
		fix: "Check the name against `pi-flows list` (the message names the nearest).",
	},
	"script-invalid": {
		stage: "script",
		trigger: "A scripted-model script has a step the format does not have, or a value of the wrong type.",
		fix: "See docs/scripted-model.md for the steps: `say`, `call`, `fail`, `hang`, `delay`.",
	},
	"script-unknown-node": {
		stage: "script",
		trigger: "A script key names no agent node of the flow.",
		fix: "Key the script by node id (or exact visit path); the message names the nearest.",
	},
} as const satisfies Record<string, FaultEntry>;

/** Every fault code there is. */
export type FaultCode = keyof typeof FAULT_CATALOGUE;

/** The codes, in catalogue order. */
export const FAULT_CODES = Object.keys(FAULT_CATALOGUE) as FaultCode[];
