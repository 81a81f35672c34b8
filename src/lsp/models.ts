/**
 * What a model name resolves to, for hover: pi's own resolver on the person's runtime, refreshed as pi
 * refreshes it (src/pi/host.ts), so `model: sonnet` shows the provider this person has a key for, the one a
 * run would take. pi loads once the editor has initialized the server, beside the first documents' checks.
 *
 *   model: sonnet   →  "sonnet → anthropic/claude-sonnet-5-5"   (with only an Anthropic key)
 */
import { agentDir } from "../agents/index.ts";

/** A written model name and what pi makes of it: `provider/id`, or why it cannot resolve it. */
export type ModelNames = (ref: string) => { ok: true; ref: string } | { ok: false; error: string };

/** Opens pi's resolver for `cwd`, reading the person's agent dir (`PI_CODING_AGENT_DIR` in `env`). */
export async function openModelNames(cwd: string, env: NodeJS.ProcessEnv): Promise<ModelNames> {
	const { openHost } = await import("../pi/index.ts");
	const host = await openHost({ cwd, agentDir: agentDir(env) });
	return (ref) => {
		const r = host.resolveModel(ref);
		return r.ok ? { ok: true, ref: r.value.ref } : { ok: false, error: r.error };
	};
}
