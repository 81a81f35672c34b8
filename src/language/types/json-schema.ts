/**
 * The long form, `{ json-schema: {...} }`: the subset of JSON Schema that maps onto the type model and
 * nothing more, so a schema written for another tool is refused keyword by keyword instead of being
 * half-understood. Keywords: type, properties, required, items, enum, description.
 */
import { isMap, isScalar, isSeq, type Pair, type YAMLMap } from "yaml";
import { nearest } from "../../faults/index.ts";
import { RESERVED_WORDS } from "../syntax/index.ts";
import { BOOLEAN, enumOf, type Field, listOf, NUMBER, objectOf, STRING, type Type } from "./type.ts";
import { badFieldName, IDENTIFIER, join, type Problems, suggestion } from "./type-at.ts";

const KEYWORDS = ["type", "properties", "required", "items", "enum", "description"] as const;
type Keyword = (typeof KEYWORDS)[number];
const TYPES = ["string", "number", "boolean", "array", "object"];
const TYPE_ADVICE = new Map<string, string>([
	["integer", "Write `number`: integers and decimals are one type."],
	["null", "There is no `null`: leave the property out of `required` instead."],
]);
/** Which keywords belong to which `type`; elsewhere they are refused rather than ignored. */
const ONLY_FOR: Partial<Record<Keyword, string>> = {
	enum: "string",
	items: "array",
	properties: "object",
	required: "object",
};
const RESERVED: ReadonlySet<string> = new Set(RESERVED_WORDS);

const text = (node: unknown): string | undefined =>
	isScalar(node) && typeof node.value === "string" ? node.value : undefined;

/** The keywords present, plus those a misspelt key probably meant (never also reported as missing). */
interface Keywords {
	found: Map<Keyword, Pair>;
	meant: Set<string>;
}

function keywords(node: YAMLMap, where: string, p: Problems): Keywords {
	const found = new Map<Keyword, Pair>();
	const meant = new Set<string>();
	for (const pair of node.items) {
		const name = text(pair.key);
		if (name !== undefined && (KEYWORDS as readonly string[]).includes(name)) {
			found.set(name as Keyword, pair);
			continue;
		}
		const near = suggestion(name === undefined ? undefined : nearest(name, KEYWORDS));
		if (near.expected) meant.add(near.expected[0]);
		const shown = name === undefined ? "This key" : `\`${name}\``;
		const message = `${shown} is not a keyword of the json-schema subset: ${KEYWORDS.join(", ")}.${near.text}`;
		p.add(p.rangeOf(isScalar(pair.key) ? pair.key : node), join(where, name ?? "?"), message, near.expected);
	}
	return { found, meant };
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
		if (value === undefined || value.trim() === "") {
			p.add(p.rangeOf(item), where, "An enum value is a non-empty string.");
		} else if (values.includes(value)) {
			p.add(p.rangeOf(item), where, `\`${value}\` is repeated in the enum.`);
		} else values.push(value);
	}
	if (p.faults.length === before && values.length < 2) {
		p.add(p.rangeOf(pair.value), where, "An enum has at least two values; a single one is a constant.");
	}
	return p.faults.length === before ? values : undefined;
}

/** The names `required` lists, each checked against the properties. */
function requiredNames(required: Pair | undefined, names: readonly string[], where: string, p: Problems): Set<string> {
	const wanted = new Set<string>();
	if (!required) return wanted;
	const here = join(where, "required");
	if (!isSeq(required.value)) {
		p.add(p.rangeOf(required.value ?? required.key), here, "`required` is a list of property names.");
		return wanted;
	}
	for (const item of required.value.items) {
		const name = text(item);
		if (name === undefined || !names.includes(name)) {
			const near = suggestion(name === undefined ? undefined : nearest(name, names));
			p.add(p.rangeOf(item), here, `\`${name ?? String(item)}\` names no property.${near.text}`, near.expected);
		} else if (wanted.has(name)) {
			p.add(p.rangeOf(item), here, `\`${name}\` is required twice.`);
		} else wanted.add(name);
	}
	return wanted;
}

