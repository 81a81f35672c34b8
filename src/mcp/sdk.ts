/**
 * The one door to the MCP TypeScript SDK (`@modelcontextprotocol/server` 2.x, bundled at pack time): the
 * rest of `src/mcp` imports the SDK only here, so a change of SDK line is one file's business. The SDK is
 * loaded only by `pi-flows mcp`; no other command reaches this folder.
 */
export {
	type CallToolResult,
	CLIENT_CAPABILITIES_META_KEY,
	createMcpHandler,
	createRequestStateCodec,
	type ElicitRequestFormParams,
	fromJsonSchema,
	inputRequired,
	type InputRequiredResult,
	inputResponse,
	type InputResponseView,
	isInputRequiredResult,
	isLegacyRequest,
	McpServer,
	ProtocolError,
	ProtocolErrorCode,
	type ServerContext,
	TRACEPARENT_META_KEY,
	WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
export { serveStdio } from "@modelcontextprotocol/server/stdio";
