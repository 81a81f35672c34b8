/**
 * The entry `pi.extensions` names: one file that exists wherever pi finds the package. The tarball ships the
 * build (`dist/extension.js`) and no sources; a checkout, a local path and a `git:` clone have the sources
 * (`src/extension/index.ts`) and, after a build, a `dist/` that may be stale. The sources win where they
 * exist, as they do for the `pi-flows` command (bin/pi-flows.js), so a build left in a checkout never
 * shadows the code being edited.
 *
 * This file is TypeScript on purpose: jiti transpiles it, so its dynamic imports go through jiti too and
 * reach pi's own packages by pi's aliases. A `.js` entry in this `"type": "module"` package would be
 * imported natively by jiti, and Node alone cannot resolve pi's packages from an installed pi-flows (they
 * are peer dependencies, which pi supplies and `pi install` does not put beside us).
 */
import { existsSync } from "node:fs";

type Entry = typeof import("./src/extension/index.ts");

const sources = new URL("./src/extension/index.ts", import.meta.url);

/** pi calls this once per session with its extension API; the chosen entry does the registering. */
export default async function piFlows(pi: Parameters<Entry["default"]>[0]): Promise<void> {
	const at = existsSync(sources) ? sources : new URL("./dist/extension.js", import.meta.url);
	const entry = (await import(at.href)) as Entry;
	entry.default(pi);
}
