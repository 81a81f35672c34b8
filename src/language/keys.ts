/**
 * Schemas of the keys node kinds share by name (`reads`, `timeout`, `do`, ...) and the small builders of
 * schema fragments. A kind module lists its keys from here (or writes its own when it reads a key in its
 * own way), so the JSON Schema, the builder's key tables and the editor's completion all come from the
 * kind modules.
 */

/** A JSON Schema object; kept open because the schema is data handed to other tools, not read here. */
export type JsonSchemaDoc = Record<string, unknown>;

/** A reference to a definition of the frontmatter schema (`address`, `condition`, `node`, ...). */
export const ref = (name: string) => ({ $ref: `#/$defs/${name}` });
/** A non-empty string. */
export const text = (description: string, extra: JsonSchemaDoc = {}) => ({
	type: "string",
	minLength: 1,
	description,
	...extra,
});
/** A whole number from `min`. */
export const whole = (min: number, description: string) => ({ type: "integer", minimum: min, description });

/** An address (`plan.output.tasks`). */
export const address = (description: string) => ({ ...ref("address"), description });

/** Schemas of the keys several kinds share by name; a key of one kind alone is written in that kind's module. */
export const KEY = {
	reads: {
		type: "array",
		items: ref("address"),
		description: "Addresses handed to the turn, in order: `[input, plan.output.tasks]`.",
	},
	timeout: { ...ref("duration"), description: "The bound of one attempt: `90s`, `10m`, `1h30m`." },
	copies: { type: "boolean", description: "Each branch works in its own copy of the repository." },
	"fail-fast": { type: "boolean", description: "The first failed branch cuts the others." },
	join: {
		anyOf: [{ enum: ["all", "any"] }, { type: "integer", minimum: 1 }],
		description: "How many branches must succeed: `all`, `any` or a number.",
	},
	do: { ...ref("sequence"), description: "The body: the nodes run per item or per iteration." },
	max: whole(1, "The most items or iterations."),
	ledger: text("The node's own id: opens a ledger of obligations (per item for a map)."),
	reuse: {
		enum: ["ignore-tree", "never"],
		description:
			"With `--reuse`: `ignore-tree` leaves the repository's tree out of the visit's identity; `never` always runs it.",
	},
	"reuse-never": {
		enum: ["never"],
		description: "With `--reuse`: `never` always runs this node (its other parts decide otherwise).",
	},
} satisfies Record<string, JsonSchemaDoc>;
