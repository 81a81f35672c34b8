/**
 * The handoff protocol in an interactive pi session: `finish` and `checkpoint`, the reset engine, the
 * watermark watchdog, `/next`, `/cut` and `/handoff`, all behind the `enable_handoff` switch. Off means
 * absent: the tools leave the active set and every handler returns at once.
 *
 *   export default function (pi: ExtensionAPI) { registerHandoff(pi); }
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { writeHandoff } from "../../handoff/index.ts";
import { createCheckpointTool } from "./checkpoint-tool.ts";
import { registerHandoffCommands } from "./commands.ts";
import { createFinishTool } from "./finish-tool.ts";
import { canResetIn, createResetEngine } from "./reset-engine.ts";
import { createSwitchControl, defaultEnvironment, type HandoffEnvironment, report } from "./runtime.ts";
import { createWatermarkWatch } from "./watermark-watch.ts";

export { createCheckpointTool } from "./checkpoint-tool.ts";
export { createFinishTool } from "./finish-tool.ts";
export { HANDOFF_TOOL_NAMES, HANDOFF_TYPES, type HandoffEnvironment } from "./runtime.ts";

/** Registers the whole protocol on one pi session (pi calls extension factories once per session). */
export function registerHandoff(pi: ExtensionAPI, environment: HandoffEnvironment = defaultEnvironment): void {
	const control = createSwitchControl(pi, environment);
	const maxResets = () => control.settings.maxResets;
	const engine = createResetEngine({ pi, maxResets });
	const watch = createWatermarkWatch({
		pi,
		threshold: () => control.settings.watermark,
		canReset: (ctx) => canResetIn(ctx) && engine.resets < maxResets(),
		notify: (ctx, text) => report(ctx, text),
	});
	const write = (cwd: string, doc: Parameters<typeof writeHandoff>[1]) => writeHandoff(cwd, doc, environment.ops);
	const isEnabled = () => control.enabled;

	pi.registerTool(
		createFinishTool({
			isEnabled,
			write,
			now: environment.now,
			onFinished: () => {
				engine.disarm();
				watch.mute();
			},
			notify: (ctx, text) => report(ctx, text),
		}),
	);
	pi.registerTool(
		createCheckpointTool({
			isEnabled,
			write,
			now: environment.now,
			defaultReset: () => control.settings.checkpointReset,
			engine,
			maxResets,
			notify: (ctx, text, level) => report(ctx, text, level),
		}),
	);
	registerHandoffCommands(pi, { control, engine, environment });

	pi.on("session_start", async (_event, ctx) => {
		engine.onSessionStart(ctx);
		watch.onAgentStart();
		await control.refresh(ctx);
	});
	// Re-read before each run, not at agent_start: measured, the first request's tool loadout is already
	// fixed by agent_start, so a switch turned off by hand would still show the tools for one request.
	pi.on("before_agent_start", async (_event, ctx) => {
		await control.refresh(ctx);
		if (!control.enabled) engine.disarm();
	});
	pi.on("agent_start", () => watch.onAgentStart());
	pi.on("turn_end", (event, ctx) => {
		if (!control.enabled) return;
		// A turn that fires a reset is about to get a small context; warning it would only cost a turn.
		if (!engine.onTurnEnd(event, ctx)) watch.onTurnEnd(ctx);
	});
	pi.on("agent_settled", (_event, ctx) => {
		engine.onAgentSettled(ctx);
	});
	pi.on("session_before_compact", (event) => engine.onBeforeCompact(event));
	pi.on("session_shutdown", () => engine.dispose());
}
