/**
 * Dry runs: the same walk with zero model calls. Each turn answers from the script when it gives an
 * answer, and otherwise with a value made up from the node's output type (through the node's own
 * `submit` tool, so it is validated like a real answer); checks pass without running, git is not run,
 * `diff` reads as "", copies land, questions take their default (or the first option). A rule only a
 * model's turn can meet (`mustCallTool`, a typed turn answering through `submit`) is skipped, and each skip
 * is told to `onSkip` (dry-skips.ts).
 */
import { emptyUsage } from "../runtime/index.ts";
import type { Spawn, Subagent } from "../runtime/index.ts";
import type { ToolSpec } from "../runtime/index.ts";
import { fillArgs, fillTemplate, type Script, stepsFor } from "../script/index.ts";
import { markDry } from "./dry-skips.ts";
import type { AskPort, CheckPort, GitPort } from "./ports/index.ts";

/**
 * A spawn whose subagents answer from the script or from the output type, with no model; `onSkip` hears
 * each rule only a model's turn could meet, skipped (`at: what`).
 */
export function drySpawn(script?: Script, onSkip: (note: string) => void = () => {}): Spawn {
	let n = 0;
	const cursors = new Map<string, number>();
	return async (request) => {
		n++;
		// As in a real session, a tool offered only at the watermark is not there (a dry run has no context to fill).
		const tools = new Map((request.customTools ?? []).map((t) => [t.name, t]));
		const sub: Subagent = {
			id: `${request.agent.name}#dry${n}`,
			agent: request.agent.name,
			model: "dry-run",
			async ask(task, options = {}) {
				const base = { agent: request.agent.name, model: "dry-run", messages: [], usage: emptyUsage() };
				const label = options.label ?? request.agent.name;
				const found = script ? stepsFor(script, label) : undefined;
				// What a template in `say` or `args` reads of this turn.
				const turnOf = (result: string) => ({
					messages: 1,
					thinking: "off",
					system: () => "",
					result: () => result,
					task: () => task,
					tools: () => [...(request.tools ?? request.agent.tools), ...tools.keys()].join(", "),
				});
				if (found) {
					const i = cursors.get(label) ?? 0;
					let result = "";
					for (let k = i; k < found.steps.length; k++) {
						const step = found.steps[k];
						cursors.set(label, k + 1);
						if (step.fail !== undefined)
							return { ...base, output: "", ok: false, error: step.fail, errorKind: "provider" };
						if (step.hang)
							return { ...base, output: "", ok: false, error: "timed out (dry run)", errorKind: "timeout" };
						let ended = false;
						const answered = step.calls.some((c) => c.name === "submit" || c.name === "verdict");
						for (const call of step.calls) {
							const tool = tools.get(call.name);
							if (!tool) {
								result = `(dry run: \`${call.name}\` was not run)`;
								continue;
							}
							const out = await tool.execute(
								fillArgs(call.args, (t) => fillTemplate(t, turnOf(result))) as Record<string, unknown>,
							);
							result = out.text;
							ended = out.terminate === true || ended;
						}
						// The answer a run would give: templates filled from this turn, not printed raw.
						const say = step.say === undefined ? "" : fillTemplate(step.say, turnOf(result));
						const done = ended || (step.calls.length === 0 && step.say !== undefined);
						// A typed turn answers through its tool; the script answering in words is a model's
						// mistake to make, not the flow's: the dry run answers with a sample and says so.
						if (
							done &&
							!answered &&
							options.answer !== "text" &&
							(await madeUp(tools, label, request.agent.name)) === ""
						)
							onSkip(
								`${label}: the script answers in text where a model must call \`submit\`/\`verdict\`; a sample of the type stands in`,
							);
						if (done) return { ...base, output: say, ok: true };
					}
					return {
						...base,
						output: "",
						ok: false,
						error: `the script's steps for \`${found.key}\` are used up at \`${label}\``,
						errorKind: "provider",
					};
				}
				// An untyped node on a subagent shared with a typed one answers in text, not through `submit`.
				const made =
					options.answer === "text"
						? `(dry run: ${request.agent.name} at ${label})`
						: await madeUp(tools, label, request.agent.name);
				return { ...base, output: made, ok: true };
			},
			close: async () => {},
		};
		markDry(sub, onSkip);
		return sub;
	};
}

/**
 * A typed or review turn answers through its own tool with the arguments that tool made up for it
 * (`submit`: a sample of the node's output type, optional fields filled); any other turn answers in text.
 */
async function madeUp(tools: Map<string, ToolSpec>, label: string, agent: string): Promise<string> {
	for (const name of ["verdict", "submit"]) {
		const tool = tools.get(name);
		if (tool?.sampleArgs) {
			await tool.execute(tool.sampleArgs());
			return "";
		}
	}
	return `(dry run: ${agent} at ${label})`;
}

/** Questions answered by their default, else "enough", else the first option, yes, or "". */
export const DRY_ASK: AskPort = {
	somebodyThere: true,
	async ask(card) {
		if (card.hasDefault || card.enough) return { kind: "nobody" };
		if (card.options?.length) return { kind: "answer", value: card.options[0].label };
		if (card.confirm) return { kind: "answer", value: true };
		return { kind: "answer", value: "" };
	},
};

/** Checks that pass without running anything. */
export const DRY_CHECK: CheckPort = {
	run: async () => ({ ok: true, passed: true, report: "(dry run: the check was not run)", exitCode: 0, ms: 0 }),
};

/** Git that is never run: no diff, no commit, copies that land. */
export function dryGit(cwd: string): GitPort {
	return {
		root: async () => cwd,
		diff: async () => ({ ok: true, text: "" }),
		commit: async () => ({ ok: true, committed: false, branch: "pi-flows/dry-run" }),
		openCopy: async () => ({ ok: true, copy: { dir: cwd, branch: "dry-run", base: "dry-run" } }),
		land: async (_cwd, copies) => copies.map(() => ({ landed: true })),
		release: async () => undefined,
	};
}
