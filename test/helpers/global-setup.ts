/**
 * Once per `vitest run`, before any test file: a temp folder where the install tests keep the one tarball
 * they share (test/helpers/packed.ts packs into it on first use, so a run without install tests never
 * builds). Handed to the workers through the environment, which they inherit; removed when the run ends.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SHARED_PACK_ENV } from "./packed.ts";

/** Makes the run's shared pack folder; the function returned removes it. */
export default function setup(): () => void {
	const dir = mkdtempSync(join(tmpdir(), "pi-flows-shared-pack-"));
	process.env[SHARED_PACK_ENV] = dir;
	return () => rmSync(dir, { recursive: true, force: true });
}
