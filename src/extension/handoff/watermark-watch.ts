/**
 * The watchdog: at each turn end, when the context has passed the watermark, it steers the landing
 * directive in, once per agent run. The decision itself is the pure {@link decideWatermark}.
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { decideWatermark, landThePlaneDirective } from "../../handoff/index.ts";
import { HANDOFF_TYPES } from "./runtime.ts";

/** The watchdog of one session. */
export interface WatermarkWatch {
	/** A new agent run (including a resume after a reset) may be warned again. */
	onAgentStart(): void;
	/**
	 * Nothing more this run: after `finish` a steer would be a follow-up that keeps the finished run going.
	 */
	mute(): void;
	/** Checks the usage; true when the directive was steered in. */
	onTurnEnd(ctx: ExtensionContext): boolean;
}

/** What the watchdog needs. */
export interface WatermarkWatchDeps {
	pi: ExtensionAPI;
	threshold: () => number;
	/** Whether recommending `checkpoint` makes sense now (interactive, resets left). */
	canReset: (ctx: ExtensionContext) => boolean;
	notify: (ctx: ExtensionContext, text: string) => void;
}

/** Builds the watchdog. */
export function createWatermarkWatch(deps: WatermarkWatchDeps): WatermarkWatch {
	let fired = false;
	return {
		onAgentStart() {
			fired = false;
		},
		mute() {
			fired = true;
		},
		onTurnEnd(ctx) {
			const usage = ctx.getContextUsage();
			const decision = decideWatermark({
				tokens: usage?.tokens,
				contextWindow: usage?.contextWindow ?? ctx.model?.contextWindow,
				threshold: deps.threshold(),
				firedThisRun: fired,
			});
			if (!decision.fire) return false;
			fired = true;
			deps.pi.sendMessage(
				{
					customType: HANDOFF_TYPES.watermark,
					content: landThePlaneDirective({ canReset: deps.canReset(ctx) }),
					display: true,
					details: { fraction: decision.fraction, threshold: deps.threshold() },
				},
				{ deliverAs: "steer" },
			);
			deps.notify(ctx, "Handoff: context watermark reached; the agent was told to land.");
			return true;
		},
	};
}
