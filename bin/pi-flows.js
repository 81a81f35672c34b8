#!/usr/bin/env node
// The `pi-flows` command. Installed, it runs the JavaScript built when the package was packed (dist/; the
// tarball ships no src/). In a checkout, Node >= 22.19 runs the TypeScript sources directly, so a dist/ left
// by a build never shadows the code being edited.
import { existsSync } from "node:fs";

const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
	process.stderr.write(`pi-flows needs Node >= 22.19 (as pi 1.6 does); this is Node ${process.versions.node}.\n`);
	process.exit(1);
}

const sources = new URL("../src/cli/main.ts", import.meta.url);
const cli = await import(existsSync(sources) ? sources.href : new URL("../dist/cli.js", import.meta.url).href);
process.exitCode = await cli.main(process.argv.slice(2), cli.processIo());
