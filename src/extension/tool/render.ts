/**
 * How a `subagent` call is drawn in pi: the call as one line of what it runs, the result as a header
 * (mode, how many turns ended or failed, tokens, time) over one row per subagent turn with its model,
 * tools and tokens. Collapsed it shows the last few rows and the answer's first lines; expanded, every
 * row, every error and the whole answer.
 */
import type { AgentToolResult, Theme } from "@earendil-works/pi-coding-agent";
import { Text } from "@earendil-works/pi-tui";
import { clock, summariseTools, tokens } from "../format.ts";
import type { SubagentParams } from "./params.ts";
import type { ProgressRow } from "./progress.ts";
import type { SubagentDetails } from "./run-call.ts";

const COLLAPSED_ROWS = 4;
const COLLAPSED_LINES = 3;
const EXPANDED_LINES = 60;

/** The call as one line of what it will run, so the person can stop a wrong delegation before it spends. */
export function renderSubagentCall(args: SubagentParams, theme: Theme): Text {
	const title = theme.fg("toolTitle", theme.bold("subagent "));
	const dim = (s: string) => theme.fg("dim", s);
	if (args.flow)
		return new Text(
			`${title}${theme.fg("accent", `flow ${args.flow}`)}${dim(` ${preview(args.input ?? args.task ?? "", 70)}`)}`,
			0,
			0,
		);
	if (args.tasks) {
		const lines = args.tasks
			.slice(0, 3)
			.map((t) => `\n  ${theme.fg("accent", t.agent)}${dim(` ${preview(t.task, 60)}`)}`);
		const more = args.tasks.length > 3 ? `\n  ${dim(`… ${args.tasks.length - 3} more`)}` : "";
		return new Text(
			`${title}${theme.fg("accent", `parallel · ${args.tasks.length} tasks`)}${dim(` · ${args.concurrency ?? 4} at once`)}${lines.join("")}${more}`,
			0,
			0,
		);
	}
	if (args.chain) {
		const steps = typeof args.chain === "string" ? args.chain : args.chain.map((s) => `@${s.agent}`).join(" -> ");
		return new Text(`${title}${theme.fg("accent", `chain ${preview(steps, 80)}`)}`, 0, 0);
	}
	return new Text(`${title}${theme.fg("accent", args.agent ?? "?")}${dim(` ${preview(args.task ?? "", 70)}`)}`, 0, 0);
}

/** The result, partial or final: who is working on what, so a long delegation is not a silent wait. */
export function renderSubagentResult(
	result: AgentToolResult<SubagentDetails | undefined>,
	options: { expanded: boolean; isPartial: boolean },
	theme: Theme,
): Text {
	const d = result.details;
	const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
	if (!d || d.mode === "refused")
		return new Text(theme.fg("error", cutLines(text, options.expanded ? EXPANDED_LINES : 6)), 0, 0);
	const now = Date.now();
	const running = d.rows.filter((r) => r.state === "running").length;
	const failed = d.rows.filter((r) => r.state === "failed").length;
	const ended = d.rows.length - running;
	const glyph = options.isPartial ? theme.fg("warning", "●") : d.ok ? theme.fg("success", "✓") : theme.fg("error", "✗");
	const facts = [
		`${ended} of ${d.rows.length} turn${d.rows.length === 1 ? "" : "s"} ended`,
		...(failed ? [theme.fg("error", `${failed} failed`)] : []),
		...(running ? [`${running} running`] : []),
	];
	const head = `${glyph} ${d.mode} · ${facts.join(" · ")}${d.usage ? tokens(d.usage) : ""}${d.runDir ? theme.fg("dim", ` · ${d.runDir}`) : ""}`;
	const rows = options.expanded ? d.rows : d.rows.slice(-COLLAPSED_ROWS);
	const hidden = d.rows.length - rows.length;
	const lines = [
		head,
		...(hidden ? [theme.fg("dim", `  … ${hidden} earlier`)] : []),
		...rows.map((r) => rowLine(r, now, theme, options.expanded)),
	];
	if (!options.isPartial && text.trim())
		lines.push(
			"",
			options.expanded ? cutLines(text, EXPANDED_LINES) : theme.fg("toolOutput", cutLines(text, COLLAPSED_LINES)),
		);
	return new Text(lines.join("\n"), 0, 0);
}

function rowLine(r: ProgressRow, now: number, theme: Theme, expanded: boolean): string {
	const glyph =
		r.state === "running"
			? theme.fg("warning", "●")
			: r.state === "done"
				? theme.fg("success", "✓")
				: theme.fg("error", "✗");
	const time = clock(r.state === "running" ? now - r.startedAt : (r.ms ?? 0));
	const tools = r.tools.length ? ` · ${summariseTools(r.tools)}` : "";
	const error =
		r.error && (expanded || r.state === "failed")
			? theme.fg("error", ` · ${preview(r.error, expanded ? 400 : 80)}`)
			: "";
	return `  ${glyph} ${r.label} · ${theme.fg("accent", r.agent)}${r.model ? theme.fg("dim", ` · ${r.model}`) : ""}${tools}${r.usage ? tokens(r.usage) : ""} · ${time}${error}`;
}

function preview(text: string, n: number): string {
	const one = text.replace(/\s+/g, " ").trim();
	return one.length > n ? `${one.slice(0, n - 1)}…` : one;
}

function cutLines(text: string, n: number): string {
	const lines = text.split("\n");
	return lines.length > n ? [...lines.slice(0, n), `… ${lines.length - n} more lines`].join("\n") : text;
}
