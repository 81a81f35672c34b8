/**
 * Everything a run needs, judged before anything spawns: the flow found and checked whole (every fault
 * with its `file:line:col`), the input read against the flow's type, a dry run's script checked against
 * the flow, the run stage (check scripts, the repository, unattended questions), and every node's model
 * resolved. A refusal is lines for the person; nothing has been started when one comes back.
 */
import { resolve } from "node:path";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { agentDir, loadRoster, type Sources } from "../../agents/index.ts";
import { findRun, reuseFromFolder } from "../../reuse/index.ts";
import { runsHome } from "../../runs/index.ts";
import { type Fault, faultText, formatFault } from "../../faults/index.ts";
import {
	CHAIN_FILE,
	judgeChain,
	type LaunchRunOptions,
	prepareLaunch as prepareFlow,
	readInput,
	readScriptFile as readScriptAt,
} from "../../launch/index.ts";
import { type AskPort, createGitPort, type GitPort } from "../../engine/index.ts";
import type { CheckedFlow, Value } from "../../language/index.ts";
import { type FlowEntry, findFlow } from "../../load/index.ts";
import type { ReuseSource } from "../../engine/index.ts";
import { catalogueOptions, checkFlowFile } from "../../load/index.ts";
import type { PiHost } from "../../pi/index.ts";
import type { Script } from "../../script/index.ts";
import type { TransportPolicy } from "../../runtime/index.ts";
import { hostFor } from "../host.ts";
import { relativeTo, untrustedRefusal } from "../trust.ts";

/** What to run, as the person or the model asked for it. */
export interface LaunchRequest {
	/** A flow name, or a path to a flow file. */
	name: string;
	/** The input as text: the text itself for a `string` flow, JSON for a typed one. */
	input: string;
	/** `--model`: every node's model. */
	model?: string;
	/** `--timeout`: every turn's bound. */
	timeoutMs?: number;
	/** `--budget-tokens`: no turn starts once the run has spent this many tokens (wins over the flow's `budget: tokens`). */
	budgetTokens?: number;
	/** `--script`: a dry run on the scripted model with this script (a path from the working folder). */
	script?: string;
	/** `--retries` and `--retry-wait`: the run's transport retries (a flow's `transport:` goes over them). */
	transport?: Partial<TransportPolicy>;
	/** `--reuse`: `last`, or a run folder to take unchanged visits from. */
	reuse?: string;
}

/** A run that may start: everything it needs was found and judged, so starting it cannot be refused. */
export interface Prepared {
	request: LaunchRequest;
	flow: CheckedFlow;
	entry: FlowEntry;
	input: Value;
	host: PiHost;
	git: GitPort;
	ask: AskPort;
	cwd: string;
	/** Whether the project was trusted (pi's trust, or the person's yes): its `.pi/settings.json` counts then. */
	projectTrusted: boolean;
	/** What the shared preparation worked out: models, check scripts, budget, a chain's handoffs, the run model. */
	runOptions: LaunchRunOptions;
	/** The earlier run `--reuse` named, opened (its seal checked). */
	reuse?: ReuseSource;
}

/** The outcome of preparing: a run that may start, or the lines saying why not. */
export type Preparation = { ok: true; value: Prepared } | { ok: false; lines: string[] };

/** What preparing reads of pi's context: the folder, and the session's model and runtime for subagents. */
type LaunchContext = Pick<ExtensionContext, "cwd" | "model" | "modelRegistry">;

const refuse = (...lines: string[]): Preparation => ({ ok: false, lines });

/** Judges a request; `scope` says whether project definitions may be read. */
export async function prepareLaunch(
	request: LaunchRequest,
	ctx: LaunchContext,
	scope: Sources,
	ask: AskPort,
): Promise<Preparation> {
	const cwd = ctx.cwd;
	const found = findFlow(request.name, cwd, scope);
	if (!found.ok) return refuse((!scope.project && untrustedRefusal(cwd, "flows", request.name)) || found.error);
	const checked = checkFlowFile(found.value.file, loadRoster(cwd, scope), catalogueOptions(cwd, scope));
	if (!checked.value) {
		const n = checked.faults.length;
		return refuse(
			...faultLines(checked.faults, cwd),
			`${found.value.name} does not check (${n} fault${n === 1 ? "" : "s"}); nothing was run.`,
		);
	}
	return prepareChecked(checked.value, found.value, request, ctx, scope, ask);
}

/**
 * A chain string run as a flow, exactly as `pi-flows chain` runs it: every flag applied, handoffs between
 * steps. Faults point at their column in the chain as it was written (`chain:1:12`).
 */
