/**
 * Three people, each with credentials for one provider only, as pi counts them configured: an Anthropic
 * key, an OpenRouter key, a Bedrock profile (`AWS_PROFILE`, which pi's Bedrock provider takes as configured
 * without reading it). The keys are not real; nothing here reaches a network.
 */

/** One person's credentials and the provider a name should resolve to for them. */
export interface Person {
	who: string;
	env: Record<string, string>;
	provider: string;
}

export const PERSONS: readonly Person[] = [
	{ who: "an Anthropic key", env: { ANTHROPIC_API_KEY: "sk-ant-test-not-a-key" }, provider: "anthropic" },
	{ who: "an OpenRouter key", env: { OPENROUTER_API_KEY: "sk-or-test-not-a-key" }, provider: "openrouter" },
	{ who: "a Bedrock profile", env: { AWS_PROFILE: "pi-flows-test" }, provider: "amazon-bedrock" },
];

/** Environment variables through which pi may find a credential: none of them may leak into a test. */
export function isCredential(name: string): boolean {
	return /(_API_KEY|_TOKEN|_KEY|_SECRET|_PROFILE)$|^(AWS|AZURE|GOOGLE|GEMINI|VERTEX|ANTHROPIC|OPENAI|OPENROUTER|CLOUDFLARE|COPILOT|GITHUB|GH)_/.test(
		name,
	);
}

/** Removes every credential from this process's environment; the returned function puts them back. */
export function withoutCredentials(): () => void {
	const saved = Object.entries(process.env).filter(([k]) => isCredential(k));
	for (const [k] of saved) delete process.env[k];
	return () => {
		for (const k of Object.keys(process.env)) if (isCredential(k)) delete process.env[k];
		for (const [k, v] of saved) process.env[k] = v;
	};
}

/** A child's environment with only what it needs and one person's credentials. */
export function personEnv(person: Person, base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
	const env = Object.fromEntries(Object.entries(base).filter(([k]) => !isCredential(k)));
	return { ...env, ...person.env };
}
