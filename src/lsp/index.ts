/**
 * The flow language server's only door: `pi-flows lsp` starts it on stdio; the pieces behind it (the
 * cursor reader, the scopes, completion, hover, definition) stay private so they can change freely.
 */
export { type ServerOptions, startServer } from "./server.ts";
