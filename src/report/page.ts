/**
 * The report page: one self-contained HTML file a person can open from disk, mail or archive with the run.
 * It loads nothing (inline CSS, inline SVG, no script; a Content-Security-Policy forbids every fetch in
 * case a string ever slipped through unescaped), and it folds long parts with `<details>`, which needs no
 * JavaScript.
 */
import { LANGUAGE } from "../kinds/language.ts";
import { redactText } from "../secrets/index.ts";
import { clip, clock, cost, esc, ms, shown, tokens } from "./format.ts";
import { graphSvg } from "./graph.ts";
import { runModel } from "./model.ts";
import { faultsHtml, handoffsHtml, questionsHtml } from "./notes.ts";
import type { RunData } from "./read.ts";
import { livesTable, usageTable, visitsTable } from "./tables.ts";
import { reuseFactLine, reuseFacts, reuseHtml } from "./reuse.ts";
import { parallelAddresses, timelineSvg } from "./timeline.ts";

/** The report's stylesheet; `pi-flows serve` serves it too, so its graph reads as the report's. */
export const REPORT_CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1320px;padding:16px 24px 48px;color:#1f2328;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;padding-bottom:4px;border-bottom:1px solid #d0d7de}h3{font-size:14px;margin:12px 0 4px}
code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}pre{background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:8px 10px;white-space:pre-wrap;overflow-wrap:anywhere;max-height:480px;overflow:auto}
.desc{color:#57606a;margin:0 0 8px}.meta{color:#57606a;font-weight:normal}.note,.empty{color:#57606a}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:8px 0}dl.facts dt{color:#57606a}dl.facts dd{margin:0;overflow-wrap:anywhere}
nav a{margin-right:14px;color:#0969da;text-decoration:none}
.badge{font-size:12px;padding:2px 8px;border-radius:10px;vertical-align:middle;font-weight:600}
.outcome-ok{color:#1a7f37}.outcome-failed{color:#cf222e}.outcome-interrupted{color:#9a6700}.badge.outcome-ok{background:#dafbe1}.badge.outcome-failed{background:#ffebe9}.badge.outcome-interrupted{background:#fff8c5}
.warning{color:#9a6700}ul.budget li{color:#9a6700}ul.problems li{color:#cf222e}
.scroll{overflow:auto;border:1px solid #d0d7de;border-radius:6px;padding:6px;background:#fff}
table{border-collapse:collapse;margin:6px 0 10px;font-size:13px}th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}thead th{background:#f6f8fa}td.num{text-align:right;font-variant-numeric:tabular-nums}
tfoot tr{font-weight:600;background:#f6f8fa}tr.failed td,tr.fault.state-failed td:nth-child(3){color:#cf222e}tr.fault.state-cut td:nth-child(3){color:#9a6700}
td.q{max-width:520px}td.out{max-width:420px;white-space:pre-wrap;overflow-wrap:anywhere}td.out code{font-size:11px}td.a{font-weight:600}
.handoff pre{max-height:360px}
svg text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;fill:#1f2328}
svg .id{font-size:13px;font-weight:600}svg .detail,svg .visits,svg .block-note,svg .branch-label{font-size:11px;fill:#57606a}svg .block-title{font-size:12px;font-weight:600}svg .legend{font-size:12px}svg .nothing{font-size:11px;fill:#8c959f;font-style:italic}
svg rect.node{stroke-width:1.6}svg rect.block{stroke-width:1.4}
svg .state-done{fill:#dcf5e3;stroke:#1a7f37}svg .state-failed{fill:#ffe1de;stroke:#cf222e}svg .state-cut{fill:#fff1c2;stroke:#bf8700}svg .state-never{fill:#f3f4f6;stroke:#8c959f;stroke-dasharray:5 3}
svg rect.block.state-done{fill:#f2fbf4}svg rect.block.state-failed{fill:#fff5f4}svg rect.block.state-cut{fill:#fffbeb}svg rect.block.state-never{fill:#fafafa}
svg rect.branch{fill:none;stroke:#8c959f;stroke-dasharray:3 3}svg .edge{stroke:#57606a;stroke-width:1.4}svg .arrowhead{fill:#57606a}
svg rect.bar.state-done{fill:#2da44e;stroke:#1a7f37}svg rect.bar.state-failed{fill:#e5534b;stroke:#cf222e}svg rect.bar.state-cut{fill:#e3b341;stroke:#bf8700}svg rect.bar-block{fill-opacity:.22;stroke-width:1}svg rect.held{fill:#fff;fill-opacity:.65;stroke:none}
svg .bar-label{font-size:10px;fill:#fff;pointer-events:none}svg .bar-label.on-block{fill:#1f2328}svg .lane-0{fill:#f6f8fa}svg .lane-1{fill:#fff}svg .lane-label{font-size:11px;fill:#57606a}
svg .grid{stroke:#d8dee4;stroke-width:1}svg .tick{font-size:10px;fill:#6e7781}svg .life-head{font-size:12px;font-weight:600}svg .life-head.life-ok{fill:#1a7f37}svg .life-head.life-failed{fill:#cf222e}svg .life-head.life-interrupted{fill:#9a6700}
svg .life-boundary{stroke:#8250df;stroke-width:2;stroke-dasharray:6 4}
`;

/**
 * The whole page for a run, as a string; the same data always makes the same page. Every known secret
 * is masked in it (the page is a record too: it is mailed and archived with the run).
 */
export function reportHtml(data: RunData): string {
	return redactText(pageOf(data));
}

function pageOf(data: RunData): string {
	const model = runModel(data);
	const snap = data.snapshot;
	const flowName = snap.flow.name;
	const lastEnd = data.journal.filter((e) => e.type === "run_end").at(-1);
	const lastLife = model.lives.at(-1);
	const outcome =
		lastEnd && lastLife && lastEnd.life === lastLife.life ? (lastEnd.ok ? "ok" : "failed") : "interrupted";
	const badge = { ok: "ended well", failed: "failed", interrupted: "did not end" }[outcome];
	const models = [...new Set(model.visits.flatMap((v) => (v.model ? [v.model] : [])))];
	const budget = snap.settings.budget;
	// Each limit beside what counted against it: "4.8k of 4k tokens".
	const spentOf = data.usage.budget?.spent ?? {
		tokens: data.usage.total.totalTokens,
		cost: data.usage.total.cost,
		turns: 0,
	};
	const budgetText = budget
		? [
				budget.tokens !== undefined ? `${tokens(spentOf.tokens)} of ${tokens(budget.tokens)} tokens` : "",
				budget.cost !== undefined ? `${cost(spentOf.cost)} of ${cost(budget.cost)}` : "",
				budget.turns !== undefined ? `${spentOf.turns} of ${budget.turns} turns` : "",
			]
				.filter(Boolean)
				.join(", ")
		: "none";
	const wall = model.lives.reduce((s, l) => s + (l.end - l.start), 0);
	// Each pause is held by one leaf (an agent turn) and by every block around it: counted at the leaves.
	const held = model.visits.reduce((s, v) => s + (LANGUAGE.leaves.has(v.kind) ? v.held : 0), 0);
	const output = data.result?.output ?? (lastEnd?.ok ? lastEnd.output : undefined);
	const facts: [string, string][] = [
		["run folder", data.dir],
		["flow file", snap.flow.file],
		["started", clock(snap.createdAt)],
		["lives", `${model.lives.length}${model.lives.length > 1 ? " (resumed)" : ""}`],
		["models", models.join(", ") || snap.settings.model || "none recorded"],
		["budget", budgetText],
		[
			"spent",
			`${tokens(data.usage.total.totalTokens)} tokens · ${cost(data.usage.total.cost)} · ${ms(wall)} wall time${held ? `, ${ms(held)} of it waiting for you (/step)` : ""}`,
		],
	];
	const reused = reuseFacts(data.journal);
	if (reused) facts.push(["reused", reuseFactLine(reused)]);
	const graph = data.flow
		? `<div class="scroll">${graphSvg(data.flow, model.nodes)}</div>`
		: `<p class="empty">The snapshot's flow no longer checks, so its graph cannot be drawn (see How it ended).</p>`;
	const parallels = data.flow ? parallelAddresses(data.flow) : new Set<string>();
	return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(`pi-flows report · ${flowName}`)}</title>
<style>${REPORT_CSS}</style>
</head>
<body>
<header>
<h1>${esc(flowName)} <span class="badge outcome-${outcome}">${badge}</span></h1>
<p class="desc">${esc(data.flow?.description.value ?? "")}</p>
<dl class="facts">${facts.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join("")}</dl>
<details class="input"><summary>Input</summary><pre>${esc(clip(shown(snap.input), 20_000))}</pre></details>
${output !== undefined ? `<details class="output"><summary>Output</summary><pre>${esc(clip(shown(output), 20_000))}</pre></details>` : ""}
</header>
<nav><a href="#outcome">How it ended</a><a href="#graph">Graph</a><a href="#timeline">Timeline</a><a href="#usage">Tokens, cost, time</a>${reused ? `<a href="#reuse">Reuse</a>` : ""}<a href="#questions">Questions</a><a href="#handoffs">Handoffs</a></nav>
<section id="outcome"><h2>How it ended</h2>
${faultsHtml(data, model)}
</section>
<section id="graph"><h2>Graph</h2>
${graph}
</section>
<section id="timeline"><h2>Timeline</h2>
<p class="note">One bar per visit, from its start to its end. Each life has its own time scale; a dashed line marks where a resume began. Map items and parallel branches that ran at the same time stand in separate lanes. Hover a bar for its path, times and error.</p>
<div class="scroll">${timelineSvg(model.visits, model.lives, parallels)}</div>
</section>
<section id="usage"><h2>Tokens, cost and time</h2>
${usageTable(data.usage, data.usageFromFile)}
<h3>Lives</h3>
${livesTable(data.usage, model.lives)}
${visitsTable(data.usage, data.journal)}
</section>
${reused ? `<section id="reuse"><h2>Reuse</h2>\n${reuseHtml(data.journal)}\n</section>` : ""}
<section id="questions"><h2>Questions and answers</h2>
${questionsHtml(data)}
</section>
<section id="handoffs"><h2>Handoff documents</h2>
${handoffsHtml(data)}
</section>
<footer class="note"><p>Written by <code>pi-flows report</code> from the run folder; this page loads nothing.</p></footer>
</body>
</html>
`;
}
