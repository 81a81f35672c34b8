/**
 * Made-up values, the one generator there is: a dry run's typed turn submits one (`submitTool`'s
 * `sampleArgs`), and a starter script (`pi-flows script`) writes them. Deterministic (no clock, no
 * randomness), so two dry runs of the same flow print the same thing, and always accepted by `matches`.
 */
import type { Type, Value } from "./type.ts";

/** A value of `type`: every field filled in, optional ones too, so a dry run walks every reader. */
export function sampleValue(type: Type): Value {
	switch (type.kind) {
		case "string":
			return "sample";
		case "text":
			return "sample text";
		case "freeString":
			return "sample answer";
		case "number":
			return 1;
		case "boolean":
			return true;
		case "enum":
			return type.values[0];
		case "list":
			return [sampleValue(type.of)];
		case "object": {
			const out: { [field: string]: Value } = {};
			for (const f of type.fields) out[f.name] = sampleValue(f.type);
			return out;
		}
	}
}
