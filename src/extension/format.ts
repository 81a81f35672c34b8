/**
 * The small words of the live view and the tool's rows: a clock, token counts, a tool summary. Apart from
 * the live view's renderer so the `subagent` tool's can use them without loading the flow layer at pi's start.
 */
import { formatTokens, type Usage } from "../runtime/index.ts";

/** `12s`, `1m05s`, `1h02m`: a clock a person reads at a glance, whole seconds only. */
export function clock(ms: number): string {
	const s = Math.max(0, Math.floor(ms / 1000));
	if (s < 60) return `${s}s`;
	if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
	return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/** ` · ↑in ↓out`, or nothing before any token was counted. */
export function tokens(u: Usage): string {
	const input = u.input + u.cacheRead + u.cacheWrite;
	return input + u.output > 0 ? ` · ↑${formatTokens(input)} ↓${formatTokens(u.output)}` : "";
}

/** `read×3, grep`: what a turn has used, in first-use order. */
export function summariseTools(tools: readonly string[]): string {
	const counts = new Map<string, number>();
	for (const t of tools) counts.set(t, (counts.get(t) ?? 0) + 1);
	return [...counts].map(([t, n]) => (n > 1 ? `${t}×${n}` : t)).join(", ");
}
