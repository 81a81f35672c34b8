/**
 * A small JSON Schema (2020-12) validator for exactly the keywords `frontmatterSchema()` emits, so the schema
 * is tested without a validator dependency. A keyword it does not know throws, so the schema cannot grow a
 * keyword this test would silently skip. To use a full validator instead, replace `validate` with ajv's
 * `new Ajv2020({ strict: false }).compile(schema)` and map its `errors` to strings: the tests call only this.
 */

type Schema = Record<string, unknown>;

const ANNOTATIONS = new Set(["$schema", "title", "description", "$comment", "$defs"]);

/** The errors of `value` against `schema` (empty when it validates), each as `/path: why`. */
export function validate(schema: Schema, value: unknown): string[] {
	const errors: string[] = [];
	check(schema, value, "", schema, errors);
	return errors;
}

function typeOf(v: unknown): string {
	if (v === null) return "null";
	if (Array.isArray(v)) return "array";
	if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
	return typeof v;
}

function fits(type: string, v: unknown): boolean {
	const t = typeOf(v);
	return t === type || (type === "number" && t === "integer");
}

function check(s: Schema, v: unknown, path: string, root: Schema, errors: string[]): void {
	const fail = (why: string) => errors.push(`${path || "/"}: ${why}`);
	const sub = (schema: unknown, value: unknown, at: string) => {
		const inner: string[] = [];
		check(schema as Schema, value, at, root, inner);
		return inner;
	};
	for (const [key, arg] of Object.entries(s)) {
		if (ANNOTATIONS.has(key)) continue;
		const obj = v as Record<string, unknown>;
		const isObj = typeOf(v) === "object";
		switch (key) {
			case "$ref": {
				const name = String(arg).replace("#/$defs/", "");
				const target = (root.$defs as Record<string, Schema>)[name];
				if (!target) throw new Error(`no $defs/${name}`);
				check(target, v, path, root, errors);
				break;
			}
			case "type": {
				const types = Array.isArray(arg) ? (arg as string[]) : [arg as string];
				if (!types.some((t) => fits(t, v))) fail(`expected ${types.join(" or ")}, got ${typeOf(v)}`);
				break;
			}
			case "enum":
				if (!(arg as unknown[]).some((x) => JSON.stringify(x) === JSON.stringify(v)))
					fail(`not one of ${JSON.stringify(arg)}`);
				break;
			case "const":
				if (JSON.stringify(arg) !== JSON.stringify(v)) fail(`expected ${JSON.stringify(arg)}`);
				break;
			case "properties":
				if (isObj)
					for (const [k, ps] of Object.entries(arg as Record<string, Schema>))
						if (k in obj) errors.push(...sub(ps, obj[k], `${path}/${k}`));
				break;
			case "required":
				if (isObj) for (const k of arg as string[]) if (!(k in obj)) fail(`missing ${k}`);
				break;
			case "additionalProperties":
				if (isObj) {
					const known = Object.keys((s.properties as Record<string, unknown>) ?? {});
					for (const k of Object.keys(obj).filter((k) => !known.includes(k))) {
						if (arg === false) fail(`unknown key ${k}`);
						else errors.push(...sub(arg, obj[k], `${path}/${k}`));
					}
				}
				break;
			case "propertyNames":
				if (isObj) for (const k of Object.keys(obj)) errors.push(...sub(arg, k, `${path}/${k}`));
				break;
			case "minProperties":
				if (isObj && Object.keys(obj).length < (arg as number)) fail(`fewer than ${arg} keys`);
				break;
			case "dependentRequired":
				if (isObj)
					for (const [k, needs] of Object.entries(arg as Record<string, string[]>))
						if (k in obj) for (const n of needs) if (!(n in obj)) fail(`${k} needs ${n}`);
				break;
			case "items":
				if (Array.isArray(v)) for (const [i, item] of v.entries()) errors.push(...sub(arg, item, `${path}/${i}`));
				break;
			case "minItems":
				if (Array.isArray(v) && v.length < (arg as number)) fail(`fewer than ${arg} items`);
				break;
			case "maxItems":
				if (Array.isArray(v) && v.length > (arg as number)) fail(`more than ${arg} items`);
				break;
			case "uniqueItems":
				if (arg === true && Array.isArray(v) && new Set(v.map((x) => JSON.stringify(x))).size !== v.length)
					fail("items repeat");
				break;
			case "minLength":
				if (typeof v === "string" && [...v].length < (arg as number)) fail(`shorter than ${arg}`);
				break;
			case "pattern":
				if (typeof v === "string" && !new RegExp(arg as string, "u").test(v)) fail(`does not match ${arg}`);
				break;
			case "minimum":
				if (typeof v === "number" && v < (arg as number)) fail(`below ${arg}`);
				break;
			case "maximum":
				if (typeof v === "number" && v > (arg as number)) fail(`above ${arg}`);
				break;
			case "exclusiveMinimum":
				if (typeof v === "number" && v <= (arg as number)) fail(`not above ${arg}`);
				break;
			case "anyOf":
				if (!(arg as Schema[]).some((a) => sub(a, v, path).length === 0)) fail("matches none of anyOf");
				break;
			case "oneOf": {
				const n = (arg as Schema[]).filter((a) => sub(a, v, path).length === 0).length;
				if (n !== 1) fail(`matches ${n} of oneOf, not exactly one`);
				break;
			}
			case "not":
				if (sub(arg, v, path).length === 0) fail("matches what `not` forbids");
				break;
			default:
				throw new Error(`json-schema-lite does not know the keyword \`${key}\``);
		}
	}
}
