/**
 * The `pi-flows` command the tests start: this checkout built as the tarball ships it (`dist/` bundled by
 * scripts/build.ts, beside a copy of `bin/`), not the TypeScript sources. Node strips the types of the
 * hundreds of source files a start loads, a second and more of CPU a process; the suite starts the CLI
 * hundreds of times, and a user never runs the sources. The
 * build is kept in `node_modules/.cache/pi-flows-cli/<digest>/`, the digest of every input the build
 * reads, so it is made once after a change and reused by every later run; the tests of the sources' own
 * start (test/cli/help-loads, the demo) still start `src/`. The build folder holds no `package.json`: the
 * built code finds the checkout's own (src/package/root.ts walks up to it), so it reads this checkout's
 * `agents/`, `flows/` and `grammar/` at their paths, and Node takes its files as the modules they are.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { PACKAGE_ROOT } from "../../src/package/index.ts";
import { underFolderLock } from "./folder-lock.ts";

const CACHE = join(PACKAGE_ROOT, "node_modules/.cache/pi-flows-cli");

/** What the build reads: the sources, the grammars, the page assets, the build script and the manifests. */
const INPUTS = ["src", "grammar", "bin", "scripts/build.ts", "package.json", "package-lock.json"];

let built: string | undefined;

/** The path of `bin/pi-flows.js` in the build of the checkout as it is now (built on first use). */
export function cliBin(): string {
	built ??= ensureBuilt();
	return join(built, "bin/pi-flows.js");
}

function ensureBuilt(): string {
	const dir = join(CACHE, digestOfInputs());
	if (existsSync(join(dir, "dist/cli.js"))) return dir;
	return underFolderLock(join(dirname(CACHE), "pi-flows-cli.lock"), 300_000, () => {
		if (existsSync(join(dir, "dist/cli.js"))) return dir;
		const making = `${dir}.making`;
		rmSync(making, { recursive: true, force: true });
		mkdirSync(join(making, "bin"), { recursive: true });
		cpSync(join(PACKAGE_ROOT, "bin"), join(making, "bin"), { recursive: true });
		execFileSync(
			process.execPath,
			[join(PACKAGE_ROOT, "scripts/build.ts"), "--out", join(making, "dist"), "--no-types"],
			{ cwd: PACKAGE_ROOT, stdio: ["ignore", "ignore", "pipe"] },
		);
		// Builds of sources that no longer exist go once they are an hour old: a run started before the
		// sources changed may still be starting its own.
		for (const old of readdirSync(CACHE)) {
			const at = join(CACHE, old);
			const made = statSync(at, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
			if (at !== making && Date.now() - made > 3_600_000) rmSync(at, { recursive: true, force: true });
		}
		renameSync(making, dir);
		return dir;
	});
}

/** A digest of every input file's path and content. */
function digestOfInputs(): string {
	const hash = createHash("sha256");
	const add = (path: string) => {
		const info = statSync(path, { throwIfNoEntry: false });
		if (!info) return;
		if (info.isDirectory()) {
			for (const entry of readdirSync(path).sort()) add(join(path, entry));
			return;
		}
		hash.update(relative(PACKAGE_ROOT, path)).update("\0").update(readFileSync(path)).update("\0");
	};
	for (const input of INPUTS) add(join(PACKAGE_ROOT, input));
	return hash.digest("hex").slice(0, 16);
}