export async function prepareChain(
	chain: string,
	request: Omit<LaunchRequest, "name">,
	ctx: LaunchContext,
	scope: Sources,
	ask: AskPort,
): Promise<Preparation> {
	const file = resolve(ctx.cwd, "chain.md");
	const judged = judgeChain(chain, { cwd: ctx.cwd, scope, description: "a chain the model asked for", file });
	if (!judged.ok && judged.stage === "read")
		return refuse(...judged.faults.map((f) => formatFault(f)), "the chain does not read; nothing was run.");
	// The nodes a chain became have no paths the person wrote: a check fault says only where and what.
	if (!judged.ok) return refuse(...faultLines(judged.faults, ctx.cwd), "the chain does not check; nothing was run.");
	return prepareChecked(
		judged.flow,
		{ name: "chain", file, source: "user" },
		{ ...request, name: "chain" },
		ctx,
		scope,
		ask,
		judged.place,
	);
}

/** The input of a flow that checked, then the preparation every surface shares (see `src/launch`). */
async function prepareChecked(
	flow: CheckedFlow,
	entry: FlowEntry,
	request: LaunchRequest,
	ctx: LaunchContext,
	scope: Sources,
	ask: AskPort,
	place?: (faults: readonly Fault[]) => Fault[],
): Promise<Preparation> {
	const cwd = ctx.cwd;
	const name = flow.name.value;
	const input = readInput(request.input, flow.input.value, { flow: name, usage: `/run ${name} <input>` });
	if (!input.ok) return refuse(input.error);
	const git = createGitPort();
	const prepared = await prepareFlow(flow, {
		cwd,
		openHost: (script, transport) => hostFor(ctx, script, transport),
		...(request.model ? { model: request.model } : {}),
		...(request.script ? { script: request.script } : {}),
		...(request.budgetTokens !== undefined ? { budget: { tokens: request.budgetTokens } } : {}),
		...(request.transport ? { transport: request.transport } : {}),
		git,
		somebodyThere: ask.somebodyThere,
		...(place ? { place } : {}),
	});
	if (!prepared.ok) {
		if (prepared.unreadable)
			return refuse(`cannot read the script ${relativeTo(cwd, prepared.unreadable)}; nothing was run.`);
		const closing =
			prepared.stage === "script"
				? "the script does not check; nothing was run."
				: prepared.stage === "stage"
					? `${name} cannot start here; nothing was run.`
					: "nothing was run.";
		return refuse(...faultLines(prepared.faults, cwd), ...prepared.lines, closing);
	}
	let reuse: ReuseSource | undefined;
	if (request.reuse !== undefined) {
		const found = findRun(request.reuse, runsHome(cwd), name, cwd, agentDir());
		const opened = found.ok ? reuseFromFolder(found.runDir, agentDir()) : found;
		if (!opened.ok) return refuse(`${opened.error}; nothing was run.`);
		reuse = opened.source;
	}
	return {
		ok: true,
		value: {
			request,
			flow,
			entry,
			input: input.value,
			host: prepared.host,
			git,
			ask,
			cwd,
			projectTrusted: scope.project ?? false,
			runOptions: prepared.runOptions,
			...(reuse ? { reuse } : {}),
		},
	};
}

/**
 * Faults as `file:line:col: code: message`, paths relative to the working folder; a fault on a typed chain
 * says only where and what (the nodes a chain became have no paths the person wrote).
 */
export function faultLines(faults: readonly Fault[], cwd: string): string[] {
	return faults.map((f) =>
		f.file === CHAIN_FILE
			? `${f.file}:${f.line}:${f.column}: ${f.code}: ${faultText(f)}`
			: formatFault(f, relativeTo(cwd, f.file)),
	);
}

/**
 * Reads a dry run's script and checks its keys against the addresses it may play (a flow's agent nodes, or
 * the one agent `/step <agent>` runs), as lines for the person when it cannot be played.
 */
export function readScriptFile(
	file: string,
	addresses: readonly string[],
	cwd: string,
): { ok: true; value: Script } | { ok: false; lines: string[] } {
	const read = readScriptAt(file, addresses);
	if (read.ok) return { ok: true, value: read.value };
	if (read.unreadable)
		return { ok: false, lines: [`cannot read the script ${relativeTo(cwd, file)}; nothing was run.`] };
	return { ok: false, lines: [...faultLines(read.faults, cwd), "the script does not check; nothing was run."] };
}
