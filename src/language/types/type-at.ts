/**
 * Where a type is written and how its problems are collected. A type sits in the frontmatter YAML, whose
 * node ranges count from the start of the YAML text; the YAML starts after the opening `---` line, so every
 * range adds `yamlBase` to stay absolute in the flow file (style rule 4).
 */
import { isNode } from "yaml";
import { type Fault, fault } from "../../faults/index.ts";
import type { LineTable, Range } from "../../text/index.ts";

/** The place of a type's YAML in its file. */
export interface TypeAt {
	file: string;
	/** The line table of the whole flow file. */
	table: LineTable;
	/** Absolute offset of the YAML text in the file (the first character after the opening `---` line). */
	yamlBase: number;
	/** Node path plus key, e.g. `plan.output`; the path inside the schema is appended to it. */
	path: string;
	/** Where to point when the value is missing (`output:` with nothing after it). Default: the empty value's place. */
	keyRange?: Range;
}

/** Collects every problem of one type at once (combo reports all, never the first only). */
export class Problems {
	readonly faults: Fault[] = [];
	readonly at: TypeAt;
	readonly fallback: Range;

	/** @param fallback the range to use for a node without one (an absent value) */
	constructor(at: TypeAt, fallback: Range) {
		this.at = at;
		this.fallback = fallback;
	}

	/** The absolute range of a YAML node, without its trailing comment; the fallback for anything else. */
	rangeOf(node: unknown): Range {
		const r = isNode(node) ? node.range : undefined;
		if (!r) return this.fallback;
		return this.at.table.range(this.at.yamlBase + r[0], this.at.yamlBase + r[1]);
	}

	/**
	 * Records a `schema-invalid` fault.
	 *
	 * @param where the path inside the schema, `tasks[].worker` or `json-schema.properties.task`
	 */
	add(range: Range, where: string, message: string, expected?: string[]): void {
		const path = where.startsWith("[") ? `${this.at.path}${where}` : join(this.at.path, where);
		this.faults.push(fault("schema-invalid", this.at.file, range, path, message, { expected }));
	}
}

/** `parent.child`, with no dot at either end when one side is empty. */
export function join(parent: string, child: string): string {
	return parent && child ? `${parent}.${child}` : parent || child;
}

/** CEL identifiers: field names must be readable by conditions. */
export const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The message for a field name that is not a CEL identifier, shared by both notations. */
export function badFieldName(name: string): string {
	const rule = "use letters, digits and `_`, not starting with a digit, and no reserved word";
	return `\`${name}\` is not a field name: conditions read fields, so ${rule}.`;
}

/** " Did you mean `x`?" and its `expected`, or nothing. */
export function suggestion(near: string | undefined): { text: string; expected?: string[] } {
	return near ? { text: ` Did you mean \`${near}\`?`, expected: [near] } : { text: "" };
}
