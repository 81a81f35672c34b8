/**
 * The server's HTML: two shells (the runs list, a run's page) that load the shipped script and styles,
 * and the page a refused request gets. Every string is the report's `esc`; the script fills the pages
 * with `textContent` only, and the one markup it inserts is the report's graph, drawn and escaped here.
 * The Content-Security-Policy lets a page load only this server's own script, styles and stream.
 */
import { esc } from "../report/index.ts";

/** The policy of every response: nothing but this server's own script, styles and stream. */
export const CSP =
	"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function shell(title: string, page: string, csrf: string, body: string, data: Record<string, string> = {}): string {
	const attrs = Object.entries(data)
		.map(([k, v]) => ` data-${k}="${esc(v)}"`)
		.join("");
	return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="pi-flows-csrf" content="${esc(csrf)}">
<title>${esc(title)}</title>
<link rel="stylesheet" href="/assets/report.css">
<link rel="stylesheet" href="/assets/app.css">
<script src="/assets/app.js" defer></script>
</head>
<body class="serve" data-page="${esc(page)}"${attrs}>
${body}
</body>
</html>
`;
}

/** The runs list; the script fills it from the list's stream. */
export function runsPage(csrf: string, where: string): string {
	return shell(
		"pi-flows · runs",
		"runs",
		csrf,
		`<header class="top"><h1>pi-flows runs</h1><p class="desc">${esc(where)}</p></header>
<p id="trust" class="note" hidden></p>
<ul id="problems" class="problems"></ul>
<table class="runs"><thead><tr><th>flow</th><th>status</th><th>started</th><th>life</th><th class="num">tokens</th><th class="num">cost</th><th>where</th></tr></thead><tbody id="runs"></tbody></table>
<p id="empty" class="empty" hidden>No run yet. Start one with <code>pi-flows run</code>; it appears here as it starts.</p>`,
	);
}

/** A run's page; the script draws it from the run's stream. */
export function runPage(csrf: string, source: string, id: string): string {
	return shell(
		`pi-flows · ${id}`,
		"run",
		csrf,
		`<nav class="crumbs"><a href="/">all runs</a></nav>
<header class="top"><h1><span id="flow"></span> <span id="status" class="badge"></span></h1>
<p id="status-text" class="desc"></p><p id="description" class="desc"></p>
<dl id="facts" class="facts"></dl>
<div id="actions" class="actions"></div><p id="said" class="said" role="status" aria-live="polite"></p>
</header>
<section id="questions-now" hidden><h2>Waiting for you</h2><div id="questions"></div></section>
<section id="outcome" hidden><h2>Answer</h2><div id="outcome-body"></div></section>
<section><h2>Graph</h2><p class="note">Each node as its visits ended; blue while a visit of this life runs.</p><div id="graph" class="scroll"></div></section>
<section><h2>Running turns</h2><div id="turns"><p class="empty">No turn is running.</p></div></section>
<section><h2>Lanes</h2><p class="note">The current life's visits, one bar each, in lanes of what ran at the same time.</p><div id="lanes" class="lanes"></div></section>
<section><h2>Tokens, cost and time per node</h2><table class="usage"><thead><tr><th>node</th><th>state</th><th class="num">visits</th><th class="num">tokens</th><th class="num">cost</th><th class="num">time</th><th class="num">bound</th></tr></thead><tbody id="nodes"></tbody><tfoot id="total"></tfoot></table></section>
<section><h2>Faults and retries</h2><ul id="faults" class="problems"></ul><ul id="indoubt" class="warning"></ul><ul id="notes" class="budget"></ul><table class="retries" hidden><thead><tr><th>visit</th><th>attempt</th><th>why</th><th class="num">wait</th></tr></thead><tbody id="retries"></tbody></table></section>
<section><h2>Questions and answers</h2><ul id="asked"></ul></section>`,
		{ source, run: id },
	);
}

/** The page of a refused request: the reason, nothing of any run. */
export function refusedPage(status: number, why: string): string {
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>pi-flows serve: refused</title></head>
<body><h1>${status}</h1><p>${esc(why)}</p></body></html>
`;
}
