/**
 * write-file-atomic (temp file, fsync, rename), loaded on the first write rather than when this module
 * loads: pi loads the extension's entry at every start, the handoff store there reaches this module, and a
 * pi start that writes nothing should not load the library (docs/performance.md, "Start-up"). It is a
 * CommonJS package shipped inside the tarball (`bundleDependencies`), so a synchronous `require` finds it
 * from the bundle in `dist/` and from the sources alike.
 */
import { createRequire } from "node:module";

interface WriteFileAtomic {
	(path: string, data: string, options?: { encoding?: string; fsync?: boolean; mode?: number }): Promise<void>;
	sync(path: string, data: string, options?: { encoding?: string; fsync?: boolean; mode?: number }): void;
}

const load = createRequire(import.meta.url);
let library: WriteFileAtomic | undefined;
const atomic = (): WriteFileAtomic => {
	library ??= load("write-file-atomic") as WriteFileAtomic;
	return library;
};

/** write-file-atomic's function (async) with its `sync` variant. */
export const writeFileAtomic: WriteFileAtomic = Object.assign(
	(path: string, data: string, options?: { encoding?: string; fsync?: boolean }) => atomic()(path, data, options),
	{
		sync: (path: string, data: string, options?: { encoding?: string; fsync?: boolean }) =>
			atomic().sync(path, data, options),
	},
);
