/**
 * Style rule 5 in one function: an expression inside a YAML string maps back to exact columns only when
 * the scalar's source is its value: plain and on one line, quoted without escapes, or a one-line literal
 * block. Callers ask here before passing `base`, and fall back to the whole scalar's range otherwise.
 */
import type { Scalar } from "yaml";

/**
 * The absolute offset of the scalar's value in the file, or undefined when source and value differ
 * (escapes, folded or multi-line block scalars, a non-string scalar).
 *
 * @param fileText the whole flow file
 * @param yamlBase the absolute offset of the YAML text in the file (after the opening `---` line)
 */
export function scalarBase(scalar: Scalar, fileText: string, yamlBase: number): number | undefined {
	const range = scalar.range;
	if (!range || typeof scalar.value !== "string") return undefined;
	const value = scalar.value;
	const start = yamlBase + range[0];
	const source = fileText.slice(start, yamlBase + range[1]);
	if (scalar.type === "PLAIN" && source === value) return start;
	if (scalar.type === "QUOTE_DOUBLE" && source === `"${value}"`) return start + 1;
	if (scalar.type === "QUOTE_SINGLE" && source === `'${value}'`) return start + 1;
	// A one-line literal block (`|-` then the value on its own indented line) holds its value verbatim, any
	// quote or backslash included: the form a chain typed at a prompt is written in (src/launch/chain.ts).
	if (scalar.type === "BLOCK_LITERAL" && value !== "" && !/[\r\n]/.test(value)) {
		const header = source.indexOf("\n");
		const body = header < 0 ? "" : source.slice(header + 1);
		const at = body.indexOf(value);
		if (at >= 0 && /^ *$/.test(body.slice(0, at)) && /^\s*$/.test(body.slice(at + value.length)))
			return start + header + 1 + at;
	}
	return undefined;
}
