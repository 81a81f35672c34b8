/**
 * How a deadline reads in messages: the way a flow file writes a duration, in milliseconds when it is not
 * whole seconds ("timed out after 2m", "timed out after 1500ms").
 */

/** `90000` → `1m30s`, `7200000` → `2h`, `1500` → `1500ms`. */
export function formatMs(ms: number): string {
	if (!Number.isFinite(ms) || ms < 0) return `${ms}ms`;
	if (ms % 1000 !== 0 || ms === 0) return `${Math.round(ms)}ms`;
	let s = ms / 1000;
	const h = Math.floor(s / 3600);
	s -= h * 3600;
	const m = Math.floor(s / 60);
	s -= m * 60;
	return `${h ? `${h}h` : ""}${m ? `${m}m` : ""}${s ? `${s}s` : ""}`;
}
