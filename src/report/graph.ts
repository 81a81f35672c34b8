/**
 * The flow's graph as inline SVG, laid out here rather than by Mermaid so the page works offline and the
 * drawing is the run's, not just the flow's: each node is coloured by how it ended. A sequence runs top to
 * bottom with arrows; a block is a labelled box around its body; a parallel's branches and a choice's cases
 * stand side by side in dashed boxes; a call holds its callee's nodes. Each node is exactly one shape
 * with class `node` and `state-<state>`, keyed by its address in `data-node`, so tests and readers can
 * find it.
 */
import type { FlowNode } from "../language/index.ts";
import type { CheckedFlow, GraphKit } from "../language/index.ts";
import { blockFacts } from "../language/render/index.ts";
import { esc, fit, px, textWidth } from "./format.ts";
import type { NodeState, NodeSummary } from "./model.ts";

/** Words for each state, shared by the graph's and the timeline's legends. */
export const STATE_WORDS: Record<NodeState, string> = {
	done: "done",
	failed: "failed",
	cut: "running when cut",
	never: "never reached",
};

const LEAF_H = 58;
const GAP = 24;
const PAD = 10;
const LINE = 15;
const SIDE_GAP = 14;
const MARGIN = 12;
const LEGEND_H = 30;

/** A laid-out piece: its size, and how to draw it with its top-left corner at (x, y). */
interface Laid {
	w: number;
	h: number;
	draw(x: number, y: number, out: string[]): void;
}

/** The graph of `flow`, each node coloured from `nodes` (by address); unvisited nodes are never reached. */
export function graphSvg(flow: CheckedFlow, nodes: ReadonlyMap<string, NodeSummary>): string {
	const summary = (address: string): NodeSummary =>
		nodes.get(address) ?? { state: "never", visits: 0, failed: 0, cut: 0 };
	const root = sequence(flow, flow.nodes, "", summary);
	const w = Math.max(root.w, 520) + 2 * MARGIN;
	const h = root.h + LEGEND_H + 2 * MARGIN;
	const out: string[] = [];
	out.push(
		`<svg xmlns="http://www.w3.org/2000/svg" class="graph" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" role="img" aria-label="the flow's graph, each node coloured by how it ended">`,
		`<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" class="arrowhead"/></marker></defs>`,
	);
	legend(out, MARGIN, MARGIN);
	root.draw(MARGIN + (w - 2 * MARGIN - root.w) / 2, MARGIN + LEGEND_H, out);
	out.push("</svg>");
	return out.join("\n");
}

function legend(out: string[], x: number, y: number): void {
	let at = x;
	for (const state of ["done", "failed", "cut", "never"] as const) {
		out.push(
			`<rect class="swatch state-${state}" x="${at}" y="${y}" width="14" height="14" rx="3"/>`,
			`<text class="legend" x="${at + 20}" y="${y + 11}">${esc(STATE_WORDS[state])}</text>`,
		);
		at += 20 + textWidth(STATE_WORDS[state], 12) + 18;
	}
}

type Summary = (address: string) => NodeSummary;

function sequence(flow: CheckedFlow, list: readonly FlowNode[], prefix: string, summary: Summary): Laid {
	if (!list.length) return nothing();
	const parts = list.map((n) => one(flow, n, prefix ? `${prefix}/${n.id.value}` : n.id.value, summary));
	const w = Math.max(...parts.map((p) => p.w));
	const h = parts.reduce((s, p) => s + p.h, 0) + GAP * (parts.length - 1);
	return {
		w,
		h,
		draw(x, y, out) {
			let top = y;
			parts.forEach((p, i) => {
				if (i > 0)
					out.push(
						`<line class="edge" x1="${px(x + w / 2)}" y1="${px(top - GAP)}" x2="${px(x + w / 2)}" y2="${px(top - 2)}" marker-end="url(#arrow)"/>`,
					);
				p.draw(x + (w - p.w) / 2, top, out);
				top += p.h + GAP;
			});
		},
	};
}

function nothing(): Laid {
	return {
		w: 70,
		h: 22,
		draw(x, y, out) {
			out.push(`<text class="nothing" x="${px(x + 35)}" y="${px(y + 15)}" text-anchor="middle">nothing</text>`);
		},
	};
}

/** Each kind lays itself out (its module's `graph`) with the pieces below. */
function one(flow: CheckedFlow, node: FlowNode, address: string, summary: Summary): Laid {
	const s = summary(address);
	const onFail = node.onFail ? "on-fail: continue" : "";
	const f = blockFacts(node as Parameters<typeof blockFacts>[0]);
	const kit: GraphKit<Laid> = {
		flow,
		address,
		onFail,
		facts: f.length ? ` · ${f.join(" · ")}` : "",
		leaf: (detailText) => leaf(node, address, s, [detailText, onFail].filter(Boolean).join(" · ")),
		block: (kindLine, notes, body) => block(node, address, s, [kindLine, notes], body),
		sequence: (nodes, prefix = address, of = flow) => sequence(of, nodes, prefix, summary),
		side,
		branch,
		nothing,
	};
	return flow.kinds.of(node).graph(node, kit);
}

