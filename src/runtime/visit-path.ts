/**
 * The one reader of visit paths. A visit path names one visit of one node: the node ids from the flow's
 * top down, joined by `/`, a map's item as `[n]` and a loop's round as `#n` on the block's own step (both
 * 1-based), a called flow's nodes under the call. The engine writes them; the journal, the events, the
 * report, the live view, the reuse plan, the scripted model and the telemetry read them here, so a change
 * to the notation is one file and no reader drifts from another.
 *
 *   visitSteps("review[2]/fix#3/code")   → review (item 2), fix (round 3), code
 *   addressOf("review[2]/fix#3/code")    → "review/fix/code" (the node's address: items and rounds gone)
 *   nodeOf("review[2]/fix#3/code")       → "code"
 *   enclosing("review[2]/fix#3/code")    → review[2]/fix#3, review[2]/fix, review[2], review
 *   mapItemOf("review[2]/fix#3/code")    → { map: "review", item: 2 }
 *   loopRoundOf("review[2]/fix#3/code")  → { loop: "review[2]/fix", round: 3 }
 */

/** One step of a visit path: a node id and the item or round its block was in at that step. */
export interface VisitStep {
	/** The step as the path writes it (`fix#3`). */
	text: string;
	/** The node id (`fix`). */
	node: string;
	/** The map item this step stands for (`work[2]` → 2). */
	item?: number;
	/** The loop round this step stands for (`polish#2` → 2). */
	round?: number;
}

const MARKERS = /(?:\[\d+\]|#\d+)+$/;
const MARKER = /\[(\d+)\]|#(\d+)/g;
const INSTANCE = /^(.*)(?:\[\d+\]|#\d+)$/;

/** The steps of a path, top first. */
export function visitSteps(path: string): VisitStep[] {
	return path.split("/").map((text) => {
		const markers = MARKERS.exec(text)?.[0] ?? "";
		const step: VisitStep = { text, node: text.slice(0, text.length - markers.length) };
		for (const m of markers.matchAll(MARKER)) {
			if (m[1] !== undefined) step.item = Number(m[1]);
			else step.round = Number(m[2]);
		}
		return step;
	});
}

/** What a step adds to its node id: `[2]`, `#3`, or nothing (a bar's label shows it). */
export function instanceOf(step: VisitStep): string {
	return step.text.slice(step.node.length);
}

/** The node's address: the path with items and rounds taken out (`review/fix/code`). */
export function addressOf(path: string): string {
	return path.replace(/\[\d+\]|#\d+/g, "");
}

/** The visit's own node id: its last step without item or round (`code`). */
export function nodeOf(path: string): string {
	return visitSteps(path).at(-1)?.node ?? path;
}

/** The paths that may be the enclosing visit of `path`, nearest first (a block, a call, an item's map). */
export function enclosing(path: string): string[] {
	const out: string[] = [];
	let rest = path;
	for (;;) {
		const slash = rest.lastIndexOf("/");
		if (slash < 0) return out;
		rest = rest.slice(0, slash);
		out.push(rest);
		const m = INSTANCE.exec(rest);
		if (m) {
			rest = m[1] as string;
			out.push(rest);
		}
	}
}

/** The nearest map item a visit runs in: the map's path and the item's number (1-based, as in the path). */
export function mapItemOf(path: string): { map: string; item: number } | undefined {
	return nearest(path, /\[(\d+)\]/g, (map, n) => ({ map, item: n }));
}

/** The nearest loop round a visit runs in: the loop's path and the round (1-based). */
export function loopRoundOf(path: string): { loop: string; round: number } | undefined {
	return nearest(path, /#(\d+)/g, (loop, n) => ({ loop, round: n }));
}

function nearest<T>(path: string, marker: RegExp, make: (block: string, n: number) => T): T | undefined {
	// Only markers before the last step: a visit's own step never carries one.
	const slash = path.lastIndexOf("/");
	if (slash < 0) return undefined;
	const head = path.slice(0, slash);
	let last: RegExpExecArray | undefined;
	for (const m of head.matchAll(marker)) last = m;
	if (!last || last.index === undefined) return undefined;
	return make(head.slice(0, last.index), Number(last[1]));
}
