/**
 * The package as users get it: `npm pack` of this checkout (which builds dist/ in `prepack`), then installed
 * into temp folders the way pi and npm install it. Nothing here reads the repository's own sources at run
 * time; the repository lends only pi (the host) and Node 22.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** The Node 22 the package brings (pi-flows needs >= 22.19). */
export const node = join(repo, "node_modules/.bin/node");
/** pi's own CLI, as its package.json names it. */
export const piCli = join(repo, "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js");
/** pi's packages, which an installed pi-flows gets from its host (peer dependencies). */
export const HOST_PACKAGES = [
	"@earendil-works/pi-ai",
	"@earendil-works/pi-agent-core",
	"@earendil-works/pi-coding-agent",
	"@earendil-works/pi-tui",
	"typebox",
];

/** The environment of a child process: offline, no version check, nothing of the caller's pi-flows settings. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
	const kept = Object.entries(process.env).filter(
		([k]) => !k.startsWith("PI_FLOWS_") && !k.startsWith("HANDOFF_") && !k.startsWith("npm_"),
	);
	return { ...Object.fromEntries(kept), PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1", ...extra };
}

/** A temp folder for one test file; `cleanup` removes it. */
export function scratch(prefix: string): { dir: string; cleanup(): void } {
	const dir = mkdtempSync(join(tmpdir(), `pi-flows-${prefix}-`));
	return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Packs this checkout into `into` (running `prepack`, the build, and `postpack`, which removes it) and
 * returns the tarball's path. Test files run in parallel and every pack rebuilds the same dist/, so packs
 * take turns under a lock folder (mkdir is atomic); a lock older than ten minutes is a crashed packer's.
 */
export function pack(into: string): string {
	mkdirSync(into, { recursive: true });
	const lock = join(repo, "node_modules/.cache/pi-flows-pack.lock");
	mkdirSync(dirname(lock), { recursive: true });
	for (;;) {
		try {
			mkdirSync(lock);
			break;
		} catch {
			const held = statSync(lock, { throwIfNoEntry: false });
			if (held && Date.now() - held.mtimeMs > 600_000) rmSync(lock, { recursive: true, force: true });
			Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
		}
	}
	try {
		execFileSync("npm", ["pack", "--pack-destination", into, "--silent"], {
			cwd: repo,
			env: cleanEnv(),
			stdio: ["ignore", "ignore", "pipe"],
		});
	} finally {
		rmSync(lock, { recursive: true, force: true });
	}
	const [tarball] = readdirSync(into).filter((f) => f.endsWith(".tgz"));
	if (!tarball) throw new Error(`npm pack left no tarball in ${into}`);
	return join(into, tarball);
}

/** The files a tarball holds, relative to its `package/` folder. */
export function tarballFiles(tarball: string): string[] {
	return execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" })
		.split("\n")
		.filter(Boolean)
		.map((f) => f.replace(/^package\//, ""));
}

/**
 * `npm install <tarball>` into an empty project, as a library user would, offline: the tarball carries its
 * dependencies bundled, and pi's packages (peers, `--legacy-peer-deps` as pi itself installs) are linked
 * from this checkout, standing for the pi the user has.
 */
export function installForLibrary(tarball: string, project: string): void {
	mkdirSync(project, { recursive: true });
	writeFileSync(
		join(project, "package.json"),
		`${JSON.stringify({ name: "uses-pi-flows", private: true, type: "module" }, null, 2)}\n`,
	);
	const out = spawnSync("npm", ["install", tarball, "--offline", "--legacy-peer-deps", "--no-audit", "--no-fund"], {
		cwd: project,
		env: cleanEnv(),
		encoding: "utf8",
	});
	if (out.status !== 0) throw new Error(`npm install of the tarball failed:\n${out.stderr}`);
	for (const name of HOST_PACKAGES) {
		const link = join(project, "node_modules", name);
		mkdirSync(dirname(link), { recursive: true });
		symlinkSync(join(repo, "node_modules", name), link, "dir");
	}
}
