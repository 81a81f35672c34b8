/**
 * Small readers over `yaml` nodes that keep positions: every value the builder takes comes with the
 * absolute range of the YAML node it was written in (yaml's offsets plus the frontmatter's base).
 */
import { isMap, isScalar, isSeq, type Node, type Pair, type Scalar, type YAMLMap, type YAMLSeq } from "yaml";
import type { FlowFile } from "../read/index.ts";
import type { Range } from "../../text/index.ts";

/** The absolute range of a YAML node (its value, without a trailing comment). */
export function rangeOf(file: FlowFile, node: Node | null | undefined, fallback?: Range): Range {
	const r = node?.range;
	if (!r) return fallback ?? file.frontmatterRange;
	return file.table.range(file.yamlBase + r[0], file.yamlBase + r[1]);
}

/** A pair's key as text, and its range. */
export function keyOf(file: FlowFile, pair: Pair): { key: string; range: Range } {
	const k = pair.key as Node | null;
	const key = isScalar(k) ? String(k.value) : String(k);
	return { key, range: rangeOf(file, k) };
}

/** The pairs of a map, or undefined when the node is not a map. */
export function pairsOf(node: unknown): Pair[] | undefined {
	return isMap(node) ? (node as YAMLMap).items : undefined;
}

/** The items of a sequence, or undefined. */
export function itemsOf(node: unknown): unknown[] | undefined {
	return isSeq(node) ? (node as YAMLSeq).items : undefined;
}

/** The string value of a scalar, or undefined when it is not a non-empty string. */
export function stringOf(node: unknown): string | undefined {
	if (!isScalar(node)) return undefined;
	const v = (node as Scalar).value;
	return typeof v === "string" && v.trim() !== "" ? v : undefined;
}

/** What a YAML value is, in a fault's words. */
export function describe(node: unknown): string {
	if (isMap(node)) return "a mapping";
	if (isSeq(node)) return "a list";
	if (isScalar(node)) {
		const v = (node as Scalar).value;
		if (v === null) return "empty";
		if (typeof v === "string") return v.trim() ? "a string" : "an empty string";
		return `a ${typeof v}`;
	}
	return "empty";
}
