/**
 * The report's words: the questions the run asked and the answers it got, the handoff documents its turns
 * left (shown as `HANDOFF.md` would hold them, so a reader recognises them), and what went wrong: how
 * each life ended, the visits that failed or were cut, and the budget's warnings.
 */
import type { AskAnswer } from "../engine/index.ts";
import { HANDOFF_STATUSES, type HandoffDocument, renderHandoff } from "../handoff/index.ts";
import { decidedByFlow, journalState } from "../runs/index.ts";
import { clip, clock, esc, shown } from "./format.ts";
import { kindWords } from "./kind-words.ts";
import type { RunModel } from "./model.ts";
import type { RunData } from "./read.ts";
import { inDoubtByLife, resumeWould } from "./troubles.ts";

/** An answer in words; the kinds that are not answers say why there was none. */
function answerText(a: AskAnswer): string {
	switch (a.kind) {
		case "answer":
			return `${typeof a.value === "boolean" ? (a.value ? "yes" : "no") : a.value}${a.custom ? " (typed)" : ""}`;
		case "enough":
			return "that's enough";
		case "timeout":
			return "no answer in time (the default was taken, if any)";
		case "nobody":
			return "nobody was there to answer";
		case "stopped":
			return "the run was stopped while asking";
	}
}

/** Every question, with its visit and answer, in the order they were asked. */
export function questionsHtml(data: RunData): string {
	const asked = data.journal.filter((e) => e.type === "asked");
	if (!asked.length) return `<p class="empty">The run asked nothing.</p>`;
	const rows = asked.map(
		(e) =>
			`<tr class="question" data-path="${esc(e.path)}"><td>${esc(e.path)}</td><td class="q">${esc(e.question)}</td><td class="a answer-${esc(e.answer?.kind ?? "?")}">${esc(e.answer ? answerText(e.answer) : "?")}</td></tr>`,
	);
	return `<table class="questions"><thead><tr><th>visit</th><th>question</th><th>answer</th></tr></thead><tbody>${rows.join("\n")}</tbody></table>`;
}

/** A journal's handoff value as a document, or undefined when it is not one (it is untrusted JSON). */
function documentOf(value: unknown, at: string): HandoffDocument | undefined {
	if (!value || typeof value !== "object") return undefined;
	const v = value as Record<string, unknown>;
	const status = HANDOFF_STATUSES.find((s) => s === v.status);
	if (!status || typeof v.summary !== "string") return undefined;
	const list = (x: unknown) => (Array.isArray(x) ? x.map((i) => String(i)) : []);
	return {
		status,
		summary: v.summary,
		decisions: list(v.decisions),
		artifacts: list(v.artifacts),
		...(typeof v.next_task === "string" ? { next_task: v.next_task } : {}),
		...(typeof v.blocked === "string" ? { blocked: v.blocked } : {}),
		writtenAt: at,
		by: "finish",
	};
}

/**
 * Each handoff document a visit ended with. The journal keeps the document's fields, not its footer, so
 * the page shows the sections of `HANDOFF.md` and leaves out the footer it cannot know.
 */
export function handoffsHtml(data: RunData): string {
	const docs = data.journal.filter((e) => e.type === "visit_end" && e.ended.handoff !== undefined);
	if (!docs.length) return `<p class="empty">No turn left a handoff document.</p>`;
	return docs
		.map((e) => {
			if (e.type !== "visit_end") return "";
			const doc = documentOf(e.ended.handoff, e.at);
			const text = doc ? renderHandoff(doc).split("\n---\nhandoff-format:")[0].trimEnd() : shown(e.ended.handoff);
			const status = doc?.status ?? "unreadable";
			return `<article class="handoff" data-path="${esc(e.path)}"><h3>${esc(e.path)} <span class="meta">life ${e.life} · ${esc(clock(e.at))} · <span class="status-${esc(status)}">${esc(status)}</span></span></h3><pre>${esc(clip(text, 20_000))}</pre></article>`;
		})
		.join("\n");
}

/** Rows for every tool call pi refused and every tool that failed, each with its words. */
function troubleRows(data: RunData): string[] {
	const rows = (refused: boolean) =>
		data.troubles
			.filter((t) => t.refused === refused)
			.map(
				(t) =>
					`<tr class="tool-trouble" data-path="${esc(t.visit)}"><td>${esc(t.visit)}</td><td class="num">${t.life}</td><td>${esc(t.tool)}</td><td>${esc(clip(t.words, 2000))}</td></tr>`,
			);
	const table = (cls: string, title: string, body: string[]) =>
		body.length
			? [
					`<p class="${cls}">${esc(title)} (${body.length}):</p><table class="${cls}"><thead><tr><th>visit</th><th>life</th><th>tool</th><th>words</th></tr></thead><tbody>${body.join("\n")}</tbody></table>`,
				]
			: [];
	return [
		...table("tool-refused", "Tool calls pi refused, their arguments not valid", rows(true)),
		...table("tool-failed", "Tools that failed as they ran", rows(false)),
	];
}

