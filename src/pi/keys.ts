/**
 * The keys pi resolves for a run's models, handed to the one redaction (src/secrets) before the first
 * request: a provider that echoes the key in an error body (`Incorrect API key provided: sk-…`) then
 * finds it masked in every record. pi caches what a `!command` key printed, so asking again runs nothing.
 */
import type { ModelRuntime } from "@earendil-works/pi-coding-agent";
import type { Api, Model } from "@earendil-works/pi-ai";
import { learnAuth } from "../secrets/index.ts";
import { SCRIPTED_PROVIDER } from "./scripted/index.ts";

/** Learns the auth of `model`'s provider once per `seen` set; a provider pi cannot authenticate teaches nothing. */
export async function learnKeyOf(runtime: ModelRuntime, model: Model<Api>, seen: Set<string>): Promise<void> {
	// The scripted model has no wire and no key; its placeholder would mask the word "scripted".
	if (model.provider === SCRIPTED_PROVIDER || seen.has(model.provider)) return;
	seen.add(model.provider);
	try {
		const auth = await runtime.getAuth(model);
		if (auth) learnAuth({ ...auth.auth, ...(auth.env ? { env: auth.env } : {}) });
	} catch {
		// The request itself reports why it has no credentials; there is nothing to mask yet.
	}
}
