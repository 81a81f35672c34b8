/**
 * `/flows`: every flow pi-flows can see, one aligned row each with its source and its worst case (turns,
 * time), or `broken` with its faults indented under it as `file:line:col: code: message`. `/flows <name>`
 * prints the plan (every node with what it runs, reads, its model source, timeout and bound) and the
 * Mermaid graph. Both run the static judgement only: nothing spawns, no model is needed.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { loadRoster, markdownFiles, nearestProjectDir, type Sources } from "../agents/index.ts";
import { budgetInForce, budgetLimits, showBudget } from "../engine/index.ts";
import { findFlow, listFlows } from "../load/index.ts";
import { catalogueOptions, checkFlowFile } from "../load/index.ts";
import { boundText, mermaidOf, planOf, showPlan } from "../language/render/index.ts";
import { completeLine } from "./completions.ts";
import { faultLines } from "./launch/index.ts";
import { say } from "./messages.ts";
import { projectSources, relativeTo, type TrustMemory, untrustedRefusal } from "./trust.ts";
import { COMMAND_CARDS } from "./cards.ts";

/** Registers `/flows`, so a person sees what can run and what is broken before asking for a run. */
export function registerFlowsCommand(pi: ExtensionAPI, memory: TrustMemory): void {
	pi.registerCommand("flows", {
		description: COMMAND_CARDS.flows,
		getArgumentCompletions: completeLine(["flows"], []),
		handler: async (args, ctx) => {
			const scope = await projectSources(ctx, memory);
			const name = args.trim();
			if (!name) {
				const listing = flowListing(ctx.cwd, scope);
				return say(ctx, listing.text, listing.refused ? "warning" : "info");
			}
			const shown = flowPlan(ctx.cwd, scope, name);
			say(ctx, shown.text, shown.ok ? "info" : "warning");
		},
	});
}

/** The listing: a count, then one aligned row per flow, faults under broken ones. */
export function flowListing(cwd: string, scope: Sources): { text: string; refused: boolean } {
	const { flows } = listFlows(cwd, scope);
	const roster = loadRoster(cwd, scope);
	const options = catalogueOptions(cwd, scope);
	const rows: { cells: string[]; faults: string[] }[] = [];
	let broken = 0;
	for (const f of flows) {
		const checked = checkFlowFile(f.file, roster, options);
		if (checked.value) {
			rows.push({
				cells: [f.name, f.source, boundText(checked.value.bound), checked.value.description.value],
				faults: [],
			});
		} else {
			broken++;
			rows.push({
				cells: [f.name, f.source, "broken", relativeTo(cwd, f.file)],
				faults: faultLines(checked.faults, cwd),
			});
		}
	}
	const hidden = scope.project ? [] : untrustedFlows(cwd);
	for (const file of hidden)
		rows.push({
			cells: [file.name, "project", "not loaded", `${file.shown} (this project is not trusted)`],
			faults: [],
		});
	rows.sort((a, b) => a.cells[0].localeCompare(b.cells[0]));
	const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r.cells[i].length)));
	const lines = rows.flatMap((r) => [
		r.cells
			.map((c, i) => (i < 3 ? c.padEnd(widths[i]) : c))
			.join("  ")
			.trimEnd(),
		...r.faults.map((f) => `    ${f}`),
	]);
	const counts = [
		`${flows.length} flow${flows.length === 1 ? "" : "s"}`,
		...(broken ? [`${broken} refused`] : []),
		...(hidden.length ? [`${hidden.length} not loaded`] : []),
	];
	return { text: rows.length ? [counts.join(", "), ...lines].join("\n") : "no flows found", refused: broken > 0 };
}

/** One flow's plan and graph, or why it cannot be shown. */
export function flowPlan(cwd: string, scope: Sources, name: string): { ok: boolean; text: string } {
	const found = findFlow(name, cwd, scope);
	if (!found.ok) return { ok: false, text: (!scope.project && untrustedRefusal(cwd, "flows", name)) || found.error };
	const checked = checkFlowFile(found.value.file, loadRoster(cwd, scope), catalogueOptions(cwd, scope));
	if (!checked.value)
		return { ok: false, text: [`${found.value.name} does not check:`, ...faultLines(checked.faults, cwd)].join("\n") };
	const display = (p: string) => relativeTo(cwd, p);
	const budget = budgetInForce(checked.value, {}, display);
	const limits = budgetLimits(budget);
	// Every budget in force and where it comes from, as `pi-flows plan` prints it.
	const rows = planOf(checked.value, {
		file: display(found.value.file),
		display,
		...(limits ? { budget: limits } : {}),
	});
	const plan = [showPlan(rows), ...showBudget(budget)].join("\n");
	return { ok: true, text: `${plan}\n\n\`\`\`mermaid\n${mermaidOf(checked.value).trimEnd()}\n\`\`\`` };
}

/** Project flows left unread because the project is not trusted (names only: their text is not read). */
function untrustedFlows(cwd: string): { name: string; shown: string }[] {
	const dir = nearestProjectDir(cwd, "flows");
	if (!dir) return [];
	return markdownFiles(dir).map((file) => ({
		name: file.slice(file.lastIndexOf("/") + 1, -3),
		shown: relativeTo(cwd, file),
	}));
}
