/**
 * A JSON Schema (draft 2020-12) of a flow's frontmatter, for editors: completion of keys, and a red line
 * under an unknown key or a value of the wrong shape before the checker is even run. It is generated from
 * the kind table it is handed (each kind's keys with their schemas) and the flow's keys, so a key the
 * language gains shows up here or the schema test fails. The checker stays the judge: names, scopes, types
 * and conditions are beyond any JSON Schema, so the sub-languages (type notation, conditions) are described
 * loosely here and strictly there.
 */
import { ADDRESS_WORDS, FLOW_KEYS, ID_PATTERN, RESERVED_WORDS } from "./build/index.ts";
import type { LanguageKinds } from "./kind.ts";
import { type JsonSchemaDoc, ref, text, whole } from "./keys.ts";

/** A JSON Schema object; kept open because the schema is data handed to other tools, not read here. */
export type { JsonSchemaDoc } from "./keys.ts";

const ADDRESS_PATTERN = "^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*$";
/** The duration grammar as a pattern: parts largest first, each once, no zero part (grammar/duration.ohm). */
const DURATION_PATTERN =
	"^(?=[1-9])(?:[1-9][0-9]*d)?(?:[1-9][0-9]*h)?(?:[1-9][0-9]*m(?!s))?(?:[1-9][0-9]*s)?(?:[1-9][0-9]*ms)?$";

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

const NO_SCHEMA = { $comment: "no schema for this key yet" };

/** One node definition per kind key, from its kind module: its keys (less its twin's), requirements and rules. */
function nodeDefs(kinds: LanguageKinds): [string, JsonSchemaDoc][] {
	return kinds.names.map(kinds.named).flatMap((kind) =>
		kind.kindKeys.map((k): [string, JsonSchemaDoc] => {
			const properties: Record<string, JsonSchemaDoc> = {
				id: { ...ref("id"), description: "The node's id, unique in the file." },
				[k.key]: k.schema,
				"on-fail": { const: "continue", description: "A failure stops at this node instead of travelling up." },
			};
			for (const [key, schema] of Object.entries(kind.keys))
				if (!(k.excludes ?? []).includes(key)) properties[key] = schema;
			return [
				k.key,
				{
					type: "object",
					required: ["id", k.key, ...(k.requires ?? [])],
					additionalProperties: false,
					properties,
					...(k.rules ?? {}),
				},
			];
		}),
	);
}

/**
 * The frontmatter's JSON Schema; `pi-flows schema` prints it. Its nodes come from `kinds` (`LANGUAGE` of
 * `src/kinds/language.ts`), handed in so that the language imports no kind: the kinds import the language.
 */
export function frontmatterSchema(kinds: LanguageKinds): JsonSchemaDoc {
	const nodes = nodeDefs(kinds);
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
			node: { oneOf: nodes.map(([k]) => ref(`node-${k}`)) },
			...Object.fromEntries(nodes.map(([k, def]) => [`node-${k}`, def])),
		},
	};
}
