/**
 * `__filename` and `__dirname` for the CommonJS dependencies the pack-time bundle inlines (write-file-atomic
 * hashes `__filename` into its temp names; the language server probes the file system's case with it).
 * ESM has neither, so the build injects these where a bundled module reads them (scripts/build.ts).
 */
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(import.meta.url);

/** This bundle chunk's file, standing in for CommonJS's `__filename`. */
export { here as __filename };
/** This bundle chunk's folder, standing in for CommonJS's `__dirname`. */
export const __dirname: string = dirname(here);
