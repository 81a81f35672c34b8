/**
 * Every span name and attribute key a trace of pi-flows uses, in one place. The `gen_ai.*` names follow
 * the OpenTelemetry GenAI semantic conventions at the commit docs/decisions.md pins ("Traces follow the
 * GenAI conventions at a pinned commit"); `error.*`, `exception.*` and `server.*` are the stable general
 * conventions; what pi-flows adds is under `pi_flows.*`.
 */

/** The instrumentation scope every span is created under. */
export const SCOPE = "pi-flows";

/** `gen_ai.operation.name` values (conventions: well-known values). */
export const OP = {
	workflow: "invoke_workflow",
	agent: "invoke_agent",
	chat: "chat",
	tool: "execute_tool",
} as const;

/** The conventions' attribute keys we set. */
export const GEN_AI = {
	operation: "gen_ai.operation.name",
	provider: "gen_ai.provider.name",
	workflowName: "gen_ai.workflow.name",
	agentName: "gen_ai.agent.name",
	agentId: "gen_ai.agent.id",
	requestModel: "gen_ai.request.model",
	responseModel: "gen_ai.response.model",
	responseId: "gen_ai.response.id",
	finishReasons: "gen_ai.response.finish_reasons",
	inputTokens: "gen_ai.usage.input_tokens",
	outputTokens: "gen_ai.usage.output_tokens",
	cacheReadTokens: "gen_ai.usage.cache_read.input_tokens",
	cacheCreationTokens: "gen_ai.usage.cache_creation.input_tokens",
	toolName: "gen_ai.tool.name",
	toolCallId: "gen_ai.tool.call.id",
	toolType: "gen_ai.tool.type",
	toolArguments: "gen_ai.tool.call.arguments",
	toolResult: "gen_ai.tool.call.result",
	inputMessages: "gen_ai.input.messages",
	outputMessages: "gen_ai.output.messages",
	systemInstructions: "gen_ai.system_instructions",
} as const;

/** General conventions (stable). */
export const GENERAL = {
	errorType: "error.type",
	exceptionType: "exception.type",
	exceptionMessage: "exception.message",
	serverAddress: "server.address",
	serverPort: "server.port",
	sessionId: "session.id",
} as const;

/** What pi-flows adds. */
export const PF = {
	flow: "pi_flows.flow",
	runId: "pi_flows.run.id",
	life: "pi_flows.run.life",
	backend: "pi_flows.run.backend",
	path: "pi_flows.visit.path",
	node: "pi_flows.node",
	kind: "pi_flows.kind",
	mapItem: "pi_flows.map.item",
	loopRound: "pi_flows.loop.round",
	replayed: "pi_flows.visit.replayed",
	reused: "pi_flows.visit.reused",
	reusedFrom: "pi_flows.visit.reused_from",
	inDoubt: "pi_flows.visit.in_doubt",
	elsewhere: "pi_flows.visit.elsewhere",
	failure: "pi_flows.failure.kind",
	failedAt: "pi_flows.failure.at",
	boundTurns: "pi_flows.bound.turns",
	boundMs: "pi_flows.bound.ms",
	boundWaits: "pi_flows.bound.waits",
	budgetTokens: "pi_flows.budget.tokens",
	budgetCost: "pi_flows.budget.cost",
	budgetTurns: "pi_flows.budget.turns",
	spentTokens: "pi_flows.budget.spent.tokens",
	spentCost: "pi_flows.budget.spent.cost",
	spentTurns: "pi_flows.budget.spent.turns",
	cost: "pi_flows.usage.cost",
	requests: "pi_flows.usage.requests",
	toolCalls: "pi_flows.usage.tool_calls",
	retries: "pi_flows.usage.retries",
	retryWaitMs: "pi_flows.usage.retry_wait_ms",
	piProvider: "pi_flows.provider",
	askAnswer: "pi_flows.ask.answer",
	askWaitMs: "pi_flows.ask.wait_ms",
	toolMs: "pi_flows.tool.ms",
	subagent: "pi_flows.subagent",
	linkLife: "pi_flows.link.life",
	retryAttempt: "pi_flows.retry.attempt",
	retryReason: "pi_flows.retry.reason",
	retryMessage: "pi_flows.retry.message",
	retryDelayMs: "pi_flows.retry.delay_ms",
	retryAfterMs: "pi_flows.retry.retry_after_ms",
	turn: "pi_flows.turn",
	turns: "pi_flows.visit.turns",
	turnOk: "pi_flows.turn.ok",
	turnReason: "pi_flows.turn.reason",
	budgetSpent: "pi_flows.budget.spent",
	budgetReason: "pi_flows.budget.reason",
	budgetModel: "pi_flows.budget.model",
} as const;

/** Span event names pi-flows adds (the conventions define none for these facts). */
export const EVENTS = {
	retry: "pi_flows.request.retry",
	turnStart: "pi_flows.turn.start",
	turnEnd: "pi_flows.turn.end",
	turnRefused: "pi_flows.turn.refused",
	budgetWarning: "pi_flows.budget.warning",
	budgetExhausted: "pi_flows.budget.exhausted",
	budgetUnpriced: "pi_flows.budget.unpriced",
	exception: "exception",
} as const;
