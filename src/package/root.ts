/**
 * Where the package's own files (`agents/`, `flows/`, `grammar/`) are, whatever layout runs: the
 * TypeScript sources (`src/<folder>/x.ts`) or the bundle built at pack time (`dist/x.js`, one chunk per
 * lazily loaded part). A path relative to `import.meta.url` would depend on how deep the running file sits,
 * so the root is found by walking up to our own `package.json`.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The folder holding pi-flows' `package.json`, found from `from` upwards. */
export function findPackageRoot(from: string): string {
	for (let dir = from; ; dir = dirname(dir)) {
		const manifest = join(dir, "package.json");
		if (existsSync(manifest) && isOurs(manifest)) return dir;
		if (dirname(dir) === dir)
			throw new Error(`pi-flows: no package.json of pi-flows above ${from}; the package is incomplete`);
	}
}

function isOurs(manifest: string): boolean {
	try {
		return (JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name === "pi-flows";
	} catch {
		// A package.json we cannot read is not ours; keep walking up.
		return false;
	}
}

/** The package root (where `agents/`, `flows/` and `grammar/` ship). */
export const PACKAGE_ROOT: string = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

/** The text of `grammar/<file>`. */
export function grammarSource(file: string): string {
	return readFileSync(join(PACKAGE_ROOT, "grammar", file), "utf8");
}
