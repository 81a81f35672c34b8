/**
 * pi's library as the `pi-flows` command loads it. pi's package ships its library twice: `dist/index.js`,
 * the entry its `exports` name, a tree of some 1,700 modules (typebox, pi-ai's providers, undici), and
 * `dist/bundle/index.js`, two dozen chunks exporting the same names, as pi's own CLI loads it; the first
 * costs a start about 1.3 s more CPU. The command owns its whole process, so nothing else in it
 * holds another copy of pi to disagree with; the CLI's build (scripts/build.ts) points its imports of pi's
 * package here. The extension and the library keep the package's own entry: inside pi an extension must use
 * the copy pi hands it, and a program that imports pi-flows imports pi itself. The bundle is taken only if
 * it is there and exports every name the entry does; anything else (another layout in a later pi) loads the
 * entry, slower and the same. Why: docs/decisions.md, "The CLI loads pi's bundle".
 */

/** The package entry's resolved URL, and the bundle beside it in pi's layout. */
export function piEntries(): { entry: string; bundle: string } {
	const entry = import.meta.resolve("@earendil-works/pi-coding-agent");
	return { entry, bundle: new URL("bundle/index.js", entry).href };
}

/** pi's library: the bundle when it exports every one of `names`, else the package's entry. */
export async function loadPi(names: readonly string[]): Promise<Record<string, unknown>> {
	const { entry, bundle } = piEntries();
	try {
		const bundled = (await import(bundle)) as Record<string, unknown>;
		if (names.every((name) => name in bundled)) return bundled;
	} catch {
		// Not there, or not loadable on this Node: the entry serves.
	}
	return (await import(entry)) as Record<string, unknown>;
}
