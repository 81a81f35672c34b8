/**
 * `chain:` in a flow's frontmatter: the chain string parsed with its faults at their columns inside the
 * YAML value, then turned into the flow's nodes.
 */
import type { Sources } from "../agents/index.ts";
import type { ChainExpander } from "../language/build/index.ts";
import { parseChain } from "./parse.ts";
import { findTemplate } from "./templates.ts";
import { chainToNodes } from "./to-flow.ts";

/** The expander the loader hands the builder, finding templates from `cwd`. */
export function chainExpander(cwd: string, scope: Sources = {}, env: NodeJS.ProcessEnv = process.env): ChainExpander {
	return (chain, file, base) => {
		const parsed = parseChain(chain.value, {
			file: file.file,
			lineTable: file.table,
			baseOffset: base ?? chain.range.start.offset,
			path: "chain",
		});
		if (!parsed.value) return { nodes: [], sections: [], faults: parsed.faults };
		const find = (name: string) => findTemplate(name, cwd, scope, env);
		const expanded = chainToNodes(parsed.value, { file: file.file, findTemplate: find });
		// A model pi cannot resolve is reported where its name is written: the step's --model, else --global-model.
		const globalModel = parsed.at?.get("global-model");
		for (const node of expanded.nodes) {
			if (node.kind !== "agent" || !node.model) continue;
			const own = /--model\s+("[^"]*"|\S+)/.exec(file.text.slice(node.range.start.offset, node.range.end.offset));
			if (own) {
				const start = node.range.start.offset + own.index + own[0].length - own[1].length;
				node.model = { ...node.model, range: file.table.range(start, start + own[1].length) };
			} else if (globalModel) node.model = { ...node.model, range: globalModel };
		}
		const { budgetTotal, budgetWarning } = parsed.value.globals;
		const located = (value: number | undefined, flag: string) => {
			const range = parsed.at?.get(flag);
			return value === undefined || !range ? undefined : { value, range };
		};
		const total = located(budgetTotal, "budget-total");
		const warning = located(budgetWarning, "budget-warning");
		const budget = total || warning ? { ...(total ? { total } : {}), ...(warning ? { warning } : {}) } : undefined;
		return { ...expanded, ...(budget ? { budget } : {}) };
	};
}
