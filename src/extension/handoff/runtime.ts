/**
 * What every piece of the handoff wiring shares in one session: the names it registers, where it reads
 * its settings from, the switch as last resolved, and one way to tell the human something in every mode.
 */
import { type ExtensionAPI, type ExtensionContext, getAgentDir } from "@earendil-works/pi-coding-agent";
import {
	type FileOperations,
	type HandoffSettings,
	localFileOperations,
	readHandoffSettings,
	resolveSwitch,
	type SettingsEnv,
	type SwitchResolution,
} from "../../handoff/index.ts";

/** The tools the switch adds and removes. */
export const HANDOFF_TOOL_NAMES = ["finish", "checkpoint"] as const;

/** Custom message and entry types, so a session file shows where each came from. */
export const HANDOFF_TYPES = {
	seed: "pi-flows-handoff-seed",
	resume: "pi-flows-handoff-resume",
	watermark: "pi-flows-handoff-watermark",
	/** Not in model context: carries the reset count into a session started by /cut. */
	state: "pi-flows-handoff-state",
} as const;

/** The outside world the wiring reads; tests may swap any part. */
export interface HandoffEnvironment {
	ops: FileOperations;
	env: () => SettingsEnv;
	/** pi's agent dir, resolved at call time so `PI_CODING_AGENT_DIR` set later still counts. */
	agentDir: () => string;
	now: () => Date;
}

/** Reads the real process environment and disk. */
export const defaultEnvironment: HandoffEnvironment = {
	ops: localFileOperations,
	env: () => process.env,
	agentDir: getAgentDir,
	now: () => new Date(),
};

/** Tells the human: a notification when there is a UI, else a line on stderr. */
export function report(ctx: ExtensionContext, text: string, level: "info" | "warning" | "error" = "info"): void {
	if (ctx.hasUI) {
		ctx.ui.notify(text, level);
		return;
	}
	// Headless pi owns stdout (the answer, or the JSONL stream) and reroutes other writes to stderr anyway.
	process.stderr.write(`${text}\n`);
}

/** The switch and settings as last read, and the one place that re-reads and applies them. */
export interface SwitchControl {
	readonly enabled: boolean;
	readonly resolution: SwitchResolution | undefined;
	readonly settings: HandoffSettings;
	/** Re-reads env and settings files, hides or restores the tools, and warns once per new problem. */
	refresh(ctx: ExtensionContext): Promise<SwitchResolution>;
}

/** Builds the switch control for one session. */
export function createSwitchControl(pi: ExtensionAPI, environment: HandoffEnvironment): SwitchControl {
	let resolution: SwitchResolution | undefined;
	let settings = readHandoffSettings(environment.env());
	let hidden: string[] = [];
	let warned = "";

	const apply = (enabled: boolean) => {
		const active = pi.getActiveTools();
		if (!enabled) {
			const ours = active.filter((name) => (HANDOFF_TOOL_NAMES as readonly string[]).includes(name));
			if (ours.length === 0) return;
			hidden = [...new Set([...hidden, ...ours])];
			pi.setActiveTools(active.filter((name) => !ours.includes(name)));
		} else if (hidden.length > 0) {
			// Only tools this switch hid come back; a tool the user turned off some other way stays off.
			pi.setActiveTools([...new Set([...active, ...hidden])]);
			hidden = [];
		}
	};

	return {
		get enabled() {
			return resolution?.enabled ?? true;
		},
		get resolution() {
			return resolution;
		},
		get settings() {
			return settings;
		},
		async refresh(ctx) {
			const env = environment.env();
			settings = readHandoffSettings(env);
			// pi's own trust governs the project's settings file: pi reads it only in a project the person trusted.
			const places = { cwd: ctx.cwd, agentDir: environment.agentDir(), env, projectTrusted: ctx.isProjectTrusted() };
			resolution = await resolveSwitch(places, environment.ops);
			apply(resolution.enabled);
			const warnings = [...resolution.warnings, ...settings.warnings.map((w) => w.message)];
			const key = warnings.join("\n");
			if (key !== warned && warnings.length > 0) report(ctx, `Handoff settings:\n${key}`, "warning");
			warned = key;
			return resolution;
		},
	};
}
