/**
 * The timeline of visits as inline SVG: one bar per visit, from its start to its end, coloured by how it
 * ended. Lives stand left to right, each on its own time scale (a resume may come hours later, and the gap
 * would flatten both lives), separated by a marked boundary. Visits that ran at the same time sit in
 * separate lanes: every map item and parallel branch is a strand, and the strands of one block are packed
 * into as few lanes as never overlap, so a map at concurrency 2 shows two lanes however many items it had.
 * Inside a lane, nesting goes down a row (a loop's bar above its iterations' visits).
 */
import { childrenOf, type FlowNode } from "../language/index.ts";
import { LANGUAGE } from "../kinds/language.ts";
import type { CheckedFlow } from "../language/index.ts";
import { instanceOf, visitSteps } from "../runtime/index.ts";
import { esc, fit, ms, px, textWidth } from "./format.ts";
import { STATE_WORDS } from "./graph.ts";
import type { LifeSpan, VisitSpan } from "./model.ts";

const LABEL_W = 180;
const CHART_W = 1000;
const LIFE_GAP = 30;
const HEADER = 44;
const ROW = 20;
const LANE_PAD = 4;

/** Addresses of the parallel nodes of a flow and its callees: after one of them, a path segment names a branch. */
export function parallelAddresses(flow: CheckedFlow, prefix = ""): Set<string> {
	const out = new Set<string>();
	const walk = (nodes: readonly FlowNode[], at: string) => {
		for (const n of nodes) {
			const address = at ? `${at}/${n.id.value}` : n.id.value;
			if (n.kind === "parallel") {
				out.add(address);
				for (const b of n.branches) walk(b.body, `${address}/${b.name.value}`);
			} else if (n.kind === "flow") {
				const callee = flow.callees.get(n.id.value);
				if (callee) for (const a of parallelAddresses(callee, address)) out.add(a);
			} else walk(childrenOf(n), address); // any other block's body sits under its own address
		}
	};
	walk(flow.nodes, prefix);
	return out;
}

/** Where a visit runs: its strand (the map item or branch it is inside), the block that fanned out, and its depth in the strand. */
export function strandOf(
	path: string,
	parallels: ReadonlySet<string>,
): { strand: string; fan: string; member: string; depth: number } {
	const steps = visitSteps(path);
	const segs = steps.map((s) => s.text);
	const address: string[] = [];
	let at = 0;
	let fan = "";
	let member = "";
	steps.forEach((step, i) => {
		if (i > 0 && parallels.has(address.join("/"))) {
			at = i + 1;
			fan = segs.slice(0, i).join("/");
			member = step.text;
		} else if (step.item !== undefined) {
			at = i + 1;
			fan = [...segs.slice(0, i), step.node].join("/");
			member = `[${step.item}]`;
		}
		address.push(step.node);
	});
	return { strand: segs.slice(0, at).join("/"), fan, member, depth: segs.length - 1 - at };
}

/** A lane of the timeline: the strands of one fanning block that never overlap, with the visits they ran. */
export interface Lane {
	fan: string;
	members: string[];
	visits: VisitSpan[];
	rows: number;
	ends: number;
}

/** Packs strands into lanes: one for the run's own sequence, and per fanning block as few as never overlap. */
export function lanesOf(visits: readonly VisitSpan[], parallels: ReadonlySet<string>): Lane[] {
	const units = new Map<string, { fan: string; member: string; visits: VisitSpan[]; start: number; end: number }>();
	for (const v of visits) {
		const s = strandOf(v.path, parallels);
		const key = `${v.life}\u0000${s.strand}`;
		const u = units.get(key) ?? { fan: s.fan, member: s.member, visits: [], start: v.start, end: v.end };
		u.visits.push(v);
		u.start = Math.min(u.start, v.start);
		u.end = Math.max(u.end, v.end);
		units.set(key, u);
	}
	const lanes: Lane[] = [];
	const byFan = new Map<string, Lane[]>();
	for (const u of [...units.values()].sort((a, b) => a.start - b.start)) {
		const fanLanes = byFan.get(u.fan) ?? [];
		byFan.set(u.fan, fanLanes);
		// The run's own sequence never overlaps itself: one lane, whatever the lives.
		let lane = u.fan === "" ? fanLanes[0] : fanLanes.find((l) => l.ends <= u.start);
		if (!lane) {
			lane = { fan: u.fan, members: [], visits: [], rows: 1, ends: 0 };
			fanLanes.push(lane);
			lanes.push(lane);
		}
		if (u.member && !lane.members.includes(u.member)) lane.members.push(u.member);
		lane.visits.push(...u.visits);
		lane.ends = Math.max(lane.ends, u.end);
	}
	for (const l of lanes) l.rows = 1 + Math.max(0, ...l.visits.map((v) => strandOf(v.path, parallels).depth));
	return lanes;
}

