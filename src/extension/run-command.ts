/**
 * `/run <flow> [input] [--model M] [--timeout T] [--budget-tokens N] [--script FILE] [--retries N]
 * [--retry-wait D] [--reuse last|RUN]`: checks everything
 * before anything spawns (a refusal lists every fault at its `file:line:col` and nothing runs), then runs
 * the flow in its own run folder with the live view above the editor, and posts the answer as a message
 * the model reads on its next turn but that starts none. Esc stops the run and closes every subagent.
 * `/run` alone lists the flows.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { NOBODY } from "../engine/index.ts";
import { readTransportFlags } from "../launch/index.ts";
import { readCommandLine, readTimeout, readTokenBudget, RUN_FLAGS } from "./args.ts";
import { dialogAsk } from "./ask-dialogs.ts";
import { completeLine } from "./completions.ts";
import { flowListing } from "./flows-command.ts";
import { answerOf } from "./launch/index.ts";
import { type Launched, launch } from "./launch/index.ts";
import { prepareChain, prepareLaunch } from "./launch/index.ts";
import { openLiveView } from "./live/index.ts";
import { postResult, say } from "./messages.ts";
import { runChildTools } from "./tool/index.ts";
import { readResumeLine } from "./resume-args.ts";
import { resumeInPi } from "./resume-command.ts";
import { projectSources, type TrustMemory } from "./trust.ts";
import { COMMAND_CARDS } from "./cards.ts";

/** Registers `/run`, the person's way to start a flow and watch it without leaving the session. */
export function registerRunCommand(pi: ExtensionAPI, memory: TrustMemory): void {
	pi.registerCommand("run", {
		description: COMMAND_CARDS.run,
		getArgumentCompletions: completeLine(["flows"], RUN_FLAGS),
		handler: async (args, ctx) => {
			const line = readCommandLine(args);
			if (!line.ok) return say(ctx, `/run: ${line.error}`, "error");
			const { name, input, flags } = line.value;
			if (name === "resume") {
				// The CLI's words: `--take-lock` (a lock of another host or a live process; a dead lock of this
				// host needs no flag), `--in-doubt rerun|stop`, `--runs-dir`, `--timeout`.
				const resume = readResumeLine([input, ...Object.entries(flags).flat()].join(" "));
				if (!resume.ok) return say(ctx, `/run resume: ${resume.error}`, "error");
				const post = (content: string, ok: boolean, runDir: string) => {
					postResult(pi, ctx, content, { flow: "resume", ok, runDir, frame: [] });
					if (!ctx.hasUI) say(ctx, content, ok ? "info" : "error");
				};
				return resumeInPi(resume.value.run, ctx, post, resume.value);
			}
			const scope = await projectSources(ctx, memory);
			if (!name && !flags["--chain"]) {
				const listing = flowListing(ctx.cwd, scope);
				return say(ctx, `${listing.text}\n\nRun one with /run <flow> <input>.`, listing.refused ? "warning" : "info");
			}
			const timeout = readTimeout(flags["--timeout"]);
			if (!timeout.ok) return say(ctx, `/run: ${timeout.error}`, "error");
			const budget = readTokenBudget(flags["--budget-tokens"]);
			if (!budget.ok) return say(ctx, `/run: ${budget.error}`, "error");
			// The same reading as `pi-flows run --retries N --retry-wait D`.
			const transport = readTransportFlags(flags["--retries"], flags["--retry-wait"]);
			if (!transport.ok) return say(ctx, `/run: ${transport.error}`, "error");
			let asking = false;
			const ask = ctx.hasUI
				? dialogAsk(ctx.ui, { opened: () => (asking = true), closed: () => (asking = false) })
				: NOBODY;
			const request = {
				name,
				input,
				...(flags["--model"] ? { model: flags["--model"] } : {}),
				...(timeout.value !== undefined ? { timeoutMs: timeout.value } : {}),
				...(budget.value !== undefined ? { budgetTokens: budget.value } : {}),
				...(flags["--script"] ? { script: flags["--script"] } : {}),
				...(transport.value ? { transport: transport.value } : {}),
				...(flags["--reuse"] ? { reuse: flags["--reuse"] } : {}),
			};
			// `/run --chain "@a -> @b" goal`: the chain runs as a flow, every flag applied; the rest is its goal.
			const chain = flags["--chain"];
			const prepared = chain
				? await prepareChain(chain, { ...request, input: [name, input].filter(Boolean).join(" ") }, ctx, scope, ask)
				: await prepareLaunch(request, ctx, scope, ask);
			if (!prepared.ok) return say(ctx, [`/run ${name}: refused`, ...prepared.lines].join("\n"), "error");
			const p = prepared.value;
			const stop = new AbortController();
			const onPiAbort = () => stop.abort();
			ctx.signal?.addEventListener("abort", onPiAbort, { once: true });
			const view = openLiveView(ctx, p.flow, { onEscape: () => stop.abort(), paused: () => asking });
			const childTools = runChildTools(ctx, scope, p.host, request.model ?? (request.script ? "scripted" : undefined));
			let launched: Launched;
			let frame: string[];
			try {
				launched = await launch(p, {
					signal: stop.signal,
					onEvent: view.sink,
					childTools,
					note: (text) => say(ctx, text, "info"),
				});
			} finally {
				ctx.signal?.removeEventListener("abort", onPiAbort);
				frame = view.frame();
				view.close();
			}
			const answer = answerOf(p.flow.name.value, input, launched);
			const { result } = launched;
			postResult(pi, ctx, answer.content, {
				flow: p.flow.name.value,
				ok: result.ok,
				runDir: launched.runDir,
				frame,
				...(result.failedAt ? { failedAt: result.failedAt } : {}),
				...(result.error ? { error: result.error } : {}),
				...(launched.stopped ? { stopped: "by the person" } : {}),
			});
			// Headless pi prints no custom message; the answer still has to reach the person.
			if (!ctx.hasUI) say(ctx, answer.content, result.ok ? "info" : "error");
		},
	});
}
