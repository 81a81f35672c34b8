#!/usr/bin/env node
// The `pi-flows` command. Installed, it runs the JavaScript built when the package was packed (dist/; the
// tarball ships no src/). In a checkout, Node >= 22.19 runs the TypeScript sources directly, so a dist/ left
// by a build never shadows the code being edited.
import { existsSync } from "node:fs";
import * as nodeModule from "node:module";

const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
	process.stderr.write(`pi-flows needs Node >= 22.19 (as pi 1.6 does); this is Node ${process.versions.node}.\n`);
	process.exit(1);
}

// A database URL given on the command line (`--database postgres://user:password@…`) would stay readable
// by every user of the machine in `ps` for a worker's whole life: the command line the system shows is
// rewritten first thing, with every URL's password masked (the process keeps its own copy in memory).
const shown = process.argv.map((a) => a.replace(/\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*):[^\s@]*@/gi, "$1:***@"));
if (shown.some((a, i) => a !== process.argv[i])) process.title = shown.join(" ");

// As pi's own command does: V8 keeps the code it compiles in a cache folder (the system's temp folder
// unless NODE_COMPILE_CACHE names another; NODE_DISABLE_COMPILE_CACHE turns it off), and the next start
// reads it instead of compiling again, about a third of a start's CPU.
nodeModule.enableCompileCache?.();

const sources = new URL("../src/cli/main.ts", import.meta.url);
const cli = await import(existsSync(sources) ? sources.href : new URL("../dist/cli.js", import.meta.url).href);
process.exitCode = await cli.main(process.argv.slice(2), cli.processIo());
