/**
 * The one way a duration reads, in messages and in the file format alike: whole units greedily from days
 * down (`90000` → `1m30s`, `90000000` → `1d1h`), and plain milliseconds when there is a part below a second
 * (`1500` → `1500ms`), because `1s500ms` reads worse. What a flow file could not write prints as `<n>ms`,
 * so a deadline's message ("timed out after 2m") and the file that set it agree.
 */
export function formatDuration(ms: number): string {
	if (!Number.isFinite(ms)) return `${ms}ms`;
	if (!Number.isSafeInteger(ms) || ms <= 0 || ms % 1000 !== 0) return `${Math.round(ms)}ms`;
	let rest = ms;
	let out = "";
	for (const [unit, size] of WHOLE_UNITS) {
		const n = Math.floor(rest / size);
		if (n > 0) out += `${n}${unit}`;
		rest -= n * size;
	}
	return out;
}

const WHOLE_UNITS = [
	["d", 86_400_000],
	["h", 3_600_000],
	["m", 60_000],
	["s", 1_000],
] as const;
