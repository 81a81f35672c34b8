/**
 * A scripted model provider at the wire (OpenAI chat-completions and Anthropic messages over HTTP on
 * 127.0.0.1), to run flows through pi's real provider code with the faults real providers have. The
 * package exports it as `pi-flows/provider-server`; `pi-flows provider` serves a YAML script.
 */
export { type DataScript, readProviderScript, type ScriptRule, scriptResponder } from "./script.ts";
export { costOf, type ProviderServer, type ProviderServerOptions, startProviderServer } from "./server.ts";
export type {
	Answer,
	Fault,
	FaultName,
	LedgerEntry,
	Reply,
	Responder,
	Tokens,
	WireRequest,
	WireToolCall,
} from "./types.ts";
export { tokensOf } from "./wire.ts";