/** `3 visits · 1 failed`: the count a reader needs to tell a loop's last failure from its only visit. */
function visitsLine(s: NodeSummary): string {
	if (s.state === "never") return "never reached";
	const parts = [`${s.visits} visit${s.visits === 1 ? "" : "s"}`];
	if (s.failed) parts.push(`${s.failed} failed`);
	if (s.cut) parts.push(`${s.cut} running when cut`);
	return parts.join(" · ");
}

function shapeAttrs(address: string, kind: string, s: NodeSummary): string {
	return `class="node ${kind === "block" ? "block" : "leaf"} state-${s.state}" data-node="${esc(address)}" data-state="${s.state}"`;
}

function leaf(node: FlowNode, address: string, s: NodeSummary, detailText: string): Laid {
	const w = Math.min(
		260,
		Math.max(150, textWidth(node.id.value, 13) + 24, textWidth(detailText, 11) + 20, textWidth(visitsLine(s), 11) + 20),
	);
	return {
		w,
		h: LEAF_H,
		draw(x, y, out) {
			const title = `${address} (${node.kind}) · ${STATE_WORDS[s.state]} · ${visitsLine(s)}${detailText ? `\n${detailText}` : ""}`;
			out.push(
				`<g><title>${esc(title)}</title>`,
				`<rect ${shapeAttrs(address, "leaf", s)} x="${px(x)}" y="${px(y)}" width="${px(w)}" height="${LEAF_H}" rx="8"/>`,
				`<text class="id" x="${px(x + w / 2)}" y="${px(y + 19)}" text-anchor="middle">${esc(fit(node.id.value, w - 12, 13))}</text>`,
				`<text class="detail" x="${px(x + w / 2)}" y="${px(y + 35)}" text-anchor="middle">${esc(fit(detailText, w - 12, 11))}</text>`,
				`<text class="visits" x="${px(x + w / 2)}" y="${px(y + 50)}" text-anchor="middle">${esc(fit(visitsLine(s), w - 12, 11))}</text>`,
				"</g>",
			);
		},
	};
}

/** A block: a title (`id · kind · facts`, then a line of what drives it and the visit count) over its body. */
function block(
	node: FlowNode,
	address: string,
	s: NodeSummary,
	[kindLine, notes]: [string, string[]],
	body: Laid,
): Laid {
	const first = `${node.id.value} · ${kindLine}`;
	const second = [...notes.filter(Boolean), visitsLine(s)].join(" · ");
	const titleH = 2 * LINE + 10;
	const w = Math.max(body.w + 2 * PAD, Math.min(420, Math.max(textWidth(first, 12), textWidth(second, 11)) + 2 * PAD));
	const h = titleH + body.h + PAD;
	return {
		w,
		h,
		draw(x, y, out) {
			out.push(
				`<g><title>${esc(`${address} (${node.kind}) · ${STATE_WORDS[s.state]}\n${first}\n${second}`)}</title>`,
				`<rect ${shapeAttrs(address, "block", s)} x="${px(x)}" y="${px(y)}" width="${px(w)}" height="${px(h)}" rx="10"/>`,
				`<text class="block-title" x="${px(x + PAD)}" y="${px(y + LINE + 2)}">${esc(fit(first, w - 2 * PAD, 12))}</text>`,
				`<text class="block-note" x="${px(x + PAD)}" y="${px(y + 2 * LINE + 3)}">${esc(fit(second, w - 2 * PAD, 11))}</text>`,
				"</g>",
			);
			body.draw(x + (w - body.w) / 2, y + titleH, out);
		},
	};
}

/** A parallel's branch or a choice's case: a dashed, labelled box; it is not a node, so it has no state. */
function branch(label: string, body: Laid): Laid {
	const w = Math.max(body.w + 2 * PAD, Math.min(300, textWidth(label, 11) + 2 * PAD));
	const h = LINE + 8 + body.h + PAD;
	return {
		w,
		h,
		draw(x, y, out) {
			out.push(
				`<g><title>${esc(label)}</title><rect class="branch" x="${px(x)}" y="${px(y)}" width="${px(w)}" height="${px(h)}" rx="6"/>`,
				`<text class="branch-label" x="${px(x + PAD)}" y="${px(y + LINE)}">${esc(fit(label, w - 2 * PAD, 11))}</text></g>`,
			);
			body.draw(x + (w - body.w) / 2, y + LINE + 8, out);
		},
	};
}

function side(parts: Laid[]): Laid {
	const w = parts.reduce((s, p) => s + p.w, 0) + SIDE_GAP * (parts.length - 1);
	const h = Math.max(...parts.map((p) => p.h));
	return {
		w,
		h,
		draw(x, y, out) {
			let left = x;
			for (const p of parts) {
				p.draw(left, y, out);
				left += p.w + SIDE_GAP;
			}
		},
	};
}
