/**
 * The pi host a run uses inside pi. Subagents run on the session's own model runtime, so a provider an
 * extension registered (a company gateway, a test's scripted model) is there for them too; and where the
 * flow, its agents and `--model` name no model, the session's current model stands in for pi's settings,
 * because inside pi that is the model the person chose. A dry run (`--script`) gets a runtime of its own,
 * so the scripted model never appears in the person's session. `/run --retries` sets the transport retries.
 */
import type { ExtensionContext, ModelRuntime } from "@earendil-works/pi-coding-agent";
import { agentDir } from "../agents/index.ts";
import { openHost, type PiHost, type Script } from "../pi/index.ts";
import type { TransportPolicy } from "../runtime/index.ts";

/** Opens a host for one run from `ctx`; each run opens its own so a dry run's script never leaks into another. */
export async function hostFor(
	ctx: Pick<ExtensionContext, "cwd" | "model" | "modelRegistry">,
	script?: Script,
	transport?: Partial<TransportPolicy>,
): Promise<PiHost> {
	const host = await openHost({
		cwd: ctx.cwd,
		agentDir: agentDir(),
		...(script ? { script } : sessionRuntime(ctx)),
		...(transport ? { transport } : {}),
	});
	const current = sessionModel(ctx);
	if (script || !current) return host;
	return {
		...host,
		resolveModel: (ref) => host.resolveModel(ref ?? current),
		spawn: (request) => host.spawn(request.model || request.agent.model ? request : { ...request, model: current }),
	};
}

/** The session's model as `provider/id`; pi's placeholder (`unknown/unknown`) when none is set is no model. */
export function sessionModel(ctx: Pick<ExtensionContext, "model">): string | undefined {
	const m = ctx.model;
	return m && !(m.provider === "unknown" && m.id === "unknown") ? `${m.provider}/${m.id}` : undefined;
}

/**
 * The session's runtime. pi keeps it on a private field of the registry (see pi-api.md §7), so it is
 * read defensively: without it the host opens its own runtime from the agent dir, which still sees every
 * configured provider, only not those registered by extensions.
 */
function sessionRuntime(ctx: Pick<ExtensionContext, "modelRegistry">): { modelRuntime?: ModelRuntime } {
	const runtime = (ctx.modelRegistry as unknown as { runtime?: unknown } | undefined)?.runtime;
	const usable =
		typeof runtime === "object" && runtime !== null && "registerNativeProvider" in runtime && "getModel" in runtime;
	return usable ? { modelRuntime: runtime as ModelRuntime } : {};
}
