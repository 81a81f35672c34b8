/**
 * Argument completion for `/run`, `/step` and `/flows`: the flag names where a flag is being typed, the
 * flow (and for `/step` agent) names where the name goes, nothing once the input has begun. Names come
 * from file names only, project ones included: listing a name reads no repository content, and running
 * it still goes through the trust check.
 */
import type { AutocompleteItem } from "@earendil-works/pi-tui";
import { agentNamesIn } from "../agents/index.ts";
import { listFlows } from "../load/index.ts";

/** Which names a command completes: `/step` takes agents as well as flows. */
export type NameKind = "flows" | "agents";

/** A completer for a command line of `[flags] <name> [input] [flags]`. */
export function completeLine(
	kinds: readonly NameKind[],
	flags: readonly string[],
	cwd: () => string = () => process.cwd(),
) {
	return (prefix: string): AutocompleteItem[] | null => {
		const match = /^(.*?)(\S*)$/s.exec(prefix);
		const before = match?.[1] ?? "";
		const current = match?.[2] ?? "";
		const words = before.split(/\s+/).filter(Boolean);
		for (let i = 0; i < words.length; i++) {
			if (!words[i].startsWith("--")) return null;
			i++;
		}
		// An even count of leading words is flag/value pairs: the word being typed is a flag or the name.
		if (words.length % 2 === 1) return null;
		if (current.startsWith("-")) {
			const items = flags.filter((f) => f.startsWith(current)).map((f) => ({ value: `${before}${f} `, label: f }));
			return items.length ? items : null;
		}
		const items = kinds.flatMap((kind) =>
			namesOf(kind, cwd())
				.filter((n) => n.name.startsWith(current))
				.map((n) => ({
					value: `${before}${n.name} `,
					label: n.name,
					description: `${kind === "flows" ? "flow" : "agent"} · ${n.source}`,
				})),
		);
		return items.length ? items : null;
	};
}

/** Every name of `kind`, the winning source per name, sorted. */
function namesOf(kind: NameKind, cwd: string): { name: string; source: string }[] {
	const byName = new Map<string, string>();
	// Flows come from the catalogue, which also finds pi-subagents' `.chain.md` chains and names them.
	if (kind === "flows") for (const f of listFlows(cwd, { project: true }).flows) byName.set(f.name, f.source);
	// An agent goes by its `name:` (Claude Code's and pi-subagents' files may be named otherwise), read cheaply.
	else for (const a of agentNamesIn(cwd, { project: true })) byName.set(a.name, a.source);
	return [...byName].map(([name, source]) => ({ name, source })).sort((a, b) => a.name.localeCompare(b.name));
}
