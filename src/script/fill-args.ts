/**
 * Templates in a step's `args`, as in its `say`: every string inside the arguments (nested objects and
 * lists too) is filled by the same filler, so `args: { path: notes.md, content: "{{result}}" }` writes what
 * the last tool returned. Keys and non-string values stay as written.
 *
 *   fillArgs({ path: "a.md", edits: [{ oldText: "x", newText: "{{task|lines:1}}" }] }, fill)
 */
export function fillArgs(args: unknown, fill: (template: string) => string): unknown {
	if (typeof args === "string") return args.includes("{{") ? fill(args) : args;
	if (Array.isArray(args)) return args.map((a) => fillArgs(a, fill));
	if (args && typeof args === "object")
		return Object.fromEntries(Object.entries(args).map(([k, v]) => [k, fillArgs(v, fill)]));
	return args;
}