/** `review #2`, `act [3]`: the node and the iteration or item it ran in, so repeated bars tell apart. */
function barLabel(v: VisitSpan): string {
	const parent = visitSteps(v.path).at(-2);
	const instance = parent ? instanceOf(parent) : "";
	return instance ? `${v.node} ${instance}` : v.node;
}

/** A visit's own time: its span less what it waited for the person (a `/step` pause). */
function busyOf(v: Pick<VisitSpan, "start" | "end" | "held">): number {
	return Math.max(0, v.end - v.start - v.held);
}

/** Nice tick steps (1, 2, 5 × 10ⁿ ms) so axis labels read as round numbers. */
function tickStep(span: number, width: number): number {
	const raw = span / Math.max(1, Math.floor(width / 90));
	const p = 10 ** Math.floor(Math.log10(Math.max(raw, 1)));
	return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? 10 * p;
}

/** The timeline of a run's visits across its lives. */
export function timelineSvg(
	visits: readonly VisitSpan[],
	lives: readonly LifeSpan[],
	parallels: ReadonlySet<string>,
): string {
	if (!visits.length || !lives.length) return `<p class="empty">No visit started.</p>`;
	const lanes = lanesOf(visits, parallels);
	// Many lives must still fit: the gaps and each life's floor shrink with their number.
	const gap = lives.length > 1 ? Math.min(LIFE_GAP, (CHART_W * 0.25) / (lives.length - 1)) : 0;
	const avail = CHART_W - gap * (lives.length - 1);
	const minW = lives.length > 1 ? Math.min(avail * 0.15, (avail / lives.length) * 0.5) : avail;
	const spans = lives.map((l) => Math.max(1, l.end - l.start));
	const total = spans.reduce((a, b) => a + b, 0);
	let left = LABEL_W;
	const segs = lives.map((l, i) => {
		const w = lives.length > 1 ? minW + (avail - minW * lives.length) * (spans[i] / total) : avail;
		const seg = { life: l, x: left, w, span: spans[i] };
		left += w + gap;
		return seg;
	});
	const segOf = new Map(segs.map((s) => [s.life.life, s]));
	const x = (life: number, t: number) => {
		const s = segOf.get(life) ?? segs[0];
		return s.x + (Math.min(Math.max(t - s.life.start, 0), s.span) / s.span) * s.w;
	};
	const lanesH = lanes.reduce((s, l) => s + l.rows * ROW + 2 * LANE_PAD, 0);
	const width = LABEL_W + CHART_W + 10;
	const height = HEADER + lanesH + 34;
	const out: string[] = [
		`<svg xmlns="http://www.w3.org/2000/svg" class="timeline" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="the visits of the run on a time axis, one lane per strand that ran at the same time">`,
	];
	// Lane stripes go first so the grid and the life boundaries stay visible across them.
	let stripe = HEADER;
	lanes.forEach((lane, i) => {
		const h = lane.rows * ROW + 2 * LANE_PAD;
		out.push(`<rect class="lane-bg lane-${i % 2}" x="0" y="${stripe}" width="${width}" height="${h}"/>`);
		stripe += h;
	});
	segs.forEach((s, i) => {
		const prev = lives[i - 1];
		// Outcome and length first: a narrow life's heading is cut at its end, and those matter most.
		const head = [
			`life ${s.life.life}`,
			s.life.outcome,
			ms(s.life.end - s.life.start),
			prev ? `resumed ${ms(s.life.start - prev.end)} later` : "",
		]
			.filter(Boolean)
			.join(" · ");
		out.push(
			`<g class="life" data-life="${esc(s.life.life)}"><title>${esc(`${head}${s.life.error ? `\n${s.life.error}` : ""}`)}</title><text class="life-head life-${s.life.outcome}" x="${px(s.x)}" y="14">${esc(fit(head, s.w, 12))}</text></g>`,
		);
		const step = tickStep(s.span, s.w);
		for (let t = 0; t <= s.span; t += step) {
			const tx = s.x + (t / s.span) * s.w;
			out.push(`<line class="grid" x1="${px(tx)}" y1="${HEADER - 6}" x2="${px(tx)}" y2="${HEADER + lanesH}"/>`);
			if (s.w - (tx - s.x) > 30)
				out.push(`<text class="tick" x="${px(tx + 2)}" y="${HEADER - 10}">${esc(t === 0 ? "0" : `+${ms(t)}`)}</text>`);
		}
		if (i > 0)
			out.push(
				`<line class="life-boundary" x1="${px(s.x - gap / 2)}" y1="4" x2="${px(s.x - gap / 2)}" y2="${HEADER + lanesH + 4}"><title>${esc(`life ${s.life.life} begins: the run was resumed`)}</title></line>`,
			);
	});
	let top = HEADER;
	for (const lane of lanes) {
		const h = lane.rows * ROW + 2 * LANE_PAD;
		const label = lane.fan === "" ? "run" : `${lane.fan} ${lane.members.join(" ")}`;
		out.push(
			`<g class="lane" data-fan="${esc(lane.fan)}" data-members="${esc(lane.members.join(" "))}">`,
			`<text class="lane-label" x="6" y="${top + LANE_PAD + 14}"><title>${esc(label)}</title>${esc(fit(label, LABEL_W - 12, 11))}</text>`,
		);
		for (const v of lane.visits) {
			const depth = strandOf(v.path, parallels).depth;
			const x1 = x(v.life, v.start);
			const w = Math.max(2, x(v.life, v.end) - x1);
			const y = top + LANE_PAD + depth * ROW + 2;
			const block = !LANGUAGE.leaves.has(v.kind);
			const title = [
				`${v.path} (${v.kind}) · life ${v.life} · ${STATE_WORDS[v.state]}`,
				`${ms(busyOf(v))}, from +${ms(v.start - (segOf.get(v.life)?.life.start ?? v.start))}${v.held ? ` (and ${ms(v.held)} waiting for you, left out)` : ""}`,
				[v.agent, v.model].filter(Boolean).join(" on "),
				v.error ?? "",
			]
				.filter(Boolean)
				.join("\n");
			out.push(
				`<g><title>${esc(title)}</title><rect class="bar ${block ? "bar-block" : "bar-leaf"} state-${v.state}" data-path="${esc(v.path)}" data-life="${esc(v.life)}" x="${px(x1)}" y="${px(y)}" width="${px(w)}" height="${ROW - 4}" rx="3"/>`,
			);
			// A leaf's wait for the person (`/step`'s choice after its turn) is the end of its bar, drawn pale:
			// the bar stays on the run's clock, its solid part is the visit's own time.
			if (v.held && !block) {
				const hw = Math.min(w, x(v.life, v.end) - x(v.life, v.end - v.held));
				out.push(
					`<rect class="held" data-path="${esc(v.path)}" data-held="${esc(Math.round(v.held))}" x="${px(x1 + w - hw)}" y="${px(y)}" width="${px(hw)}" height="${ROW - 4}" rx="3"/>`,
				);
			}
			const label = barLabel(v);
			if (w > textWidth(label, 10) + 8)
				out.push(
					`<text class="bar-label${block ? " on-block" : ""}" x="${px(x1 + 4)}" y="${px(y + ROW - 8)}">${esc(label)}</text>`,
				);
			out.push("</g>");
		}
		out.push("</g>");
		top += h;
	}
	let lx = LABEL_W;
	const ly = top + 12;
	for (const state of ["done", "failed", "cut"] as const) {
		out.push(
			`<rect class="bar bar-leaf state-${state}" x="${lx}" y="${ly}" width="14" height="12" rx="2"/><text class="legend" x="${lx + 18}" y="${ly + 10}">${esc(STATE_WORDS[state])}</text>`,
		);
		lx += 18 + textWidth(STATE_WORDS[state], 12) + 18;
	}
	out.push(
		`<rect class="bar bar-block state-done" x="${lx}" y="${ly}" width="14" height="12" rx="2"/><text class="legend" x="${lx + 18}" y="${ly + 10}">a block (map, loop, …) around its visits</text>`,
	);
	out.push("</svg>");
	return out.join("\n");
}
