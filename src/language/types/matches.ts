/**
 * Run-time validation of a value against its declared type: a `submit` call, a flow's `input`, a scripted
 * answer. The first mismatch is enough, because the caller refuses the whole value and says where.
 */
import { typeToString } from "./render.ts";
import type { Type } from "./type.ts";

/** Whether a value fits, and if not, where and what was expected there. */
export type Match = { ok: true } | { ok: false; path: string; expected: string };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const at = (path: string, key: string | number) =>
	typeof key === "number" ? `${path}[${key}]` : path ? `${path}.${key}` : key;

function check(value: unknown, type: Type, path: string): Match {
	const no = (expected: string): Match => ({ ok: false, path, expected });
	switch (type.kind) {
		case "string":
		case "text":
		case "freeString":
			return typeof value === "string" ? { ok: true } : no("string");
		case "number":
			return typeof value === "number" && Number.isFinite(value) ? { ok: true } : no("number");
		case "boolean":
			return typeof value === "boolean" ? { ok: true } : no("boolean");
		case "enum":
			if (typeof value === "string" && type.values.includes(value)) return { ok: true };
			return no(`one of ${type.values.join(", ")}`);
		case "list": {
			if (!Array.isArray(value)) return no(typeToString(type));
			if (type.maxItems !== undefined && value.length > type.maxItems)
				return no(`at most ${type.maxItems} items, not ${value.length}`);
			for (let i = 0; i < value.length; i++) {
				const m = check(value[i], type.of, at(path, i));
				if (!m.ok) return m;
			}
			return { ok: true };
		}
		case "object": {
			if (!isRecord(value)) return no(typeToString(type));
			for (const f of type.fields) {
				const v = Object.hasOwn(value, f.name) ? value[f.name] : undefined;
				if (v === undefined) {
					if (f.optional) continue;
					return { ok: false, path: at(path, f.name), expected: typeToString(f.type) };
				}
				const m = check(v, f.type, at(path, f.name));
				if (!m.ok) return m;
			}
			const names = type.fields.map((f) => f.name);
			const extra = Object.keys(value).find((k) => value[k] !== undefined && !names.includes(k));
			if (extra !== undefined) {
				return { ok: false, path: at(path, extra), expected: `no such field (fields: ${names.join(", ")})` };
			}
			return { ok: true };
		}
	}
}

/**
 * Whether `value` fits `type`. Objects are closed (an extra field is a mismatch, as the `submit` schema
 * says), `null` fits nothing, and numbers must be finite. `path` is `""` for the value itself, else like
 * `tasks[1].worker`.
 */
export function matches(value: unknown, type: Type): Match {
	return check(value, type, "");
}
