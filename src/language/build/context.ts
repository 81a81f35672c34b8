/**
 * The builder's reading tools: one object per file that turns YAML nodes into located values, each
 * mistake into one positioned fault, and hands YAML strings to the sub-language parsers at their exact
 * column (style rules 4 and 5: absolute offsets, exact only when the scalar's source is its value).
 */
import { isMap, isScalar, isSeq, type Node, type Pair, type Scalar } from "yaml";
import { didYouMean, type Fault, type FaultCode, fault, missHint } from "../../faults/index.ts";
import type { Range } from "../../text/index.ts";
import type { Address, Condition, Located } from "../ast.ts";
import type { LanguageKinds } from "../kind.ts";
import type { FlowFile } from "../read/index.ts";
import { parseAddress, parseCondition, readDuration, scalarBase, type SourceAt } from "../syntax/index.ts";
import { parseTypeShorthand, type Type } from "../types/index.ts";
import { describe } from "./yaml-nodes.ts";
import { fileBounds } from "../../limits/index.ts";

/** A key and its value, as the builder reads them. */
export interface Entry {
	key: string;
	keyRange: Range;
	value: Node | null;
	/** The value's range, or the key's when the value is empty. */
	range: Range;
}

/** The builder's view of one flow file. */
export interface BuildContext {
	readonly file: FlowFile;
	/** The kinds a node can be, handed in by the builder's entry (a kind reads its body back through here). */
	readonly kinds: LanguageKinds;
	readonly faults: Fault[];
	report(code: FaultCode, range: Range, path: string, message: string, details?: Parameters<typeof fault>[5]): void;
	rangeOf(node: Node | null | undefined, fallback: Range): Range;
	/** Counts a node; false (and one fault, the first time) once the file passed its bound of nodes. */
	node(range: Range, path: string): boolean;
	/** The entries of a mapping, in order. */
	entries(node: Node | null): Entry[] | undefined;
	str(e: Entry, path: string, what: string): Located<string> | undefined;
	int(e: Entry, path: string, min: number): Located<number> | undefined;
	num(e: Entry, path: string, min: number, max: number): Located<number> | undefined;
	bool(e: Entry, path: string): Located<boolean> | undefined;
	duration(e: Entry, path: string): Located<number> | undefined;
	address(e: Entry | { value: Node | null; range: Range }, path: string): Address | undefined;
	condition(e: Entry, path: string): Condition | undefined;
	type(e: Entry, path: string): Located<Type> | undefined;
	/** A list of distinct names (`among`, `tools`). */
	names(e: Entry, path: string, what: string): Located<string>[] | undefined;
	/** Refuses keys outside `allowed`, with the nearest as did-you-mean. */
	unknownKeys(
		entries: Entry[],
		allowed: readonly string[],
		path: string,
		owner: string,
		elsewhere?: ReadonlyMap<string, string>,
	): void;
}

/** Where a YAML node of `file` stands, or `fallback` for a node without a place. */
function rangeIn(file: FlowFile, node: Node | null | undefined, fallback: Range): Range {
	const r = node?.range;
	return r ? file.table.range(file.yamlBase + r[0], file.yamlBase + r[1]) : fallback;
}

