/**
 * The plan as text: one line per row, two spaces of indent per level, facts joined by ` · ` in a fixed
 * order (what runs, reads, output, model, timeout, retry, memory, verdict, settings, bound), so a person
 * finds the same fact at the same place on every line.
 *
 *   explore · flows/explore.md · input string · ≤ 6 turns · ≤ 3h
 *   ○ look · agent scout (agents/scout.md) · reads input · model from pi settings · timeout 30m by default · ≤ 3 turns · ≤ 1h30m
 */
import { formatDuration } from "../syntax/index.ts";
import type { PlanFlowRow, PlanNodeRow, PlanRow } from "./plan.ts";
import { boundText } from "./phrases.ts";

/**
 * Prints rows as lines. With `width`, a line longer than that breaks between facts and goes on indented
 * under its node, so a narrow terminal never cuts a fact in two. Default: no wrapping.
 */
export function showPlan(rows: readonly PlanRow[], width = Number.POSITIVE_INFINITY): string {
	return rows
		.map((row) => {
			const indent = "  ".repeat(Math.max(0, row.depth - 1));
			if (row.row === "flow") return wrap("", flowFacts(row), width);
			if (row.row === "group") return wrap(`${indent}◇ `, [row.label], width);
			return wrap(`${indent}○ `, nodeFacts(row), width);
		})
		.join("\n");
}

function flowFacts(row: PlanFlowRow): string[] {
	const budget = row.budget
		? [
				`budget ${[
					row.budget.tokens ? `${row.budget.tokens} tokens` : "",
					row.budget.cost ? `$${row.budget.cost}` : "",
					row.budget.turns ? `${row.budget.turns} turns` : "",
				]
					.filter(Boolean)
					.join(", ")}`,
			]
		: [];
	return [row.name, row.file, `input ${row.input}`, ...budget, boundText(row.bound)];
}

function nodeFacts(row: PlanNodeRow): string[] {
	const facts = [row.id, row.what];
	if (row.reads.length) facts.push(`reads ${row.reads.join(", ")}`);
	if (row.output) facts.push(`output ${row.output}`);
	if (row.model) facts.push(modelText(row.model));
	if (row.thinking) facts.push(`thinking ${row.thinking}`);
	if (row.tools) facts.push(`tools ${row.tools.join(", ")}`);
	if (row.timeout) facts.push(timeoutText(row.timeout));
	if (row.retry) facts.push(`retry ${row.retry}`);
	if (row.memory) facts.push(`memory ${row.memory}`);
	if (row.verdict) facts.push(`verdict ${row.verdict}`);
	facts.push(...row.settings);
	if (row.onFail) facts.push("on-fail continue");
	facts.push(boundText(row.bound));
	return facts;
}

/** The node's own model shows bare; any other source is named, as combo's plan names a timeout's. */
function modelText(m: NonNullable<PlanNodeRow["model"]>): string {
	if (m.source === "settings") return `model ${m.resolved ? `${m.resolved} ` : ""}from pi settings`;
	const from = { run: " from the run", node: "", flow: " from the flow", agent: " from the agent" }[m.source];
	// A name pi reads (`sonnet`, `opus:high`) shows the model it resolves to.
	const resolved = m.resolved && m.resolved !== m.ref ? ` (${m.resolved})` : "";
	return `model ${m.ref ?? ""}${resolved}${from}`;
}

function timeoutText(t: NonNullable<PlanNodeRow["timeout"]>): string {
	const from = { run: " from the run", node: "", flow: " from the flow", default: " by default" }[t.source];
	return `timeout ${formatDuration(t.ms)}${from}`;
}

function wrap(lead: string, facts: readonly string[], width: number): string {
	const one = lead + facts.join(" · ");
	if (one.length <= width) return one;
	const pad = " ".repeat(lead.length + 2);
	const lines: string[] = [];
	let line = lead + facts[0];
	for (const fact of facts.slice(1)) {
		if (line.length + 3 + fact.length > width && line.trim().length > 0) {
			lines.push(line);
			line = `${pad}· ${fact}`;
		} else line += ` · ${fact}`;
	}
	lines.push(line);
	return lines.join("\n");
}
