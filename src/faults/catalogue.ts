/**
 * The one catalogue of fault codes. The names follow combo's catalogue where the fault is the same, so
 * users and tools that know one know the other. `docs/faults.md` is checked against this table by a test,
 * so the two cannot drift.
 */

/** Cause and fix of one fault code, as the docs print them. */
export interface FaultEntry {
	/** Which stage raises it. */
	stage: "read" | "check" | "roster" | "script" | "cli" | "run" | "chain" | "database";
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
	"flow-too-large": {
		stage: "read",
		trigger:
			"The flow file is larger than 1 MiB. A flow is instructions, and the bound keeps a check quick and its memory small whatever a file holds.",
		fix: "Move long reference text out of the flow into a file the agents read; a flow holds instructions, not data.",
	},
	"too-many-nodes": {
		stage: "read",
		trigger:
			"The file holds more than 10,000 nodes (blocks and their bodies counted). Checking costs each node its scope, and a check must answer quickly whatever a repository ships.",
		fix: "Split the flow into flows that call each other with `flow:` nodes; a map over a list runs many turns from one node.",
	},
	"expression-too-long": {
		stage: "read",
		trigger:
			"A condition or an address is longer than 1,000 characters. The expression grammar's work grows with the text (a 200 KB condition took 29 s and 2 GB to read), so the reader stops at the bound; the fault points at the first character past it.",
		fix: "Compute the parts in earlier nodes (an agent's typed output, a check) and test their results in a short condition.",
	},
	"expression-budget": {
		stage: "read",
		trigger:
			"The conditions of one file pass 8,000 characters together, or its addresses (`reads:`, `map-from:`, ...) 60,000: the grammar's work on a file is bounded however it is split. The fault points at the one that crossed the bound, and the rest of the file is not read.",
		fix: "Split the flow into flows that call each other with `flow:` nodes.",
	},
	"pipeline-format-removed": {
		stage: "read",
		trigger:
			"The file is combo's old linear pipeline (`steps:` and no `nodes:`), a format combo removed and pi-flows never ran.",
		fix: "Rewrite it as a flow: `steps:` becomes `nodes:`, each step gets an `id:` and `reads:` of the step before, `input: string` is added, and each `task:` moves into a `## <id>` section.",
	},
	"peer-format": {
		stage: "read",
		trigger:
			"A peer's file pi-flows cannot read as it is: a pi-subagents `.chain.md` chain with a setting or placeholder that has no counterpart here, or a file in a flows folder that is a peer's chain or agent rather than a flow.",
		fix: "The message names the peer format the file looks like and the hint what to change; docs/flows.md (Chains from pi-subagents) lists what is read.",
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
		trigger:
			"A value of the wrong type: a list where a string is needed, an empty `nodes`, a `reads` that is not a list of addresses.",
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
		trigger:
			"A node id is an address word (`input`, `item`, `diff`, ...) or a reserved word of the condition language.",
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
	"agent-keys": {
		stage: "roster",
		trigger:
			"A note, never a fault: an agent the flow names has frontmatter keys pi-flows keeps but does not act on (a peer's key with no counterpart, a Claude Code tool pi lacks, a value it cannot use).",
		fix: "Nothing is needed; remove the keys to silence the note, or see docs/flows.md (Agents from peers) for the keys honoured.",
	},
	"peer-default-tools": {
		stage: "roster",
		trigger:
			"A note, never a fault: an agent the flow names has no `tools:` and was written for a peer whose default gives more than pi-flows' read-only one: Claude Code (its `.claude/agents` folders) gives every tool, pi-subagents (a file with its keys) pi's default tools, and so does the run.",
		fix: "Nothing is needed; write `tools:` in the agent file to give it less (`tools: Read, Grep, Glob` for a read-only Claude Code agent).",
	},
	"peer-note": {
		stage: "read",
		trigger:
			"A note, never a fault: a pi-subagents chain file says something read as pi-subagents reads it that is worth knowing: text before its first `## <agent>` (ignored), a step setting pi-subagents ignores, a `reads:` file no earlier step's `output:` names.",
		fix: "Nothing is needed; see docs/flows.md (Chains from pi-subagents) for how each setting is read.",
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
	"condition-syntax": {
		stage: "check",
		trigger:
			"A condition is not in the language: `? :`, a map literal, a single `=`, `&` or `|`, an unknown function or method, a dashed name, a reserved word, or a plain syntax error.",
		fix: "Rewrite the part quoted; the message names the construct to use instead (`==`, `&&`, `size(x)`, a `choice` node...). Only this fault is reported for that condition.",
	},
	"condition-unknown-address": {
		stage: "check",
		trigger: "A condition reads a name or field that is not readable at that point.",
		fix: "Read a node that ended earlier in the same or an enclosing sequence, `input`, or an existing field (the message names the nearest).",
	},
	"condition-type": {
		stage: "check",
		trigger:
			"Mismatched operand types, a result that is not a boolean, an agent's untyped text read, an empty list `[]`, `has` without a field.",
		fix: "Compare like with like; read a typed output (`output:`) rather than text; read a field of a list or object, or use `size()`, `all` or `exists`.",
	},
	"condition-enum-value": {
		stage: "check",
		trigger: "A string literal compared with an enum is not one of the enum's values (the condition would never hold).",
		fix: "Use one of the values the message lists (it names the nearest).",
	},
	"condition-free-string": {
		stage: "check",
		trigger: "An `ask-from` answer (free text in the person's words) is compared with a literal.",
		fix: "Read `answered` or `custom`, or have an agent turn the answer into an enum first.",
	},
	"schema-invalid": {
		stage: "check",
		trigger:
			"An `output:` or `input:` type is in neither notation: an unknown type name, an enum with fewer than two values, a list without exactly one element, an empty object, a bad field name, or a json-schema keyword or value outside the subset.",
		fix: "Write `string`, `number`, `boolean`, `Question`, `a | b`, `[type]`, `{ field: type, other?: type }` or `{ json-schema: {...} }` with type/properties/required/items/enum/description only.",
	},
	"duration-invalid": {
		stage: "check",
		trigger: "A duration is not whole-number parts with units, largest first: `90s`, `10m`, `1h30m`, `500ms`, `1d`.",
		fix: "Write each unit at most once, largest first, without zero parts, decimals, signs or spaces.",
	},
	"chain-syntax": {
		stage: "chain",
		trigger:
			"Chain text that fits nowhere: an unclosed quote, text glued to a closing quote, words after a step's reference, `--flag=value`, or steps after the `--` section.",
		fix: "Close the quote, quote a goal that has spaces, separate steps with `->`, write `--flag value`; the hint says which.",
	},
	"chain-too-long": {
		stage: "chain",
		trigger:
			"A chain's text is longer than 2,000 characters (a few hundred steps). The chain grammar's work grows with the text (a 20,000-step chain took 39 s), so it is refused before it is read; the fault points at the first character past the bound.",
		fix: "Split the work into flows that call each other (`flow:` nodes), each with a short chain.",
	},
	"chain-empty-step": {
		stage: "chain",
		trigger: "A chain with no steps, or an empty step: a leading, trailing or doubled `->`.",
		fix: "Remove the extra `->` or write a step there.",
	},
	"chain-bad-ref": {
		stage: "chain",
		trigger:
			"A step that does not start with `@agent`, `flow:name`, `template:name` or a quoted goal, a malformed name, an empty goal, or a template path with `..`.",
		fix: "Start the step with a reference (the message suggests `@word` for a bare word).",
	},
	"chain-unknown-flag": {
		stage: "chain",
		trigger: "A flag the chain does not have, or a step flag among the chain-wide flags after `--`.",
		fix: "Correct the spelling (the message names the nearest flag) or move the flag to its step.",
	},
	"chain-flag-value": {
		stage: "chain",
		trigger:
			"A flag without its value, a value of the wrong form, a value on `--continue-on-error`, or a budget warning above the total.",
		fix: "Write the value in the form the message names.",
	},
	"chain-duplicate-flag": {
		stage: "chain",
		trigger: "A flag given twice on one step, or a chain-wide flag given twice in the chain.",
		fix: "Keep one of them; the fault points at the second and names the first.",
	},
	"chain-duplicate-label": {
		stage: "chain",
		trigger:
			"Two steps of a chain with the same label (`@research:x -> @review:x`), or a label that is another step's agent name.",
		fix: "Give each step its own label; the label names the step in reports and in the run folder.",
	},
	"twin-keys": {
		stage: "read",
		trigger:
			"Both `x` and `x-from` on one node (`agent`/`agent-from`, `map`/`map-from`, `ask`/`ask-from`), or both `nodes` and `chain` in a flow.",
		fix: "Write one: the literal, or the address with `-from`.",
	},
	"reserved-name": {
		stage: "read",
		trigger: "A flow named `resume` (`/run resume` takes that word).",
		fix: "Rename the file and its `name:`.",
	},
	"retry-refused": {
		stage: "read",
		trigger: "`retry:` on a node that cannot retry: a check, commit, ask, flow call or block.",
		fix: "The message says what to do instead for that kind.",
	},
	"among-without-from": {
		stage: "read",
		trigger: "`among:` beside a literal `agent:`.",
		fix: "Use `agent-from:` with `among:`, or drop `among:`.",
	},
	"verdict-with-output": {
		stage: "read",
		trigger: "`verdict:` together with `output:` on one agent node.",
		fix: "A verdict node's output is `{ approved, remarks? }`; drop `output:`.",
	},
	"ask-form-conflict": {
		stage: "read",
		trigger: "`options` with `confirm`; either with `ask-from`; or `enough` on a yes/no or free-text card.",
		fix: "Write one form of card.",
	},
	"ask-options-count": {
		stage: "read",
		trigger: "Fewer than 2 or more than 4 literal options.",
		fix: "Offer 2 to 4 options; for more, let an agent write the question and use `ask-from:`.",
	},
	"ask-options-duplicate": {
		stage: "read",
		trigger: "An option label given twice.",
		fix: "Make every label unique.",
	},
	"ask-default-mismatch": {
		stage: "read",
		trigger:
			"A `default:` the card could not have produced (not one of the options, not a boolean for `confirm`, not a string for free text).",
		fix: "Write a default of the card's form.",
	},
	"among-mismatch": {
		stage: "check",
		trigger: "`among:` is not exactly the values of the enum `agent-from:` reads.",
		fix: "List exactly the enum's values.",
	},
	"node-indentation": {
		stage: "check",
		trigger:
			"A node stands right after a block at the block's own level, yet the block reads it (its `loop:` condition, say): it was written one indentation level too shallow, outside the block's `do:`. Reported once, in place of each read it breaks (its reads of the body, its `verdict:`).",
		fix: "Indent the node (its `- id:` line and its keys) under the block's `do:`, level with the body's other nodes.",
	},
	"unknown-scope": {
		stage: "check",
		trigger: "`memory:` names no enclosing node (nor `flow`), or `verdict:` names no enclosing node with a `ledger:`.",
		fix: "Name an enclosing block's id (or `flow` for memory).",
	},
	"memory-output-mismatch": {
		stage: "check",
		trigger: "Two nodes share a subagent (same agent, same `memory:` scope) but declare different `output:` types.",
		fix: "Give them the same `output:`, or different scopes.",
	},
	"carry-mismatch": {
		stage: "check",
		trigger:
			"A loop's `carry` sides (`first`, `next`) share no field of the same name and type, or are not lists/objects of one shape.",
		fix: "Make both sides carry at least one common field.",
	},
	"copies-needed": {
		stage: "check",
		trigger:
			"A block runs branches at the same time and a branch can write (an agent with write/edit/bash/powershell/subagent tools, a commit, a writing callee) without `copies: true`.",
		fix: "Add `copies: true`, or run one item at a time (`concurrency: 1`).",
	},
	"commit-in-copies": {
		stage: "check",
		trigger: "A commit (or a callee's commit) inside a `copies: true` block.",
		fix: "Commit after the block.",
	},
	"memory-outside-copies": {
		stage: "check",
		trigger: "A `memory:` scope used inside a `copies: true` block opens outside it.",
		fix: "Scope the memory to a node inside the block.",
	},
	"section-not-agent": {
		stage: "check",
		trigger:
			"A `## ` section names a node that is not an agent or swarm (checks, asks, commits and calls take no prose).",
		fix: "Remove the section; put a question in `ask:`.",
	},
	"broken-flow": {
		stage: "check",
		trigger: "A `flow:` node calls a flow that does not check.",
		fix: "Fix the called flow; the message names its file and first fault.",
	},
	"call-cycle": {
		stage: "check",
		trigger:
			"A `flow:` node leads back to the calling flow, directly or through others, even behind an untaken choice.",
		fix: "Break the cycle; flows cannot recurse.",
	},
	"flow-input-mismatch": {
		stage: "check",
		trigger: "A call's `input:` type differs from the callee's `input:` (a callee taking `string` accepts anything).",
		fix: "Pass a value of the callee's input type.",
	},
	"unknown-skill": {
		stage: "check",
		trigger:
			"A node's `skills:` (or a chain step's `--skill`), or the `skills:` of an agent a node runs, names a skill found in none of its folders: beside the agent file (`agents/scout/skills/` for `agents/scout.md`, for the agent's own), the project's `.pi/skills/`, `<agentDir>/skills/`. A skill goes by the `name:` in its `SKILL.md`.",
		fix: "Correct the name (the message names the nearest skill) or add the skill folder.",
	},
	"skills-without-read": {
		stage: "check",
		trigger:
			"A node gives its subagent skills (its own `skills:` or its agent's) and the tools it runs with leave out `read`, the tool a model opens a skill's `SKILL.md` and the files beside it with.",
		fix: "Add `read` to the agent's `tools:` (or keep it in the node's), or drop the skills.",
	},
	"skill-hidden": {
		stage: "check",
		trigger:
			"An agent's `skills:` names a skill whose `SKILL.md` sets `disable-model-invocation: true`: pi keeps such a skill out of the list a model sees, so the agent would never know it has it.",
		fix: "Drop the skill from the agent, name it in the node's `skills:` (a node's skill is given whole, as `/skill:<name>` gives it), or remove the setting from the skill.",
	},
	"unknown-tool": {
		stage: "check",
		trigger:
			"An agent a node runs lists a tool a flow's subagent cannot have: pi's built-in tools and `subagent` are the ones there are (flow subagents load no pi extensions).",
		fix: "Correct the name in the agent's `tools:` (the message names the nearest tool), or run another agent.",
	},
	"tools-widen": {
		stage: "check",
		trigger: "A node's `tools:` names a tool its agent's file does not grant.",
		fix: "A node can only narrow its agent's tools; give the agent the tool or drop it here.",
	},
	"check-script-missing": {
		stage: "run",
		trigger: "A `check:` script is not in the working tree, or is not a readable file.",
		fix: "Add the script at that path (from the repository root), or correct the path.",
	},
	"check-script-outside": {
		stage: "run",
		trigger: "A `check:` script resolves outside the repository, e.g. through a symlink.",
		fix: "Keep check scripts inside the repository; they are repository content run with bash.",
	},
	"not-a-repository": {
		stage: "run",
		trigger:
			"The flow commits, uses `copies: true` or reads `diff`, and the working folder is not in a git repository.",
		fix: "Run it inside a git repository (`git init` first for a new project).",
	},
	"model-unknown": {
		stage: "run",
		trigger:
			"A model named in a flow, an agent file or a chain (`sonnet`, `opus:high`, `provider/id`) that pi's own resolver cannot find, asked when the run is prepared.",
		fix: "Write a model pi knows (`pi --list-models`); the message names the nearest ones.",
	},
	"unattended-ask": {
		stage: "run",
		trigger:
			"Nobody is there to answer (print mode, CI, `--yes`) and an `ask` with neither `default:` nor `enough:` could be reached.",
		fix: "Give the ask a `default:` (or an `enough:` label), or run it where a person can answer.",
	},
	"database-url": {
		stage: "database",
		trigger:
			"The database given to `--database` (or `PI_FLOWS_DATABASE_URL`) is not a Postgres URL: another scheme, no host, a port that is not a number, a malformed address.",
		fix: "Write it as `postgres://USER:PASSWORD@HOST:PORT/DATABASE` (percent-encode special characters in the password), or put it in `PI_FLOWS_DATABASE_URL` to keep it off the command line.",
	},
	"database-unreachable": {
		stage: "database",
		trigger:
			"Nothing answered at the database's host and port within the connect timeout: the server is down, the host name does not resolve, a firewall drops the packets, or the port is wrong.",
		fix: "Check the host and port the message names (`pg_isready -h HOST -p PORT`), that the server listens on that address (`listen_addresses`) and that this machine may reach it.",
	},
	"database-auth": {
		stage: "database",
		trigger:
			"The server refused the user or password: a wrong password, no password given, or no `pg_hba.conf` line letting this user in from this machine.",
		fix: "Correct the user and password in the URL (or `PGPASSWORD`); if they are right, the server's `pg_hba.conf` must allow this user from this host.",
	},
	"database-missing": {
		stage: "database",
		trigger: "The server answered but the database named in the URL does not exist.",
		fix: "Create it (`createdb NAME`, or `CREATE DATABASE name` as a user who may), or correct the name at the end of the URL.",
	},
	"database-denied": {
		stage: "database",
		trigger:
			"The user may connect but not do what pi-flows needs: create its schema and tables on first use, or read and write them later.",
		fix: "Run the first worker as a user who owns the database (or may `CREATE` in it), or grant this user rights on the `pi_flows` and `dbos` schemas.",
	},
	"database-schema": {
		stage: "database",
		trigger:
			"The database holds tables of another version: pi-flows' `pi_flows.meta` or DBOS's `dbos.dbos_migrations` records a schema newer than this pi-flows knows, or `pi_flows.meta` is not the table pi-flows makes.",
		fix: "Upgrade pi-flows on this machine to the version the message names (every worker and client of one database runs the same version), or point it at a database of its own.",
	},
	"database-lost": {
		stage: "database",
		trigger:
			"The connection to the database broke while in use: the server restarted or shut down, an administrator ended the session, or the network dropped it.",
		fix: "Nothing is lost: a visit whose result was not recorded runs again once a worker reconnects. If it repeats, check the server's log and the network between this machine and the database.",
	},
	"database-error": {
		stage: "database",
		trigger:
			"The database failed in a way none of the other codes describe; the message carries the server's own words.",
		fix: "Read the server's message (and its log); it is printed with any password cut out.",
	},
} as const satisfies Record<string, FaultEntry>;

/** Every fault code there is. */
export type FaultCode = keyof typeof FAULT_CATALOGUE;

/** The codes, in catalogue order. */
export const FAULT_CODES = Object.keys(FAULT_CATALOGUE) as FaultCode[];
