/**
 * `/next [text]` chains to the next task in a fresh session seeded with HANDOFF.md; `/cut [text]` wipes
 * the context and continues the same task the same way (a checkpoint with reset "session" dispatches it
 * itself); `/handoff` shows the document, `status` every switch layer, and `on|off [global|project]`
 * flips the switch. Only command contexts can start sessions, which is why the automatic cut comes here.
 */
import type { ExtensionAPI, ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import {
	type HandoffDocument,
	type HandoffPurpose,
	handoffAsContext,
	isChainEnd,
	kickoffText,
	readHandoff,
	type SwitchScope,
	writeSwitch,
} from "../../handoff/index.ts";
import type { ResetEngine } from "./reset-engine.ts";
import { HANDOFF_TOOL_NAMES, HANDOFF_TYPES, type HandoffEnvironment, report, type SwitchControl } from "./runtime.ts";

/** What the commands need from the session around them. */
export interface CommandDeps {
	control: SwitchControl;
	engine: Pick<ResetEngine, "takeCut" | "resets">;
	environment: HandoffEnvironment;
}

/** Registers /next, /cut and /handoff. */
export function registerHandoffCommands(pi: ExtensionAPI, deps: CommandDeps): void {
	pi.registerCommand("next", {
		description: "Start the next task in a fresh session seeded with HANDOFF.md (text after it replaces the kickoff)",
		handler: (args, ctx) => chain("next", args, ctx, deps),
	});
	pi.registerCommand("cut", {
		description: "Hard reset: continue this task in a fresh session seeded with HANDOFF.md",
		handler: (args, ctx) => chain("cut", args, ctx, deps),
	});
	pi.registerCommand("handoff", {
		description: "Show HANDOFF.md; `status` shows the switch layers; `on|off [global|project]` flips the switch",
		getArgumentCompletions: (prefix) => {
			const items = ["status", "on", "off", "on project", "off project", "on global", "off global"]
				.filter((value) => value.startsWith(prefix.trimStart()))
				.map((value) => ({ value, label: value }));
			return items.length > 0 ? items : null;
		},
		handler: (args, ctx) => handoffCommand(pi, args, ctx, deps),
	});
}

async function chain(
	purpose: Exclude<HandoffPurpose, "compact">,
	args: string,
	ctx: ExtensionCommandContext,
	deps: CommandDeps,
) {
	const auto = purpose === "cut" ? deps.engine.takeCut() : undefined;
	if (!deps.control.enabled) {
		return report(
			ctx,
			`The handoff protocol is switched off, so /${purpose} does nothing. /handoff status says where; /handoff on turns it on.`,
			"warning",
		);
	}
	let doc: HandoffDocument | undefined = auto;
	if (!doc) {
		const read = await readHandoff(ctx.cwd, deps.environment.ops);
		if (!read.ok) return report(ctx, `/${purpose}: ${read.message}`, "error");
		doc = read.doc;
	}
	const kickoffArgs = args.trim();
	if (purpose === "next" && isChainEnd(doc) && !kickoffArgs) {
		// The blocker is the agent's own sentence: its full stop is kept, not doubled ("a human.." read as a typo).
		const why =
			doc.status === "blocked"
				? `it is blocked and needs a person: ${(doc.blocked ?? "no reason given").trim().replace(/[.!?]+$/, "")}`
				: "it has no next task";
		return report(ctx, `The chain ends here: HANDOFF.md says ${why}. Give /next some text to start a task anyway.`);
	}
	if (!auto && ctx.hasUI) {
		const preview = (purpose === "next" ? doc.next_task : doc.summary)?.trim().slice(0, 300) || "(empty)";
		const title =
			purpose === "next" ? "Start the next task in a fresh session?" : "Continue this task in a fresh session?";
		if (!(await ctx.ui.confirm(title, preview))) return report(ctx, `/${purpose} cancelled.`);
	}
	await ctx.waitForIdle();
	const seed = handoffAsContext(doc, purpose);
	const kickoff = kickoffArgs || kickoffText(purpose, doc);
	// A human's /next starts a new task and a new reset budget; a cut continues the task and its count.
	const resets = purpose === "cut" ? deps.engine.resets : 0;
	const result = await ctx.newSession({
		parentSession: ctx.sessionManager.getSessionFile(),
		setup: async (sm) => {
			sm.appendCustomEntry(HANDOFF_TYPES.state, { resets, purpose });
			sm.appendCustomMessageEntry(HANDOFF_TYPES.seed, seed, true, { purpose });
		},
		withSession: async (fresh) => {
			await fresh.sendUserMessage(kickoff);
		},
	});
	// After a switch the old ctx is stale; only a cancelled switch leaves it usable.
	if (result.cancelled) report(ctx, `/${purpose}: the new session was cancelled.`, "warning");
}

async function handoffCommand(pi: ExtensionAPI, args: string, ctx: ExtensionCommandContext, deps: CommandDeps) {
	const [verb = "", scopeWord] = args.trim().toLowerCase().split(/\s+/);
	if (verb === "") return showDocument(ctx, deps);
	if (verb === "status") return report(ctx, await statusText(pi, ctx, deps));
	if (verb !== "on" && verb !== "off")
		return report(ctx, "Usage: /handoff [status | on|off [global|project]]", "warning");
	if (scopeWord !== undefined && scopeWord !== "global" && scopeWord !== "project") {
		return report(ctx, `Unknown scope "${scopeWord}"; use global or project. Nothing was changed.`, "warning");
	}
	const scope: SwitchScope = scopeWord ?? "global";
	const written = await writeSwitch(
		verb === "on",
		scope,
		{ cwd: ctx.cwd, agentDir: deps.environment.agentDir() },
		deps.environment.ops,
	);
	if (!written.ok) return report(ctx, written.message, "error");
	const resolution = await deps.control.refresh(ctx);
	const shadowed = resolution.source !== scope && resolution.enabled !== (verb === "on");
	const note = shadowed
		? ` It is still ${resolution.enabled ? "on" : "off"}: the ${resolution.source} layer wins.`
		: "";
	report(ctx, `Wrote enable_handoff: ${verb === "on"} to ${written.path}.${note}`, shadowed ? "warning" : "info");
}

async function showDocument(ctx: ExtensionCommandContext, deps: CommandDeps) {
	const read = await readHandoff(ctx.cwd, deps.environment.ops);
	if (!read.ok) {
		const problems = read.problems.map((p) => `line ${p.line}: ${p.code}: ${p.message}`).join("\n");
		return report(
			ctx,
			[read.message, problems, read.text].filter(Boolean).join("\n\n"),
			read.reason === "missing" ? "info" : "error",
		);
	}
	const warnings = read.problems.map((p) => `line ${p.line}: ${p.code}: ${p.message}`);
	report(
		ctx,
		warnings.length > 0 ? `${read.text}\n${warnings.join("\n")}` : read.text,
		warnings.length > 0 ? "warning" : "info",
	);
}

async function statusText(pi: ExtensionAPI, ctx: ExtensionCommandContext, deps: CommandDeps): Promise<string> {
	const resolution = await deps.control.refresh(ctx);
	const { settings } = deps.control;
	const lines = [`Handoff protocol: ${resolution.enabled ? "on" : "off"} (from ${resolution.source})`];
	resolution.layers.forEach((layer, i) => {
		const value = layer.value === undefined ? "" : ` = ${layer.value}`;
		const raw = layer.raw !== undefined && layer.state !== "set" ? ` (${layer.raw})` : "";
		const why = layer.message && layer.state !== "absent" ? `: ${layer.message}` : "";
		const mark = layer.source === resolution.source ? "  <- wins" : "";
		lines.push(`  ${i + 1}. ${layer.source} ${layer.where}: ${layer.state}${value}${raw}${why}${mark}`);
	});
	lines.push(
		`Watermark ${settings.watermark}; automatic resets used ${deps.engine.resets} of ${settings.maxResets}; checkpoint default reset ${settings.checkpointReset}`,
		...settings.warnings.map((w) => `  ${w.message}`),
		`Tools: ${HANDOFF_TOOL_NAMES.map((name) => `${name} ${pi.getActiveTools().includes(name) ? "active" : "not active"}`).join(", ")}`,
	);
	return lines.join("\n");
}
