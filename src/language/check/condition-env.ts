/**
 * What a condition may read, as an interface: the flow checker knows which nodes ended before this one
 * (lexical visibility, loops' `previous`, map items), so it resolves addresses; the condition checker only
 * types what comes back. `readFields` and `unknownName` keep the faults of every resolver alike.
 */
import { byCloseness, type Fault, fault, nearest } from "../../faults/index.ts";
import type { Range } from "../../text/index.ts";
import type { AddressExpr, Segment } from "../syntax/index.ts";
import { typeToString, type Type } from "../types/index.ts";

/** An address resolved to its type, or refused with the fault the resolver chose. */
export type Resolution = { type: Type } | { fault: Fault };

/** The scope a condition is checked in. */
export interface ConditionEnv {
	/** The flow file, for faults. */
	readonly file: string;
	/** The node path plus key (`deliver.loop`, `gate.choice[2].when`), for faults. */
	readonly path: string;
	/**
	 * The type of `segments` (never empty; each has its own range). Bound variables of `all`/`exists`
	 * never reach here: the checker resolves them itself. `expr` is the address they are the segments of, so
	 * the flow checker can record what it binds.
	 */
	resolve(segments: readonly Segment[], expr?: AddressExpr): Resolution;
}

/**
 * `condition-unknown-address` for a name that is not readable here (or a field its object lacks), naming
 * the nearest candidate, or else listing the closest few so the user sees what does exist.
 */
export function unknownName(
	env: Pick<ConditionEnv, "file" | "path">,
	segment: Segment,
	candidates: readonly string[],
	kind: "name" | "field" = "name",
): Fault {
	const near = nearest(segment.name, candidates);
	const some = byCloseness(segment.name, candidates, 5);
	const what = kind === "name" ? "readable here" : "a field here";
	const known = kind === "name" ? "Readable here" : "Fields";
	const listed = some.length ? ` ${known}: ${some.join(", ")}.` : "";
	const message = `\`${segment.name}\` is not ${what}.${near ? ` Did you mean \`${near}\`?` : listed}`;
	const details = { expected: near ? [near] : undefined };
	return fault("condition-unknown-address", env.file, segment.range, env.path, message, details);
}

/**
 * Walks `segments[from..]` as fields of `base`: each must be a field of an object type. A resolver calls
 * it after the first one or two segments (`plan.output` → the node's output type), and the checker for
 * a bound variable.
 */
export function readFields(
	env: Pick<ConditionEnv, "file" | "path">,
	base: Type,
	segments: readonly Segment[],
	from: number,
): Resolution {
	let type = base;
	for (let i = from; i < segments.length; i++) {
		const seg = segments[i];
		if (type.kind !== "object") {
			const why =
				type.kind === "text"
					? "an agent's untyped text has no fields; give the node an `output:` type"
					: `it is ${typeToString(type)}, which has no fields`;
			// From the dot, so the fault reads `.verdict` rather than just the name.
			const range: Range = i > 0 ? { start: segments[i - 1].range.end, end: seg.range.end } : seg.range;
			const message = `\`.${seg.name}\` cannot be read: ${why}.`;
			const hint =
				type.kind === "text"
					? "Give the node an `output:` type with that field (`output: { ok: boolean }`) and read it."
					: "Read the value itself, without the field, or give it an object type that has the field.";
			return { fault: fault("condition-type", env.file, range, env.path, message, { hint }) };
		}
		const field = type.fields.find((f) => f.name === seg.name);
		if (!field) {
			return {
				fault: unknownName(
					env,
					seg,
					type.fields.map((f) => f.name),
					"field",
				),
			};
		}
		type = field.type;
	}
	return { type };
}
