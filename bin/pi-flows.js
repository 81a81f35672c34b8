#!/usr/bin/env node
// The `pi-flows` command. Installed, it runs the JavaScript built when the package was packed (dist/);
// in a checkout without a build, Node >= 22.19 runs the TypeScript sources directly.
import { existsSync } from "node:fs";

const built = new URL("../dist/cli.js", import.meta.url);
const cli = await import(existsSync(built) ? built.href : new URL("../src/cli/main.ts", import.meta.url).href);
process.exitCode = await cli.main(process.argv.slice(2), cli.processIo());
