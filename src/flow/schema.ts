/**
 * A JSON Schema (draft 2020-12) of a flow's frontmatter, for editors: completion of keys, and a red line
 * under an unknown key or a value of the wrong shape before the checker is even run. It is generated from
 * the builder's key tables (`build/words.ts`), so a key the language gains shows up here or the schema test
 * fails. The checker stays the judge: names, scopes, types and conditions are beyond any JSON Schema, so
 * the sub-languages (type notation, conditions) are described loosely here and strictly there.
 */
import {
	ADDRESS_WORDS,
	FLOW_KEYS,
	ID_PATTERN,
	KIND_KEYS,
	NODE_KEYS,
	RESERVED_WORDS,
	THINKING_LEVELS,
} from "./build/index.ts";

/** A JSON Schema object; kept open because the schema is data handed to other tools, not read here. */
export type JsonSchemaDoc = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/$defs/${name}` });
const text = (description: string, extra: JsonSchemaDoc = {}) => ({
	type: "string",
	minLength: 1,
	description,
	...extra,
});
const whole = (min: number, description: string) => ({ type: "integer", minimum: min, description });

const ADDRESS_PATTERN = "^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*$";
/** The duration grammar as a pattern: parts largest first, each once, no zero part (grammar/duration.ohm). */
const DURATION_PATTERN =
	"^(?=[1-9])(?:[1-9][0-9]*d)?(?:[1-9][0-9]*h)?(?:[1-9][0-9]*m(?!s))?(?:[1-9][0-9]*s)?(?:[1-9][0-9]*ms)?$";

const address = (description: string) => ({ ...ref("address"), description });

/** Schemas of the keys every node kind shares by name; a kind that reads a key differently overrides it. */
const NODE_KEY_SCHEMAS: Record<string, JsonSchemaDoc> = {
	among: {
		type: "array",
		minItems: 1,
		uniqueItems: true,
		items: { type: "string", minLength: 1 },
		description: "The agents `agent-from` may pick: exactly the enum's values.",
	},
	reads: {
		type: "array",
		items: ref("address"),
		description: "Addresses handed to the turn, in order: `[input, plan.output.tasks]`.",
	},
	output: {
		...ref("type"),
		description: "The output's type (short notation or `{ json-schema: ... }`); the model answers through `submit`.",
	},
	memory: text("An enclosing node's id, or `flow`: nodes naming the same agent and scope share one subagent."),
	verdict: text("The id of an enclosing loop or map with `ledger:`; the turn answers `{ approved, remarks? }`."),
	retry: whole(0, "Extra attempts after a provider, timeout or schema failure. Default 0."),
	timeout: { ...ref("duration"), description: "The bound of one attempt: `90s`, `10m`, `1h30m`." },
	model: text("A model like `provider/id` (a `:thinking` suffix is allowed) for this node alone."),
	thinking: { enum: THINKING_LEVELS, description: "The thinking level of this node's turns." },
	tools: {
		type: "array",
		minItems: 1,
		uniqueItems: true,
		items: { type: "string", minLength: 1 },
		description: "Narrows the agent's tools; never widens them.",
	},
	skills: {
		type: "array",
		minItems: 1,
		uniqueItems: true,
		items: { type: "string", minLength: 1 },
		description: "Skills this node's turns may load, by name.",
	},
	handoff: { ...ref("handoff"), description: "This node's handoff settings." },
	pane: {
		type: "boolean",
		description: "Open a terminal pane (tmux, herdr) following each visit's turns; closed when the visit ends.",
	},
	openInHerdr: { type: "boolean", description: "combo's name for `pane`." },
	default: { type: ["string", "boolean"], description: "The answer taken when nobody is there or the card times out." },
	copies: { type: "boolean", description: "Each branch works in its own copy of the repository." },
	"fail-fast": { type: "boolean", description: "The first failed branch cuts the others." },
	join: {
		anyOf: [{ enum: ["all", "any"] }, { type: "integer", minimum: 1 }],
		description: "How many branches must succeed: `all`, `any` or a number.",
	},
	do: { ...ref("sequence"), description: "The body: the nodes run per item or per iteration." },
	max: whole(1, "The most items or iterations."),
	concurrency: whole(1, "How many items run at once. Default 1."),
	ledger: text("The node's own id: opens a ledger of obligations (per item for a map)."),
	"give-up": {
		...ref("condition"),
		description: "Read when the loop's condition is false: true ends the loop not converged.",
	},
	carry: {
		type: "object",
		required: ["first", "next"],
		additionalProperties: false,
		properties: { first: address("Read on the first iteration."), next: address("Read after each iteration.") },
		description: "`<loop>.carry`: `first` on the first iteration, `next` after each one.",
	},
	options: {
		type: "array",
		minItems: 2,
		maxItems: 4,
		uniqueItems: true,
		items: {
			anyOf: [
				{ type: "string", minLength: 1 },
				{
					type: "object",
					required: ["label"],
					additionalProperties: false,
					properties: { label: { type: "string", minLength: 1 }, description: { type: "string" } },
				},
			],
		},
		description: "2 to 4 labels, or `{ label, description }`; the card offers exactly these.",
	},
	confirm: { const: true, description: "A yes-or-no card; its output is `{ yes }`." },
	enough: text('The "that\'s enough" label of a choice card: answered false.'),
	input: address("What the called flow receives: an address, never a literal."),
	rounds: whole(1, "The most rounds the swarm may run."),
	"claims-from": address("A list of strings: the keys members may claim."),
	until: { ...ref("condition"), description: "The swarm stops when this holds." },
};

/** Keys a kind reads in its own way. */
const KIND_OVERRIDES: Record<string, Record<string, JsonSchemaDoc>> = {
	choice: {
		default: { type: "array", items: ref("node"), description: "The nodes run when no case holds; `[]` for nothing." },
	},
};

/** The main argument of each kind key. */
const KIND_KEY_SCHEMAS: Record<string, JsonSchemaDoc> = {
	agent: text("An agent of the roster, by name."),
	"agent-from": address("An address naming an enum of agent names; goes with `among:`."),
	choice: {
		type: "array",
		minItems: 1,
		items: ref("case"),
		description: "Ordered cases `{ when, do, name? }`: the first that holds runs.",
	},
	parallel: {
		type: "object",
		minProperties: 2,
		propertyNames: { pattern: ID_PATTERN.source },
		additionalProperties: ref("sequence"),
		description: "Named branches started at once.",
	},
	map: {
		type: "array",
		minItems: 1,
		items: { type: "string" },
		description: "A literal list of strings; the body runs once per item.",
	},
	"map-from": address("An address of a list; the body runs once per item."),
	loop: { ...ref("condition"), description: "The body repeats until this holds, at most `max:` times." },
	check: text("A script's path from the repository root, run with bash; never a command.", {
		pattern: "^(?!/)(?!\\.\\.(/|$))\\S+$",
	}),
	commit: address("An earlier node's text, or a string field of its output: the commit message."),
	ask: text("The question put to the person running the flow."),
	"ask-from": address("An address typed `Question`."),
	flow: text("Another flow, by name, run whole as one node."),
	swarm: {
		type: "array",
		minItems: 1,
		items: {
			anyOf: [
				{ type: "string", minLength: 1 },
				{
					type: "object",
					required: ["agent"],
					additionalProperties: false,
					properties: { agent: { type: "string", minLength: 1 }, count: { type: "integer", minimum: 1 } },
				},
			],
		},
		description: "The members: agent names or `{ agent, count }`.",
	},
};

/** Frontmatter keys. */
const FLOW_KEY_SCHEMAS: Record<string, JsonSchemaDoc> = {
	name: text("Equals the file name without `.md`.", { not: { const: "resume" } }),
	description: text("One line."),
	input: { ...ref("type"), description: "The run's input type: `string` or a typed schema." },
	model: text("A model like `provider/id` for every node of this flow."),
	timeout: { ...ref("duration"), description: "Default bound of one agent turn." },
	nodes: { ...ref("sequence"), description: "The root sequence, run in order." },
	chain: text("The flow written as a chain (`@scout -> @synthesiser`) instead of `nodes:`."),
	budget: {
		type: "object",
		additionalProperties: false,
		properties: {
			tokens: whole(1, "Most tokens."),
			cost: { type: "number", exclusiveMinimum: 0, description: "Most cost, in dollars." },
			turns: whole(1, "Most turns."),
		},
		description: "The run ends, resumably, when a limit is reached.",
	},
	handoff: { ...ref("handoff"), description: "Handoff settings for every agent node." },
	transport: {
		type: "object",
		additionalProperties: false,
		properties: {
			attempts: whole(1, "Tries per model request, the first included (default 8)."),
			wait: { ...ref("duration"), description: "All waits of one request together (default 5m)." },
			stall: { ...ref("duration"), description: "A stream silent this long is sent again (default 2m)." },
			adaptive: {
				type: "boolean",
				description: "Adapt requests in flight to the provider's rate limits (default true).",
			},
		},
		description: "Retries of model requests lost in transit (429, 529, 5xx, cut streams), below the flow.",
	},
};

/** What is wrong together on one kind key, beyond unknown keys. */
const KIND_RULES: Record<string, JsonSchemaDoc> = {
	agent: { not: { required: ["verdict", "output"] } },
	"agent-from": { not: { required: ["verdict", "output"] } },
	ask: { not: { required: ["options", "confirm"] }, dependentRequired: { enough: ["options"] } },
};

/** Keys a kind key forbids although its kind has them (they belong to its twin). */
const KIND_EXCLUDES: Record<string, readonly string[]> = { agent: ["among"], "ask-from": ["options", "confirm"] };

/** Keys a kind key requires besides `id` and itself. */
const KIND_REQUIRES: Record<string, readonly string[]> = {
	"agent-from": ["among"],
	choice: ["default"],
	map: ["do"],
	"map-from": ["max", "do"],
	loop: ["max", "do"],
	flow: ["input"],
	swarm: ["rounds"],
};

const NO_SCHEMA = { $comment: "no schema for this key yet" };

function nodeDef(kindKey: string): JsonSchemaDoc {
	const kind = kindKey.replace(/-from$/, "");
	const own = (NODE_KEYS[kind] ?? []).filter((k) => !(KIND_EXCLUDES[kindKey] ?? []).includes(k));
	const properties: Record<string, JsonSchemaDoc> = {
		id: { ...ref("id"), description: "The node's id, unique in the file." },
		[kindKey]: KIND_KEY_SCHEMAS[kindKey] ?? NO_SCHEMA,
		"on-fail": { const: "continue", description: "A failure stops at this node instead of travelling up." },
	};
	for (const key of own) properties[key] = KIND_OVERRIDES[kind]?.[key] ?? NODE_KEY_SCHEMAS[key] ?? NO_SCHEMA;
	return {
		type: "object",
		required: ["id", kindKey, ...(KIND_REQUIRES[kindKey] ?? [])],
		additionalProperties: false,
		properties,
		...(KIND_RULES[kindKey] ?? {}),
	};
}

/** The frontmatter's JSON Schema; `pi-flows schema` prints it. */
export function frontmatterSchema(): JsonSchemaDoc {
	const nodeDefs = Object.fromEntries(KIND_KEYS.map((k) => [`node-${k}`, nodeDef(k)]));
	const properties = Object.fromEntries(FLOW_KEYS.map((k) => [k, FLOW_KEY_SCHEMAS[k] ?? NO_SCHEMA]));
	return {
		$schema: "https://json-schema.org/draft/2020-12/schema",
		title: "pi-flows flow frontmatter",
		description:
			"The YAML between the `---` lines of a flow file. `pi-flows check` judges the rest: names, scopes, types, conditions.",
		type: "object",
		required: ["name", "description", "input"],
		oneOf: [{ required: ["nodes"] }, { required: ["chain"] }],
		additionalProperties: false,
		properties,
		$defs: {
			id: { type: "string", pattern: ID_PATTERN.source, not: { enum: [...ADDRESS_WORDS, ...RESERVED_WORDS] } },
			address: { type: "string", pattern: ADDRESS_PATTERN },
			condition: {
				type: "string",
				minLength: 1,
				description: "A condition: CEL's syntax, cut down (see docs/conditions.md).",
			},
			// A pattern cannot bound the length; the checker refuses anything past 24d where it is written.
			duration: {
				type: "string",
				pattern: DURATION_PATTERN,
				description: "`90s`, `10m`, `1h30m`, `500ms`, `1d`; at most `24d`.",
			},
			type: {
				description:
					"The type notation: `string`, `a | b`, `[type]`, `{ field: type, other?: type }`, `Question`, or `{ json-schema: {...} }`.",
				anyOf: [
					{ type: "string", minLength: 1 },
					{ type: "array", minItems: 1, maxItems: 1, items: ref("type") },
					{
						type: "object",
						required: ["json-schema"],
						additionalProperties: false,
						properties: { "json-schema": { type: "object" } },
					},
					{
						type: "object",
						minProperties: 1,
						not: { required: ["json-schema"] },
						propertyNames: { pattern: "^[A-Za-z_][A-Za-z0-9_]*\\??$" },
						additionalProperties: ref("type"),
					},
				],
			},
			handoff: {
				type: "object",
				additionalProperties: false,
				properties: {
					watermark: {
						type: "number",
						exclusiveMinimum: 0,
						maximum: 1,
						description: "Context fraction at which the turn is asked to land.",
					},
					continuations: whole(0, "How many times a `partial` finish continues in a fresh session."),
				},
			},
			sequence: { type: "array", minItems: 1, items: ref("node") },
			case: {
				type: "object",
				required: ["when", "do"],
				additionalProperties: false,
				properties: {
					when: ref("condition"),
					do: ref("sequence"),
					name: { type: "string", pattern: ID_PATTERN.source, not: { const: "default" } },
				},
			},
			node: { oneOf: KIND_KEYS.map((k) => ref(`node-${k}`)) },
			...nodeDefs,
		},
	};
}
