/**
 * The `pi-flows` command loads pi's library from pi's own bundle (docs/decisions.md, "The CLI loads pi's
 * bundle"): the chooser takes the bundle only when it exports every name asked for, and the built CLI,
 * started as the tarball ships it, runs a flow without loading the package's unbundled entry at all.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/package/index.ts";
import { loadPi, piEntries } from "../../src/pi/bundled.ts";
import { cliBin } from "../helpers/built-cli.ts";
import { tempProject } from "../helpers/project.ts";

describe("pi's library for the CLI", () => {
	it("is the bundle beside the package's entry when the bundle has every name, the entry otherwise", async () => {
		const { entry, bundle } = piEntries();
		expect(entry).toMatch(/\/pi-coding-agent\/dist\/index\.js$/);
		expect(bundle).toMatch(/\/pi-coding-agent\/dist\/bundle\/index\.js$/);
		const entryModule = await import(entry);
		const bundleModule = await import(bundle);
		// Two copies: the same function name, two functions.
		expect(bundleModule.createAgentSession).not.toBe(entryModule.createAgentSession);
		expect((await loadPi(["createAgentSession", "SessionManager"])).createAgentSession).toBe(
			bundleModule.createAgentSession,
		);
		expect((await loadPi(["createAgentSession", "aNameNoPiExports"])).createAgentSession).toBe(
			entryModule.createAgentSession,
		);
	});

	it("is all the built CLI loads of pi when it runs a flow", () => {
		const project = tempProject();
		try {
			// Every module the process loads, written out as it exits: a hook of Node's own module loader.
			const hook = `data:text/javascript,${encodeURIComponent(
				`import { registerHooks } from "node:module"; import { writeFileSync } from "node:fs";
				const seen = []; registerHooks({ load(url, context, next) { seen.push(url); return next(url, context); } });
				process.on("exit", () => writeFileSync(${JSON.stringify(join(project.cwd, "loaded.json"))}, JSON.stringify(seen)));`,
			)}`;
			const ran = spawnSync(
				join(PACKAGE_ROOT, "node_modules/.bin/node"),
				[cliBin(), "run", "explore", "What is it?", "--script", join(PACKAGE_ROOT, "flows/explore.script.yaml")],
				{ cwd: project.cwd, encoding: "utf8", env: { ...project.env, NODE_OPTIONS: `--import=${hook}` } },
			);
			expect(ran.status, ran.stderr).toBe(0);
			expect(ran.stderr).toMatch(/✓ explore · 5 visit\(s\)/);
			const loaded = JSON.parse(readFileSync(join(project.cwd, "loaded.json"), "utf8")) as string[];
			const pi = loaded.filter((url) => url.includes("/@earendil-works/pi-coding-agent/"));
			expect(pi).toContain(
				pathToFileURL(join(PACKAGE_ROOT, "node_modules/@earendil-works/pi-coding-agent/dist/bundle/index.js")).href,
			);
			expect(pi.filter((url) => !url.includes("/dist/bundle/"))).toEqual([]);
		} finally {
			project.cleanup();
		}
	});
});
