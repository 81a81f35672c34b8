/**
 * The long form, `{ json-schema: {...} }`: the subset of JSON Schema that maps onto the type model and
 * nothing more, so a schema written for another tool is refused keyword by keyword instead of being
 * half-understood. Keywords: type, properties, required, items, enum, description.
 */
import { isMap, isScalar, isSeq, type Pair, type YAMLMap } from "yaml";
import { nearest } from "../../faults/index.ts";
import { RESERVED_WORDS } from "../syntax/index.ts";
import { BOOLEAN, enumOf, type Field, listOf, NUMBER, objectOf, STRING, type Type } from "./type.ts";
import { IDENTIFIER, join, type Problems } from "./type-at.ts";

const KEYWORDS = ["type", "properties", "required", "items", "enum", "description"] as const;
type Keyword = (typeof KEYWORDS)[number];
const TYPES = ["string", "number", "boolean", "array", "object"];
const TYPE_ADVICE: Record<string, string> = {
	integer: "Write `number`: integers and decimals are one type.",
	null: "There is no `null`: leave the property out of `required` instead.",
};
/** Which keywords belong to which `type`; the others are refused there rather than ignored. */
const ONLY_FOR: Partial<Record<Keyword, string>> = { enum: "string", items: "array", properties: "object", required: "object" };
const RESERVED: ReadonlySet<string> = new Set(RESERVED_WORDS);

const text = (node: unknown): string | undefined =>
	isScalar(node) && typeof node.value === "string" ? node.value : undefined;

function keywords(node: YAMLMap, where: string, p: Problems): Map<Keyword, Pair> {
	const found = new Map<Keyword, Pair>();
	for (const pair of node.items) {
		const name = text(pair.key);
		if (name !== undefined && (KEYWORDS as readonly string[]).includes(name)) {
			found.set(name as Keyword, pair);
			continue;
		}
		const near = name === undefined ? undefined : nearest(name, KEYWORDS);
		const shown = name === undefined ? "This key" : `\`${name}\``;
		p.add(
			p.rangeOf(isScalar(pair.key) ? pair.key : node),
			join(where, name ?? "?"),
			`${shown} is not a keyword of the json-schema subset: type, properties, required, items, enum, description.${near ? ` Did you mean \`${near}\`?` : ""}`,
			near ? [near] : undefined,
		);
	}
	return found;
}

function enumValues(pair: Pair, where: string, p: Problems): string[] | undefined {
	if (!isSeq(pair.value)) {
		p.add(p.rangeOf(pair.value ?? pair.key), where, "`enum` is a list of at least two strings.");
		return undefined;
	}
	const values: string[] = [];
	const before = p.faults.length;
	for (const item of pair.value.items) {
		const value = text(item);
		if (value === undefined || value.trim() === "") p.add(p.rangeOf(item), where, "An enum value is a non-empty string.");
		else if (values.includes(value)) p.add(p.rangeOf(item), where, `\`${value}\` is repeated in the enum.`);
		else values.push(value);
	}
	if (p.faults.length === before && values.length < 2) {
		p.add(p.rangeOf(pair.value), where, "An enum has at least two values; a single one is a constant, which a flow does not need.");
	}
	return p.faults.length === before ? values : undefined;
}

function properties(pair: Pair, required: Pair | undefined, where: string, p: Problems): Type | undefined {
	const props = pair.value;
	if (!isMap(props) || props.items.length === 0) {
		p.add(p.rangeOf(props ?? pair.key), where, "`properties` maps at least one field name to its schema.");
		return undefined;
	}
	const names = props.items.map((item) => text(item.key));
	const wanted = new Set<string>();
	if (required) {
		const list = required.value;
		const items = isSeq(list) ? list.items : [];
		if (!isSeq(list)) p.add(p.rangeOf(list ?? required.key), join(where, "required"), "`required` is a list of property names.");
		for (const item of items) {
			const name = text(item);
			const near = name === undefined ? undefined : nearest(name, names.filter((n) => n !== undefined));
			if (name === undefined || !names.includes(name)) {
				p.add(p.rangeOf(item), join(where, "required"), `\`${name ?? String(item)}\` names no property.${near ? ` Did you mean \`${near}\`?` : ""}`, near ? [near] : undefined);
			} else if (wanted.has(name)) p.add(p.rangeOf(item), join(where, "required"), `\`${name}\` is required twice.`);
			else wanted.add(name);
		}
	}
	const fields: Field[] = [];
	let ok = true;
	for (const item of props.items) {
		const name = text(item.key);
		const here = join(join(where, "properties"), name ?? "?");
		if (name === undefined || !IDENTIFIER.test(name) || RESERVED.has(name)) {
			p.add(p.rangeOf(isScalar(item.key) ? item.key : props), here, `\`${name ?? "?"}\` is not a field name: conditions read fields, so use letters, digits and \`_\`, not starting with a digit, and no reserved word.`);
			ok = false;
		}
		const type = schema(item.value, here, p);
		if (type && name !== undefined) fields.push({ name, type, optional: !wanted.has(name) });
		else ok = false;
	}
	return ok ? objectOf(fields) : undefined;
}

