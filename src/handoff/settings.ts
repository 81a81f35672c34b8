/**
 * The protocol's numeric and mode settings, read from the environment. A value that does not parse is a
 * warning plus the default, never `NaN`: the old extension's `Number(env)` made a typo fire the watermark
 * on the first turn and silently disable every reset.
 *
 *   readHandoffSettings({ HANDOFF_WATERMARK: "0.7", HANDOFF_MAX_RESETS: "ten" })
 *   → { watermark: 0.7, maxResets: 12, checkpointReset: "compact", warnings: [{ name: "HANDOFF_MAX_RESETS", … }] }
 */

/** How a checkpoint resets the context: in place, in a new session, or not at all. */
export type ResetMode = "compact" | "session" | "none";

/** Every reset mode, in the order the tool lists them. */
export const RESET_MODES: readonly ResetMode[] = ["compact", "session", "none"];

/** The defaults the docs' configuration table states. */
export const HANDOFF_DEFAULTS = {
	watermark: 0.6,
	maxResets: 12,
	checkpointReset: "compact",
} as const satisfies Omit<HandoffSettings, "warnings">;

/** One environment variable that was set but could not be used. */
export interface SettingWarning {
	name: "HANDOFF_WATERMARK" | "HANDOFF_MAX_RESETS" | "HANDOFF_CHECKPOINT_RESET";
	value: string;
	message: string;
}

/** The resolved settings, with a warning for every value that fell back to its default. */
export interface HandoffSettings {
	/** Fraction of the context window, in (0, 1], at which the landing directive is steered in. Default: 0.6. */
	watermark: number;
	/** Automatic resets allowed per task before checkpoints only write the file. Default: 12. */
	maxResets: number;
	/** Reset used when `checkpoint` is called without `reset`. Default: "compact". */
	checkpointReset: ResetMode;
	warnings: SettingWarning[];
}

/** Environment-like input; only the three `HANDOFF_*` names are read. */
export type SettingsEnv = Readonly<Record<string, string | undefined>>;

/** Reads the settings; an unset or empty variable means the default, silently. */
export function readHandoffSettings(env: SettingsEnv): HandoffSettings {
	const warnings: SettingWarning[] = [];
	const raw = (name: SettingWarning["name"]) => {
		const value = env[name]?.trim();
		return value === undefined || value === "" ? undefined : value;
	};
	const warn = (name: SettingWarning["name"], value: string, expected: string) =>
		warnings.push({ name, value, message: `${name}=${JSON.stringify(value)} is not ${expected}; using the default.` });

	let watermark: number = HANDOFF_DEFAULTS.watermark;
	const w = raw("HANDOFF_WATERMARK");
	if (w !== undefined) {
		const n = parseDecimal(w);
		if (n !== undefined && n > 0 && n <= 1) watermark = n;
		else warn("HANDOFF_WATERMARK", w, `a fraction in (0, 1], e.g. 0.6 (default ${HANDOFF_DEFAULTS.watermark})`);
	}

	let maxResets: number = HANDOFF_DEFAULTS.maxResets;
	const m = raw("HANDOFF_MAX_RESETS");
	if (m !== undefined) {
		if (/^\d+$/.test(m) && Number.isSafeInteger(Number(m))) maxResets = Number(m);
		else warn("HANDOFF_MAX_RESETS", m, `a whole number >= 0 (default ${HANDOFF_DEFAULTS.maxResets})`);
	}

	let checkpointReset: ResetMode = HANDOFF_DEFAULTS.checkpointReset;
	const r = raw("HANDOFF_CHECKPOINT_RESET");
	if (r !== undefined) {
		const mode = RESET_MODES.find((x) => x === r.toLowerCase());
		if (mode) checkpointReset = mode;
		else
			warn(
				"HANDOFF_CHECKPOINT_RESET",
				r,
				`one of ${RESET_MODES.join(", ")} (default ${HANDOFF_DEFAULTS.checkpointReset})`,
			);
	}
	return { watermark, maxResets, checkpointReset, warnings };
}

/** A plain decimal such as `0.6`, `.6` or `1`; `Number()` alone would also accept `""`, `0x1` and `1e-1`. */
function parseDecimal(text: string): number | undefined {
	return /^(\d+\.?\d*|\.\d+)$/.test(text) ? Number(text) : undefined;
}
