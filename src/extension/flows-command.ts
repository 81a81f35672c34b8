/**
 * `/flows`: every flow pi-flows can see, its source and whether it checks, and `/flows <name>` for one
 * flow's faults or nodes. Nothing spawns: it is the static judgement only.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { loadRoster } from "../agents/index.ts";
import { formatFault } from "../faults/index.ts";
import { checkFlowFile, findFlow, listFlows } from "../flow/index.ts";

/** Registers `/flows`, with completion of flow names. */
export function registerFlowsCommand(pi: ExtensionAPI): void {
	pi.registerCommand("flows", {
		description: "List the flows pi-flows can run, or show one: /flows [name]",
		getArgumentCompletions: (prefix) => {
			const items = listFlows(process.cwd(), { project: true })
				.flows.filter((f) => f.name.startsWith(prefix.trim()))
				.map((f) => ({ value: f.name, label: f.name, description: f.source }));
			return items.length ? items : null;
		},
		handler: async (args, ctx) => {
			const scope = { project: true };
			const roster = loadRoster(ctx.cwd, scope);
			const name = args.trim();
			if (!name) {
				const { flows } = listFlows(ctx.cwd, scope);
				const rows = flows.map((f) => {
					const faults = checkFlowFile(f.file, roster).faults;
					return `${f.name}  ${f.source}  ${faults.length ? `${faults.length} fault(s)` : "checks"}`;
				});
				ctx.ui.notify(rows.length ? `${rows.length} flow(s)\n${rows.join("\n")}` : "no flows found", "info");
				return;
			}
			const found = findFlow(name, ctx.cwd, scope);
			if (!found.ok) {
				ctx.ui.notify(found.error, "warning");
				return;
			}
			const checked = checkFlowFile(found.value.file, roster);
			if (!checked.value) {
				ctx.ui.notify(checked.faults.map((f) => formatFault(f)).join("\n"), "warning");
				return;
			}
			const lines = checked.value.nodes.map((n) => `○ ${n.path} · ${n.kind}`);
			ctx.ui.notify(`${found.value.name} · ${found.value.file}\n${lines.join("\n")}`, "info");
		},
	});
}
