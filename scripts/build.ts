/**
 * The pack-time build (`npm pack` runs it as `prepack`): the TypeScript sources bundled by rolldown into
 * `dist/`, one entry per door (the CLI, the pi extension, the library), each lazily loaded part its own
 * chunk; and the library's `.d.ts` by tsc. pi's own packages (peer dependencies) and the `dependencies`
 * stay imports, resolved by pi's loader or by npm: the dependencies ship inside the tarball
 * (`bundleDependencies`), so `pi install` and `npm i` of it need no registry; a `devDependency` the code
 * imports is bundled. Why: docs/decisions.md, "How the package ships".
 *
 * `--out <dir>` builds into another folder and `--no-types` skips the declarations: the tests run the CLI
 * as the tarball ships it from such a build (test/helpers/built-cli.ts), which needs no `.d.ts`.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as ohm from "ohm-js";
import { build } from "rolldown";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
	peerDependencies?: Record<string, string>;
	dependencies?: Record<string, string>;
};
const external = [...Object.keys(manifest.peerDependencies ?? {}), ...Object.keys(manifest.dependencies ?? {})];
const args = process.argv.slice(2);
const outAt = args.indexOf("--out");
const out = outAt >= 0 && args[outAt + 1] ? resolve(args[outAt + 1]) : join(root, "dist");
const types = !args.includes("--no-types");
const isExternal = (id: string) =>
	id.startsWith("node:") || external.some((name) => id === name || id.startsWith(`${name}/`));

rmSync(out, { recursive: true, force: true });
// The extension is built on its own: pi loads it on every start through jiti, file by file, so what it
// registers with sits in one file, and only the code behind a command or the tool is split off. The CLI
// is built on its own too, as its imports of pi go to pi's bundle (piBundlePlugin below) and the
// library's must stay the package's entry.
const PI = "@earendil-works/pi-coding-agent";
const builds: Record<string, string>[] = [
	{ cli: "src/cli/main.ts" },
	{ index: "src/index.ts", "provider-server": "src/provider/index.ts" },
	{ extension: "src/extension/index.ts" },
];
for (const input of builds) {
	await build({
		cwd: root,
		input,
		platform: "node",
		// The CLI's imports of pi's package are the plugin's to resolve, not external.
		external: "cli" in input ? (id: string) => id !== PI && isExternal(id) : isExternal,
		plugins: "cli" in input ? [await piBundlePlugin()] : [],
		// The CLI's entry checks `import.meta.main`; keep each entry's own module as the entry chunk.
		preserveEntrySignatures: "exports-only",
		// CommonJS dependencies read `__filename`/`__dirname`, which ESM lacks.
		transform: {
			inject: {
				__filename: [join(root, "src/package/cjs-globals.ts"), "__filename"],
				__dirname: [join(root, "src/package/cjs-globals.ts"), "__dirname"],
			},
		},
		output: {
			dir: out,
			format: "esm",
			entryFileNames: "[name].js",
			chunkFileNames: `chunks/${Object.keys(input)[0]}/[name]-[hash].js`,
			minify: false,
		},
	});
}

// The grammars as ohm recipes, so the built package skips parsing grammar text (src/grammar/compile.ts).
mkdirSync(join(out, "grammar"), { recursive: true });
for (const file of readdirSync(join(root, "grammar")).filter((f) => f.endsWith(".ohm"))) {
	writeFileSync(
		join(out, "grammar", `${file}.json`),
		recipeOf(ohm.grammar(readFileSync(join(root, "grammar", file), "utf8"))),
	);
}

// The web view's page code (`pi-flows serve`), shipped as written: no bundler touches it.
mkdirSync(join(out, "serve"), { recursive: true });
for (const file of readdirSync(join(root, "src", "serve", "assets")))
	copyFileSync(join(root, "src", "serve", "assets", file), join(out, "serve", file));

/**
 * The CLI's imports of pi's package go to src/pi/bundled.ts, which loads pi's own bundle (a start 1.3 s of
 * CPU cheaper; that file says when it falls back). The names are the package's own, read from it here, so
 * a name the sources import that pi lacks still fails the build.
 */
async function piBundlePlugin() {
	const names = Object.keys(await import(PI)).filter((name) => /^[A-Za-z_$][\w$]*$/.test(name));
	const loader = join(root, "src/pi/bundled.ts");
	return {
		name: "pi-bundle",
		resolveId: (id: string) => (id === PI ? "\0pi-bundle" : null),
		load: (id: string) =>
			id === "\0pi-bundle"
				? `import { loadPi } from ${JSON.stringify(loader)};\nconst pi = await loadPi(${JSON.stringify(names)});\nexport const { ${names.join(", ")} } = pi;\n`
				: null,
	};
}

/** ohm's serialised grammar (`toRecipe` exists on every grammar but not in ohm's type declarations). */
function recipeOf(grammar: ohm.Grammar): string {
	return (grammar as unknown as { toRecipe(): string }).toRecipe();
}

if (types)
	execFileSync(
		process.execPath,
		[join(root, "node_modules/typescript/bin/tsc"), "-p", join(root, "tsconfig.build.json")],
		{ stdio: "inherit" },
	);
