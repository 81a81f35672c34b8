/**
 * Reads the type notation of `output:` and `input:`.
 * Input: the YAML node of the value. Output: a {@link Type}, or every `schema-invalid` problem at once.
 *   `{ tasks: [{ worker: scout | reviewer, note?: string }] }`
 *   → object(tasks: list(object(worker: enum(scout, reviewer), note?: string)))
 * `{ json-schema: {...} }` hands over to the long form.
 */
import { isAlias, isMap, isScalar, isSeq, type Node, type Scalar, type YAMLMap } from "yaml";
import { nearest } from "../../faults/index.ts";
import { FILE_START } from "../../text/index.ts";
import { RESERVED_WORDS, scalarBase } from "../syntax/index.ts";
import { readJsonSchema } from "./json-schema.ts";
import { BOOLEAN, enumOf, type Field, listOf, NUMBER, objectOf, QUESTION, STRING, type Type } from "./type.ts";
import { badFieldName, IDENTIFIER, join, Problems, suggestion, type TypeAt } from "./type-at.ts";

/** A parse result: a type when there are no faults. */
export interface ParsedType {
	value?: Type;
	faults: Problems["faults"];
}

const NOTATION = "string, number, boolean, Question, `a | b`, `[type]` or `{ field: type }`";

// Maps, not object literals: a user's word such as `constructor` must not find Object.prototype.
const NAMED = new Map<string, Type>([
	["string", STRING],
	["number", NUMBER],
	["boolean", BOOLEAN],
	["Question", QUESTION],
]);

/** Words people reach for, and what to say about them. */
const NOT_TYPES = new Map<string, string>([
	["integer", "Write `number`: integers and decimals are one type."],
	["int", "Write `number`: integers and decimals are one type."],
	["float", "Write `number`."],
	["bool", "Write `boolean`."],
	["str", "Write `string`."],
	["any", "There is no `any`: leave `output:` out for untyped text, or name the shape."],
	["text", "Leave `output:` out: an agent's untyped output is text."],
	["null", "There is no `null`: mark a field optional with `?` instead."],
	["object", "Write the fields: `{ name: string, count?: number }`."],
	["array", "Write the element type in brackets: `[string]`."],
	["list", "Write the element type in brackets: `[string]`."],
]);

const RESERVED: ReadonlySet<string> = new Set(RESERVED_WORDS);

function scalarType(node: Scalar, where: string, p: Problems): Type | undefined {
	const range = p.rangeOf(node);
	if (typeof node.value !== "string") {
		const shown = node.value === null ? "An empty value" : `\`${String(node.source ?? node.value)}\``;
		p.add(range, where, `${shown} is not a type: write ${NOTATION}.`);
		return undefined;
	}
	const text = node.value;
	const trimmed = text.trim();
	// `output: "{ ok: boolean }"`: YAML reads a quoted type as text, and `"{ s: a | b }"` would pass for an
	// enum of two odd strings. Say what happened instead.
	if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
		const quoted = node.type === "QUOTE_DOUBLE" || node.type === "QUOTE_SINGLE";
		p.add(
			range,
			where,
			`\`${trimmed}\` is ${quoted ? "quoted, so YAML reads it as text" : "text to YAML"}: write the type without quotes, as YAML, like \`output: { ok: boolean }\`.`,
		);
		return undefined;
	}
	if (text.includes("|")) return enumType(node, text, where, p);
	const word = text.trim();
	const named = NAMED.get(word);
	if (named) return named;
	const near = suggestion(nearest(word, NAMED.keys()));
	const advice = NOT_TYPES.get(word) ?? (near.text.trim() || "An enum needs at least two values: `a | b`.");
	p.add(range, where, `\`${word}\` is not a type. ${advice}`, near.expected);
	return undefined;
}

/** `scout | reviewer`: each value is checked at its own column when the scalar maps back exactly. */
function enumType(node: Scalar, text: string, where: string, p: Problems): Type | undefined {
	const base = scalarBase(node, p.at.table.text, p.at.yamlBase);
	const whole = p.rangeOf(node);
	const at = (start: number, end: number) => (base === undefined ? whole : p.at.table.range(base + start, base + end));
	const before = p.faults.length;
	const values: string[] = [];
	let start = 0;
	for (const part of text.split("|")) {
		const end = start + part.length;
		const value = part.trim();
		const valueStart = start + part.indexOf(value);
		if (value === "") {
			const bar = end < text.length ? end : Math.max(0, start - 1);
			p.add(at(bar, bar + 1), where, "An enum value is empty: write a value on each side of every `|`.");
		} else if (/[{}[\]:,]/.test(value)) {
			p.add(
				at(valueStart, valueStart + value.length),
				where,
				`\`${value}\` is not an enum value: values are plain words, and a field or a list is written as YAML, \`{ status: done | failed }\`, not inside a string.`,
			);
		} else if (values.includes(value)) {
			p.add(at(valueStart, valueStart + value.length), where, `\`${value}\` is repeated in the enum.`);
		} else if (NAMED.has(value)) {
			p.add(
				at(valueStart, valueStart + value.length),
				where,
				`\`${value}\` is a type name, not an enum value: the notation has no unions of types.`,
			);
		} else {
			values.push(value);
		}
		start = end + 1;
	}
	if (p.faults.length > before) return undefined;
	return enumOf(values);
}

