/**
 * One switch and one cap for every surface: the interactive extension, flow runs and the driver all read
 * the protocol's settings through here, so `HANDOFF_ENABLED=false` (or `enable_handoff: false`) and
 * `HANDOFF_MAX_RESETS` mean the same thing wherever a turn runs.
 *
 *   await resolveHandoffPolicy({ cwd, agentDir, env: { HANDOFF_ENABLED: "off" } })
 *   → { policy: { enabled: false, maxResets: 12, watermark: 0.6, checkpointReset: "compact" },
 *       source: "env", warnings: [] }
 */
import { HANDOFF_DEFAULTS, type ResetMode, readHandoffSettings } from "./settings.ts";
import { type FileOperations, localFileOperations } from "./store.ts";
import { resolveSwitch, type SwitchPlaces, type SwitchSource } from "./switch.ts";

/** What a run needs to know of the protocol. */
export interface HandoffPolicy {
	/** Off: no `finish`/`checkpoint` tools and no watermark steer in any turn. */
	enabled: boolean;
	/** Automatic context resets per task (`HANDOFF_MAX_RESETS`); past it a checkpoint only saves. */
	maxResets: number;
	/** The watermark when a flow or node sets none (`HANDOFF_WATERMARK`). */
	watermark: number;
	/** A checkpoint's reset when the call names none (`HANDOFF_CHECKPOINT_RESET`). */
	checkpointReset: ResetMode;
}

/** The policy of a library caller that read no settings: the protocol on, the documented defaults. */
export const DEFAULT_POLICY: HandoffPolicy = { enabled: true, ...HANDOFF_DEFAULTS };

/** The policy, which layer decided the switch, and one line per setting that fell back to its default. */
export interface ResolvedPolicy {
	policy: HandoffPolicy;
	source: SwitchSource;
	warnings: string[];
}

/** Reads the switch (env, project, global settings) and the `HANDOFF_*` numbers; never throws. */
export async function resolveHandoffPolicy(
	places: SwitchPlaces,
	ops: FileOperations = localFileOperations,
): Promise<ResolvedPolicy> {
	const settings = readHandoffSettings(places.env);
	const resolution = await resolveSwitch(places, ops);
	return {
		policy: {
			enabled: resolution.enabled,
			maxResets: settings.maxResets,
			watermark: settings.watermark,
			checkpointReset: settings.checkpointReset,
		},
		source: resolution.source,
		warnings: [...resolution.warnings, ...settings.warnings.map((w) => w.message)],
	};
}