function schema(node: unknown, where: string, p: Problems): Type | undefined {
	if (!isMap(node)) {
		p.add(p.rangeOf(isScalar(node) || isSeq(node) ? node : null), where, "A json-schema is a mapping with `type` and its keywords.");
		return undefined;
	}
	const found = keywords(node, where, p);
	const typePair = found.get("type");
	const typeName = typePair ? text(typePair.value) : undefined;
	const description = found.has("description") ? text(found.get("description")?.value) : undefined;
	if (found.has("description") && description === undefined) {
		const pair = found.get("description") as Pair;
		p.add(p.rangeOf(pair.value ?? pair.key), join(where, "description"), "`description` is a string.");
	}
	if (!typePair) {
		p.add(p.rangeOf(node), where, "A json-schema needs `type`: string, number, boolean, array or object.");
		return undefined;
	}
	if (typeName === undefined || !TYPES.includes(typeName)) {
		const near = typeName === undefined ? undefined : nearest(typeName, TYPES);
		const advice = (typeName && TYPE_ADVICE[typeName]) ?? (near ? `Did you mean \`${near}\`?` : "");
		p.add(p.rangeOf(typePair.value ?? typePair.key), join(where, "type"), `\`type\` is one of string, number, boolean, array, object. ${advice}`.trim(), near ? [near] : undefined);
		return undefined;
	}
	for (const [keyword, owner] of Object.entries(ONLY_FOR)) {
		const pair = found.get(keyword as Keyword);
		if (pair && owner !== typeName) p.add(p.rangeOf(pair.key), join(where, keyword), `\`${keyword}\` belongs to \`type: ${owner}\`, not \`type: ${typeName}\`.`);
	}
	const before = p.faults.length;
	const type = byType(typeName, found, node, where, p);
	if (!type || p.faults.length > before) return undefined;
	return description === undefined ? type : { ...type, description };
}

function byType(typeName: string, found: Map<Keyword, Pair>, node: YAMLMap, where: string, p: Problems): Type | undefined {
	if (typeName === "number") return NUMBER;
	if (typeName === "boolean") return BOOLEAN;
	if (typeName === "string") {
		const pair = found.get("enum");
		if (!pair) return STRING;
		const values = enumValues(pair, join(where, "enum"), p);
		return values ? enumOf(values) : undefined;
	}
	if (typeName === "array") {
		const items = found.get("items");
		if (!items) {
			p.add(p.rangeOf(node), where, "`type: array` needs `items`, the schema of its elements.");
			return undefined;
		}
		const of = schema(items.value, join(where, "items"), p);
		return of ? listOf(of) : undefined;
	}
	const props = found.get("properties");
	if (!props) {
		p.add(p.rangeOf(node), where, "`type: object` needs `properties`, with at least one field.");
		return undefined;
	}
	return properties(props, found.get("required"), where, p);
}

/**
 * Reads `{ json-schema: {...} }`, which must be the only key. Every problem is added to `p` with its path
 * inside the schema (`json-schema.properties.task.type`).
 */
export function readJsonSchema(outer: YAMLMap, p: Problems): Type | undefined {
	let inner: unknown;
	for (const pair of outer.items) {
		if (text(pair.key) === "json-schema") inner = pair.value;
		else p.add(p.rangeOf(isScalar(pair.key) ? pair.key : outer), text(pair.key) ?? "", "`json-schema` stands alone: nothing goes beside it.");
	}
	return schema(inner ?? null, "json-schema", p);
}