function listType(items: readonly unknown[], node: Node, where: string, p: Problems): Type | undefined {
	if (items.length === 0) {
		p.add(p.rangeOf(node), where, "A list type names its element type: write `[string]` or `[{ field: type }]`.");
		return undefined;
	}
	const of = shorthand(items[0], `${where}[]`, p);
	if (items.length > 1) {
		const second = items[1] as Node;
		const last = items[items.length - 1] as Node;
		const range = { start: p.rangeOf(second).start, end: p.rangeOf(last).end };
		p.add(range, where, "A list type has exactly one element type; there are no tuples.");
		return undefined;
	}
	return of ? listOf(of) : undefined;
}

function objectType(map: YAMLMap, where: string, p: Problems): Type | undefined {
	if (map.items.length === 0) {
		p.add(p.rangeOf(map), where, "An object type has at least one field: `{ name: string }`.");
		return undefined;
	}
	const fields: Field[] = [];
	let ok = true;
	for (const pair of map.items) {
		const key = pair.key;
		const keyText = isScalar(key) && typeof key.value === "string" ? key.value : undefined;
		const keyRange = p.rangeOf(isScalar(key) ? key : map);
		if (keyText === undefined) {
			p.add(keyRange, where, "A field name is a plain name, like `task` or `note?`.");
			ok = false;
			continue;
		}
		const optional = keyText.endsWith("?");
		const name = optional ? keyText.slice(0, -1) : keyText;
		const here = join(where, name);
		if (name === "json-schema") {
			p.add(keyRange, here, "`json-schema` stands alone: it is the whole of `output:` or `input:`, not a part.");
			ok = false;
		} else if (!IDENTIFIER.test(name) || RESERVED.has(name)) {
			const fixed = name.replace(/[^A-Za-z0-9_]/g, "_");
			p.add(keyRange, here, badFieldName(name), IDENTIFIER.test(fixed) && fixed !== name ? [fixed] : undefined);
			ok = false;
		} else if (fields.some((f) => f.name === name)) {
			p.add(keyRange, here, `\`${name}\` is a field twice.`);
			ok = false;
		}
		const type = shorthand(pair.value ?? null, here, p, keyRange);
		if (type && ok) fields.push({ name, type, optional });
		else ok = false;
	}
	return ok ? objectOf(fields) : undefined;
}

function shorthand(node: unknown, where: string, p: Problems, absentAt = p.fallback): Type | undefined {
	if (node === null || node === undefined) {
		p.add(absentAt, where, `A type is missing here: write ${NOTATION}.`);
		return undefined;
	}
	if (isAlias(node)) {
		p.add(p.rangeOf(node), where, "Aliases (`*name`) are not read in a type: write the type out.");
		return undefined;
	}
	if (isScalar(node) && node.value === null && node.range?.[0] === node.range?.[1]) {
		// `{ a: }`: nothing was written, so point at the key that lacks it.
		return shorthand(null, where, p, absentAt);
	}
	if (isScalar(node)) return scalarType(node, where, p);
	if (isSeq(node)) return listType(node.items, node, where, p);
	if (isMap(node)) return objectType(node, where, p);
	p.add(absentAt, where, "This is not a type.");
	return undefined;
}

/**
 * The type written at `node` (a yaml node, or null for an empty value), short form or
 * `{ json-schema: {...} }`, with every problem reported at once as `schema-invalid` at the exact YAML node
 * and the path inside the schema.
 */
export function parseTypeShorthand(node: unknown, at: TypeAt): ParsedType {
	// An empty value still has a (zero-width) place; the key is a better one when the caller knows it.
	const own = new Problems(at, FILE_START).rangeOf(node);
	const p = new Problems(at, at.keyRange ?? own);
	const longForm = isMap(node) && node.items.some((pair) => isScalar(pair.key) && pair.key.value === "json-schema");
	const value = longForm ? readJsonSchema(node, p) : shorthand(node, "", p);
	return p.faults.length ? { faults: p.faults } : { value, faults: [] };
}
