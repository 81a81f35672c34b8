/**
 * The package as users get it: `npm pack` of this checkout (which builds dist/ in `prepack`), then installed
 * into temp folders the way pi and npm install it. Nothing here reads the repository's own sources at run
 * time; the repository lends only pi (the host) and Node 22.
 */
import { underFolderLock } from "./folder-lock.ts";
import { execFileSync, spawnSync } from "node:child_process";
import {
	copyFileSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	readdirSync,
	rmSync,
	statSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
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
 * What the tarball is made of, as one string: every packed file's path, size and modification time, so a
 * tarball packed from it is reused only while none of them changed (an edit between two runs of a watch
 * session packs again).
 */
function packedInputs(): string {
	const roots = ["package.json", "bin", "src", "agents", "flows", "grammar", "docs", "README.md", "scripts"];
	const lines: string[] = [];
	for (const root of roots) {
		const path = join(repo, root);
		const top = statSync(path, { throwIfNoEntry: false });
		if (!top) continue;
		const names = top.isDirectory()
			? readdirSync(path, { recursive: true, encoding: "utf8" }).map((n) => join(root, n))
			: [root];
		for (const name of names) {
			const s = statSync(join(repo, name), { throwIfNoEntry: false });
			if (s?.isFile()) lines.push(`${name} ${s.size} ${s.mtimeMs}`);
		}
	}
	return lines.sort().join("\n");
}

/**
 * The folder where one `vitest run` keeps the tarball it packed, made by test/helpers/global-setup.ts: the
 * install tests share one pack (the build takes most of a minute on two cores) instead of one each.
 */
export const SHARED_PACK_ENV = "PI_FLOWS_TEST_PACK_DIR";

/**
 * Packs this checkout into `into` (running `prepack`, the build, and `postpack`, which removes it) and
 * returns the tarball's path. Test files run in parallel and every pack rebuilds the same dist/, so packs
 * take turns under a lock folder (mkdir is atomic); a lock older than ten minutes is a crashed packer's.
 * Inside a `vitest run` the first pack is kept in the run's shared folder and later packs copy it, as long
 * as the packed files are the ones it was made from.
 */
export function pack(into: string): string {
	mkdirSync(into, { recursive: true });
	const shared = process.env[SHARED_PACK_ENV];
	if (shared) return packShared(shared, into);
	return packNow(into);
}

/** {@link pack} through the run's shared folder: one build per run, copied to each caller's `into`. */
function packShared(shared: string, into: string): string {
	return underPackLock(() => {
		const inputs = packedInputs();
		const made = join(shared, "inputs.txt");
		const kept = readdirSync(shared).find((f) => f.endsWith(".tgz"));
		if (!kept || !existsSync(made) || readFileSync(made, "utf8") !== inputs) {
			for (const f of readdirSync(shared)) rmSync(join(shared, f), { force: true });
			packInto(shared);
			writeFileSync(made, inputs);
		}
		const tarball = readdirSync(shared).find((f) => f.endsWith(".tgz")) as string;
		copyFileSync(join(shared, tarball), join(into, tarball));
		return join(into, tarball);
	});
}

/** {@link pack} with no shared folder: a fresh build into `into`. */
function packNow(into: string): string {
	underPackLock(() => packInto(into));
	const [tarball] = readdirSync(into).filter((f) => f.endsWith(".tgz"));
	if (!tarball) throw new Error(`npm pack left no tarball in ${into}`);
	return join(into, tarball);
}

/** `npm pack` of this checkout into `into`. */
function packInto(into: string): void {
	execFileSync("npm", ["pack", "--pack-destination", into, "--silent"], {
		cwd: repo,
		env: cleanEnv(),
		stdio: ["ignore", "ignore", "pipe"],
	});
}

/** Runs `work` holding the pack lock, which every packer of this checkout takes in turn. */
function underPackLock<T>(work: () => T): T {
	return underFolderLock(join(repo, "node_modules/.cache/pi-flows-pack.lock"), 600_000, work);
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