/** Opens a build context over a read file. */
export function buildContext(file: FlowFile, kinds: LanguageKinds): BuildContext {
	const faults: Fault[] = [];
	// Bounds on the grammar's and the checker's work, whatever a repository ships (src/limits).
	const bounds = fileBounds((code, range, path, message, details) => report(code, range, path, message, details));
	const report: BuildContext["report"] = (code, range, path, message, details) =>
		faults.push(fault(code, file.file, range, path, message, details));
	// Bound, not a closure: it runs for every node of every file, and a closure's optimized code dies with
	// the file's context at the next full collection, to be compiled again for the next file.
	const rangeOf: BuildContext["rangeOf"] = rangeIn.bind(undefined, file);
	const sourceAt = (
		e: { value: Node | null; range: Range },
		path: string,
	): { text: string; at: SourceAt } | undefined => {
		if (!isScalar(e.value) || typeof e.value.value !== "string") return undefined;
		const scalar = e.value as Scalar<string>;
		const base = scalarBase(scalar, file.text, file.yamlBase);
		const at: SourceAt =
			base === undefined
				? { file: file.file, base: 0, table: file.table, path, whole: e.range }
				: { file: file.file, base, table: file.table, path };
		return { text: scalar.value, at };
	};
	const ctx: BuildContext = {
		file,
		kinds,
		faults,
		report,
		rangeOf,
		node: (range, path) => bounds.node(range, path),
		entries(node) {
			if (!isMap(node)) return undefined;
			return (node.items as Pair<Node, Node>[]).map((pair) => {
				const keyRange = rangeOf(pair.key, file.frontmatterRange);
				const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
				return { key, keyRange, value: pair.value ?? null, range: rangeOf(pair.value, keyRange) };
			});
		},
		str(e, path, what) {
			if (isScalar(e.value) && typeof e.value.value === "string" && e.value.value.trim() !== "")
				return { value: e.value.value.trim(), range: e.range };
			report("key-type", e.range, path, `\`${e.key}\` must be ${what}, not ${describe(e.value)}`);
			return undefined;
		},
		int(e, path, min) {
			const v = isScalar(e.value) ? e.value.value : undefined;
			if (typeof v === "number" && Number.isSafeInteger(v) && v >= min) return { value: v, range: e.range };
			const hint = typeof v === "string" && /^\d+$/.test(v) ? " (write it without quotes: nothing is coerced)" : "";
			// A number that is merely out of range is named as written (`not 0`), not as "a number".
			const shown = typeof v === "number" ? `\`${v}\`` : describe(e.value);
			report("key-type", e.range, path, `\`${e.key}\` must be a whole number of at least ${min}, not ${shown}${hint}`);
			return undefined;
		},
		num(e, path, min, max) {
			const v = isScalar(e.value) ? e.value.value : undefined;
			if (typeof v === "number" && Number.isFinite(v) && v > min && v <= max) return { value: v, range: e.range };
			// A number out of range is named as written ("not 1.5"); "not a number" would contradict the reader.
			const got = typeof v === "number" ? String(v) : describe(e.value);
			report("key-type", e.range, path, `\`${e.key}\` must be a number above ${min} and at most ${max}, not ${got}`);
			return undefined;
		},
		bool(e, path) {
			const v = isScalar(e.value) ? e.value.value : undefined;
			if (typeof v === "boolean") return { value: v, range: e.range };
			report("key-type", e.range, path, `\`${e.key}\` must be true or false, not ${describe(e.value)}`);
			return undefined;
		},
		duration(e, path) {
			const src = sourceAt(e, path);
			if (!src) {
				report(
					"key-type",
					e.range,
					path,
					`\`${e.key}\` must be a duration like \`90s\`, \`10m\` or \`1h30m\`, not ${describe(e.value)}`,
				);
				return undefined;
			}
			const parsed = readDuration(src.text.trim(), src.at);
			faults.push(...parsed.faults);
			return parsed.value === undefined ? undefined : { value: parsed.value, range: e.range };
		},
		address(e, path) {
			const src = sourceAt(e, path);
			if (!src) {
				report("key-type", e.range, path, `an address like \`plan.output\` is expected here, not ${describe(e.value)}`);
				return undefined;
			}
			if (!bounds.expression("address", src.text, e.range, path)) return undefined;
			const parsed = parseAddress(src.text, src.at);
			faults.push(...parsed.faults);
			if (!parsed.value) return undefined;
			const [root, ...fields] = parsed.value.segments.map((s) => s.name);
			return { root, fields, text: src.text.trim(), range: e.range, expr: parsed.value };
		},
		condition(e, path) {
			const src = sourceAt(e, path);
			if (!src) {
				report(
					"key-type",
					e.range,
					path,
					`\`${e.key}\` must be a condition like \`review.output.approved\`, not ${describe(e.value)}`,
				);
				return undefined;
			}
			if (!bounds.expression("condition", src.text, e.range, path)) return undefined;
			const parsed = parseCondition(src.text, src.at);
			faults.push(...parsed.faults);
			return parsed.value ? { text: src.text, expr: parsed.value, range: e.range } : undefined;
		},
		type(e, path) {
			const parsed = parseTypeShorthand(e.value, {
				file: file.file,
				table: file.table,
				yamlBase: file.yamlBase,
				path,
				keyRange: e.keyRange,
			});
			faults.push(...parsed.faults);
			return parsed.value ? { value: parsed.value, range: e.range } : undefined;
		},
		names(e, path, what) {
			if (!isSeq(e.value) || e.value.items.length === 0) {
				report("key-type", e.range, path, `\`${e.key}\` must be a non-empty list of ${what}, not ${describe(e.value)}`);
				return undefined;
			}
			const out: Located<string>[] = [];
			const seen = new Set<string>();
			for (const item of e.value.items as Node[]) {
				const range = rangeOf(item, e.range);
				const v = isScalar(item) && typeof item.value === "string" ? item.value.trim() : "";
				if (!v) {
					report("key-type", range, path, `each of \`${e.key}\` is one of ${what}, not ${describe(item)}`);
					return undefined;
				}
				if (seen.has(v)) {
					report("key-type", range, path, `\`${e.key}\` names \`${v}\` twice`);
					return undefined;
				}
				seen.add(v);
				out.push({ value: v, range });
			}
			return out;
		},
		unknownKeys(entries, allowed, path, owner, elsewhere) {
			for (const e of entries) {
				if (allowed.includes(e.key)) continue;
				const other = elsewhere?.get(e.key);
				// The one rule (missHint): a near key is offered, else the keys this place takes are listed.
				const hint = missHint(e.key, allowed, { what: "keys here", where: "docs/flows.md lists them", listUpTo: 24 });
				const near = hint.near;
				const message = other
					? `${owner} has no key \`${e.key}\`; it belongs to ${other}.${didYouMean(near)}`
					: `${owner} has no key \`${e.key}\`.${hint.text}`;
				report("unknown-key", e.keyRange, path ? `${path}.${e.key}` : e.key, message, { expected: near ? [near] : [] });
			}
		},
	};
	return ctx;
}

/** A YAML node as a plain value (for `default:`), or undefined for none. */
export function plain(node: Node | null): unknown {
	if (node === null) return null;
	return (node as { toJSON?: () => unknown }).toJSON?.() ?? null;
}

/** The list items of a YAML node, or undefined. */
export function seqItems(node: Node | null): Node[] | undefined {
	return isSeq(node) ? (node.items as Node[]) : undefined;
}
