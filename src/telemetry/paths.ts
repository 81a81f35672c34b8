/**
 * What a visit path says about where the visit stands: the visits that may enclose it, nearest first; the
 * map item and loop round it runs in; and its node's address (the path without items and rounds).
 *
 *   review[2]/fix#3/code   parents: review[2]/fix#3, review[2]/fix, review[2], review
 *                          map item 2 of `review`, round 3 of `review[2]/fix`, address review/fix/code
 */

const INSTANCE = /^(.*)(?:\[\d+\]|#\d+)$/;

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

/** The node's address: its path with items and rounds taken out (`review/fix/code`). */
export function addressOf(path: string): string {
	return path.replace(/\[\d+\]|#\d+/g, "");
}

function nearest<T>(path: string, marker: RegExp, make: (block: string, n: number) => T): T | undefined {
	// Only markers before the last segment: a visit's own name never carries one.
	const slash = path.lastIndexOf("/");
	if (slash < 0) return undefined;
	const head = path.slice(0, slash);
	let last: RegExpExecArray | undefined;
	for (const m of head.matchAll(marker)) last = m;
	if (!last || last.index === undefined) return undefined;
	return make(head.slice(0, last.index), Number(last[1]));
}
