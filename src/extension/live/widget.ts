/**
 * The live view above the editor while a run goes: redrawn on every event and, in the terminal, every
 * second so clocks move between events; cleared when the run ends. In the terminal it is a component (a
 * list of lines is cut at ten rows by pi) and Esc stops the run; over RPC it is the list of lines the
 * protocol carries, cut to fit those ten rows.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { type Component, matchesKey, truncateToWidth } from "@earendil-works/pi-tui";
import type { CheckedFlow } from "../../language/index.ts";
import type { EventSink } from "../../runtime/index.ts";
import { foldLive, type LiveState, startLive } from "./fold.ts";
import { showLive, treeOf } from "./render.ts";

/** The widget's key: one live view at a time, a second run replaces the first's. */
export const LIVE_WIDGET = "pi-flows-live";

/** A live view in place. */
export interface LiveView {
	/** Feed the run's events here. */
	sink: EventSink;
	/** The frame as it stands (kept with the result, so the last frame survives the widget). */
	frame(): string[];
	/** Draws the frame again now: something the events do not carry changed (`/step` began to wait). */
	redraw(): void;
	/** Stops the clock, the Esc listener and clears the widget. Idempotent. */
	close(): void;
}

/** Options of a live view. */
export interface LiveOptions {
	/** Called on Esc (terminal only). */
	onEscape?: () => void;
	/** While true, Esc belongs to a dialog and is left alone. */
	paused?: () => boolean;
	/** A line under the tree while it says something (`/step`: waiting for your choice). */
	status?: () => string | undefined;
	/** The visit that ended its turn and waits for the person, and since when (`/step`). */
	waiting?: () => { path: string; since: number } | undefined;
}

/** Opens the live view of a run of `flow`; a no-op without a UI. */
export function openLiveView(
	ctx: Pick<ExtensionContext, "hasUI" | "mode" | "ui">,
	flow: CheckedFlow,
	options: LiveOptions = {},
): LiveView {
	const state: LiveState = startLive(flow.name.value, Date.now());
	const tree = treeOf(flow);
	const tui = ctx.mode === "tui";
	const frame = () => {
		const footer = [options.status?.(), tui && options.onEscape ? "esc stops the run" : undefined]
			.filter(Boolean)
			.join(" · ");
		const waiting = options.waiting?.();
		return showLive(state, tree, Date.now(), {
			...(tui ? {} : { maxRows: 8 }),
			...(footer ? { footer } : {}),
			...(waiting ? { waiting } : {}),
		});
	};
	if (!ctx.hasUI) return { sink: (e) => void foldLive(state, e, Date.now()), frame, redraw: () => {}, close: () => {} };
	let redraw = () => {};
	if (tui) {
		ctx.ui.setWidget(
			LIVE_WIDGET,
			(host, theme) => {
				redraw = () => host.requestRender();
				const component: Component = {
					render: (width) => frame().map((line) => truncateToWidth(colour(line, theme.fg.bind(theme)), width)),
					invalidate: () => {},
				};
				return component;
			},
			{ placement: "aboveEditor" },
		);
	} else {
		redraw = () => ctx.ui.setWidget(LIVE_WIDGET, frame(), { placement: "aboveEditor" });
		redraw();
	}
	const timer = tui ? setInterval(() => redraw(), 1000) : undefined;
	// A forgotten timer must not keep pi alive after the session ends.
	timer?.unref?.();
	const unlisten =
		tui && options.onEscape
			? ctx.ui.onTerminalInput((data) => {
					if (!matchesKey(data, "escape") || options.paused?.()) return undefined;
					options.onEscape?.();
					return { consume: true };
				})
			: () => {};
	let closed = false;
	return {
		sink: (event) => {
			foldLive(state, event, Date.now());
			if (!closed) redraw();
		},
		frame,
		redraw: () => {
			if (!closed) redraw();
		},
		close: () => {
			if (closed) return;
			closed = true;
			if (timer) clearInterval(timer);
			unlisten();
			ctx.ui.setWidget(LIVE_WIDGET, undefined);
		},
	};
}

type Paint = (colour: "success" | "error" | "warning" | "dim" | "muted" | "accent", text: string) => string;

/** Colours the state glyph of a line, so the tree reads at a glance; the text stays plain. */
function colour(line: string, fg: Paint): string {
	return line.replace(/^(\s*)([●✓✗○▸!])/, (_m, indent: string, glyph: string) => {
		const painted =
			glyph === "✓"
				? fg("success", glyph)
				: glyph === "✗" || glyph === "!"
					? fg("error", glyph)
					: glyph === "○"
						? fg("dim", glyph)
						: glyph === "▸"
							? fg("muted", glyph)
							: fg("warning", glyph);
		return `${indent}${painted}`;
	});
}
