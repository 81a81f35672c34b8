/**
 * `gen_ai.provider.name` from pi's provider id. The conventions say a well-known value MUST be used when one
 * applies, and a custom value MAY be used otherwise: pi's own id stays for the rest (a `models.json`
 * provider, `scripted`, `openrouter`), and `pi_flows.provider` always keeps pi's id.
 */

const WELL_KNOWN: Readonly<Record<string, string>> = {
	anthropic: "anthropic",
	openai: "openai",
	"openai-codex": "openai",
	"azure-openai-responses": "azure.ai.openai",
	google: "gcp.gemini",
	"google-gemini-cli": "gcp.gemini",
	"google-vertex": "gcp.vertex_ai",
	"amazon-bedrock": "aws.bedrock",
	mistral: "mistral_ai",
	groq: "groq",
	xai: "x_ai",
	deepseek: "deepseek",
	moonshotai: "moonshot_ai",
	perplexity: "perplexity",
	cohere: "cohere",
};

/** The conventions' provider name for pi's provider id. */
export function providerName(piProvider: string): string {
	return WELL_KNOWN[piProvider] ?? piProvider;
}

/** `provider/id` (a resolved model reference) split in two; a reference without a provider keeps it whole as the id. */
export function splitModel(ref: string | undefined): { provider?: string; model?: string } {
	if (!ref) return {};
	const slash = ref.indexOf("/");
	if (slash <= 0) return { model: ref };
	return { provider: ref.slice(0, slash), model: ref.slice(slash + 1) };
}