function properties(pair: Pair, required: Pair | undefined, where: string, p: Problems): Type | undefined {
	const props = pair.value;
	if (!isMap(props) || props.items.length === 0) {
		p.add(p.rangeOf(props ?? pair.key), where, "`properties` maps at least one field name to its schema.");
		return undefined;
	}
	const names = props.items.map((item) => text(item.key)).filter((n) => n !== undefined);
	const wanted = requiredNames(required, names, where, p);
	const fields: Field[] = [];
	let ok = true;
	for (const item of props.items) {
		const name = text(item.key);
		const here = join(join(where, "properties"), name ?? "?");
		if (name === undefined || !IDENTIFIER.test(name) || RESERVED.has(name)) {
			p.add(p.rangeOf(isScalar(item.key) ? item.key : props), here, badFieldName(name ?? "?"));
			ok = false;
		}
		const type = schema(item.value, here, p);
		if (type && name !== undefined) fields.push({ name, type, optional: !wanted.has(name) });
		else ok = false;
	}
	return ok ? objectOf(fields) : undefined;
}

function typeOf(found: Keywords, node: YAMLMap, where: string, p: Problems): string | undefined {
	const pair = found.found.get("type");
	if (!pair) {
		const message = "A json-schema needs `type`: string, number, boolean, array or object.";
		if (!found.meant.has("type")) p.add(p.rangeOf(node), where, message);
		return undefined;
	}
	const name = text(pair.value);
	if (name !== undefined && TYPES.includes(name)) return name;
	const near = suggestion(name === undefined ? undefined : nearest(name, TYPES));
	const advice = (name && TYPE_ADVICE.get(name)) || near.text.trim();
	const message = `\`type\` is one of string, number, boolean, array, object. ${advice}`.trim();
	p.add(p.rangeOf(pair.value ?? pair.key), join(where, "type"), message, near.expected);
	return undefined;
}

function schema(node: unknown, where: string, p: Problems): Type | undefined {
	if (!isMap(node)) {
		const range = p.rangeOf(isScalar(node) || isSeq(node) ? node : null);
		p.add(range, where, "A json-schema is a mapping with `type` and its keywords.");
		return undefined;
	}
	const found = keywords(node, where, p);
	const describedBy = found.found.get("description");
	const description = describedBy ? text(describedBy.value) : undefined;
	if (describedBy && description === undefined) {
		const range = p.rangeOf(describedBy.value ?? describedBy.key);
		p.add(range, join(where, "description"), "`description` is a string.");
	}
	const typeName = typeOf(found, node, where, p);
	if (typeName === undefined) return undefined;
	for (const [keyword, owner] of Object.entries(ONLY_FOR)) {
		const pair = found.found.get(keyword as Keyword);
		if (!pair || owner === typeName) continue;
		const message = `\`${keyword}\` belongs to \`type: ${owner}\`, not \`type: ${typeName}\`.`;
		p.add(p.rangeOf(pair.key), join(where, keyword), message);
	}
	const before = p.faults.length;
	const type = byType(typeName, found, node, where, p);
	if (!type || p.faults.length > before) return undefined;
	return description === undefined ? type : { ...type, description };
}

function byType(typeName: string, kw: Keywords, node: YAMLMap, where: string, p: Problems): Type | undefined {
	if (typeName === "number") return NUMBER;
	if (typeName === "boolean") return BOOLEAN;
	if (typeName === "string") {
		const pair = kw.found.get("enum");
		if (!pair) return STRING;
		const values = enumValues(pair, join(where, "enum"), p);
		return values ? enumOf(values) : undefined;
	}
	if (typeName === "array") {
		const items = kw.found.get("items");
		if (!items) {
			const message = "`type: array` needs `items`, the schema of its elements.";
			if (!kw.meant.has("items")) p.add(p.rangeOf(node), where, message);
			return undefined;
		}
		const of = schema(items.value, join(where, "items"), p);
		return of ? listOf(of) : undefined;
	}
	const props = kw.found.get("properties");
	if (!props) {
		const message = "`type: object` needs `properties`, with at least one field.";
		if (!kw.meant.has("properties")) p.add(p.rangeOf(node), where, message);
		return undefined;
	}
	return properties(props, kw.found.get("required"), where, p);
}

/**
 * Reads `{ json-schema: {...} }`, which must be the only key. Every problem is added to `p` with its path
 * inside the schema (`json-schema.properties.task.type`).
 */
export function readJsonSchema(outer: YAMLMap, p: Problems): Type | undefined {
	let inner: unknown;
	for (const pair of outer.items) {
		if (text(pair.key) === "json-schema") inner = pair.value;
		else {
			const range = p.rangeOf(isScalar(pair.key) ? pair.key : outer);
			p.add(range, text(pair.key) ?? "", "`json-schema` stands alone: nothing goes beside it.");
		}
	}
	return schema(inner ?? null, "json-schema", p);
}