/** How the run ended: the last life's result, each life's end, failed and cut visits, budget warnings, unreadable files. */
export function faultsHtml(data: RunData, model: RunModel): string {
	const out: string[] = [];
	const ends = data.journal.filter((e) => e.type === "run_end");
	const lastEnd = ends.at(-1);
	const lastLife = model.lives.at(-1);
	const result = data.result;
	const ended = lastLife && lastEnd && lastEnd.life === lastLife.life;
	// A run's error starts with the visit it surfaced at, which the sentence already names.
	const why = (e: { error?: string; failedAt?: string }) =>
		e.failedAt && e.error?.startsWith(`${e.failedAt}: `) ? e.error.slice(e.failedAt.length + 2) : (e.error ?? "");
	if (!ended)
		out.push(
			`<p class="outcome outcome-interrupted">The last life did not end: the process was killed, crashed or is still running. <code>pi-flows resume</code> picks it up.</p>`,
		);
	else if (lastEnd.ok) out.push(`<p class="outcome outcome-ok">The run ended well.</p>`);
	else
		out.push(
			`<p class="outcome outcome-failed">The run failed${lastEnd.failedAt ? ` at <code>${esc(lastEnd.failedAt)}</code>` : ""}${lastEnd.errorKind ? ` (${esc(lastEnd.errorKind)})` : ""}: ${esc(why({ ...lastEnd, error: lastEnd.error ?? result?.error }))}</p>${lastEnd.errorKind && !(lastEnd.errorKind === "stopped" && journalState(data.journal).inDoubt.length) ? `<p class="kind-words">${esc(kindWords(lastEnd.errorKind))}</p>` : ""}`,
		);
	const earlier = ends.filter((e) => e !== lastEnd && !e.ok);
	if (earlier.length)
		out.push(
			`<ul class="life-ends">${earlier.map((e) => `<li>life ${esc(e.life)} failed${e.failedAt ? ` at <code>${esc(e.failedAt)}</code>` : ""}: ${esc(why(e))}</li>`).join("")}</ul>`,
		);
	const absorbed = new Set(
		data.journal.flatMap((e) => (e.type === "visit_end" && e.ended.absorbed ? [`${e.life}\u0000${e.path}`] : [])),
	);
	const bad = model.visits.filter((v) => v.state !== "done");
	if (bad.length) {
		const rows = bad.map((v) => {
			const how =
				v.state === "cut"
					? "running when cut"
					: absorbed.has(`${v.life}\u0000${v.path}`)
						? "failed, absorbed by on-fail: continue"
						: "failed";
			return `<tr class="fault state-${v.state}" data-path="${esc(v.path)}"><td>${esc(v.path)}</td><td class="num">${esc(v.life)}</td><td>${esc(how)}</td><td>${esc(clip(v.error ?? "", 2000))}</td></tr>`;
		});
		out.push(
			`<table class="faults"><thead><tr><th>visit</th><th>life</th><th>how</th><th>error</th></tr></thead><tbody>${rows.join("\n")}</tbody></table>`,
		);
	}
	const soaked = result?.absorbed;
	if (soaked?.count) {
		const kinds = Object.entries(soaked.byKind)
			.map(([k, n]) => `${k} ${n}`)
			.join(", ");
		out.push(
			`<p class="absorbed">${esc(soaked.count)} failed visit${soaked.count === 1 ? " was" : "s were"} absorbed by <code>on-fail: continue</code> (${esc(kinds)}): ${soaked.visits
				.slice(0, 20)
				.map((v) => `<code>${esc(v.path)}</code> ${esc(v.kind)}: ${esc(clip(v.message, 200))}`)
				.join("; ")}</p>`,
		);
	}
	const retries = data.events.filter((e) => e.type === "provider_retry");
	if (retries.length) {
		const by = new Map<string, number>();
		for (const e of retries) if (e.type === "provider_retry") by.set(e.reason, (by.get(e.reason) ?? 0) + 1);
		const rows = retries
			.slice(0, 200)
			.map((e) =>
				e.type === "provider_retry"
					? `<tr class="retry" data-path="${esc(e.path)}"><td>${esc(e.path)}</td><td class="num">${esc(e.life)}</td><td>${esc(e.reason)}</td><td class="num">${esc(e.attempt)}</td><td class="num">${esc(`${(Number(e.delayMs) / 1000).toFixed(1)}s`)}</td><td>${esc(clip(e.message, 300))}</td></tr>`
					: "",
			);
		out.push(
			`<p class="retries">${retries.length} model request${retries.length === 1 ? " was" : "s were"} sent again after a transport fault (${esc([...by].map(([k, n]) => `${k} ×${n}`).join(", "))}); the turns went on.</p>`,
		);
		out.push(
			`<table class="retries"><thead><tr><th>visit</th><th>life</th><th>fault</th><th>attempt</th><th>wait</th><th>message</th></tr></thead><tbody>${rows.join("\n")}</tbody></table>`,
		);
	}
	const state = journalState(data.journal);
	for (const { life, visits } of inDoubtByLife(data.journal))
		out.push(
			`<p class="warning in-doubt">In doubt (life ${life}): ${esc(visits.join(", "))} was cut after calling a tool that writes; its edits may be in the tree.</p>`,
		);
	out.push(...troubleRows(data));
	if (!lastEnd?.ok || !ended)
		out.push(
			`<p class="resume-would">${esc(resumeWould(data.journal, ended === true && !lastEnd.ok && decidedByFlow(lastEnd.errorKind, state.causeKind)))}</p>`,
		);
	const budget = data.events.filter(
		(e) => e.type === "budget_warning" || e.type === "budget_exhausted" || e.type === "budget_unpriced",
	);
	if (budget.length) {
		const said = (e: (typeof budget)[number]) =>
			e.type === "budget_warning"
				? `budget warning: ${esc(e.spent)} spent`
				: e.type === "budget_exhausted"
					? `budget spent: ${esc(e.reason)}`
					: `budget: ${esc(e.reason)}`;
		const items = budget.map((e) => `<li class="${e.type}">life ${e.life} · ${esc(clock(e.at))} · ${said(e)}</li>`);
		out.push(`<ul class="budget">${items.join("")}</ul>`);
	}
	if (data.problems.length)
		out.push(`<ul class="problems">${data.problems.map((p) => `<li>${esc(p)}</li>`).join("")}</ul>`);
	return out.join("\n");
}
