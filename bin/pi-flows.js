#!/usr/bin/env node
// The `pi-flows` command. Node >= 22.19 runs the TypeScript sources directly; inside node_modules Node
// refuses to strip types, so there the sources are loaded through jiti (which pi itself depends on).
import { fileURLToPath } from "node:url";

const entry = new URL("../src/cli/main.ts", import.meta.url);
let cli;
try {
	cli = await import(entry.href);
} catch (error) {
	if (error?.code !== "ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING") throw error;
	const { createJiti } = await import("jiti");
	cli = await createJiti(import.meta.url).import(fileURLToPath(entry));
}
process.exitCode = await cli.main(process.argv.slice(2), cli.processIo());
