/**
 * Which of the package's two extension entries loads. `pi.extensions` names both the built bundle
 * (`dist/extension.js`, what the tarball ships) and the sources (`src/extension/index.ts`, what a checkout,
 * a `git:` install and a local path have; pi loads TypeScript through jiti); pi skips a listed file that is
 * absent. A checkout where a build left `dist/` has both, and the sources win there, as they do for the
 * `pi-flows` command (bin/pi-flows.js): the bundle steps aside, so it never shadows the code being edited
 * and nothing registers twice.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** True when `moduleUrl` is the built entry and the sources it was built from sit beside it. */
export function builtEntryShadowed(moduleUrl: string): boolean {
	if (!moduleUrl.endsWith("/dist/extension.js")) return false;
	return existsSync(fileURLToPath(new URL("../src/extension/index.ts", moduleUrl)));
}
