/**
 * write-file-atomic (temp file, fsync, rename), imported statically so the pack-time bundle carries it:
 * an installed pi-flows then needs no registry to resolve it (docs/decisions.md, "How the package ships").
 */
// @ts-expect-error write-file-atomic ships no types; the two calls we use are typed below.
import writeFileAtomicModule from "write-file-atomic";

interface WriteFileAtomic {
	(path: string, data: string, options?: { encoding?: string; fsync?: boolean; mode?: number }): Promise<void>;
	sync(path: string, data: string, options?: { encoding?: string; fsync?: boolean; mode?: number }): void;
}

/** write-file-atomic's function (async) with its `sync` variant. */
export const writeFileAtomic: WriteFileAtomic = writeFileAtomicModule as WriteFileAtomic;
