/**
 * pi gives an installed extension its own copies of its packages through its loader, and only some entry
 * points of them (`VIRTUAL_MODULES` for bundled pi, the same names as the alias map for unbundled pi). A
 * source file that imports any other entry point of a host package works in this repository, where
 * node_modules has everything, and crashes the extension for everyone who installs it. This test reads pi's
 * list from pi itself and fails on any import outside it, and on any host import outside src/pi and
 * src/extension (design principle 3).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { repo } from "../helpers/packed.ts";

/** The specifiers pi provides to extensions (docs/decisions.md, "What pi provides to an extension"). */
const PROVIDED = [
	"@earendil-works/pi-agent-core",
	"@earendil-works/pi-ai",
	"@earendil-works/pi-ai/compat",
	"@earendil-works/pi-ai/models",
	"@earendil-works/pi-ai/oauth",
	"@earendil-works/pi-ai/providers/all",
	"@earendil-works/pi-coding-agent",
	"@earendil-works/pi-tui",
	"typebox",
	"typebox/compile",
	"typebox/value",
];
/** Packages whose every entry point comes from pi: importing any path of them is importing from the host. */
const HOST = /^(@earendil-works\/pi-[a-z-]+|@mariozechner\/pi-[a-z-]+|typebox|@sinclair\/typebox)(\/|$)/;

const virtualModules = readFileSync(
	join(repo, "node_modules/@earendil-works/pi-coding-agent/dist/core/extensions/virtual-modules.js"),
	"utf8",
);
const loader = readFileSync(
	join(repo, "node_modules/@earendil-works/pi-coding-agent/dist/core/extensions/loader.js"),
	"utf8",
);

/** The keys of an object literal in pi's source, after `marker`. */
function keysAfter(source: string, marker: string): string[] {
	const start = source.indexOf(marker);
	const body = source.slice(start, source.indexOf("};", start));
	return [...body.matchAll(/^\s*(?:"([^"]+)"|([A-Za-z_$][\w$]*)):/gm)].map((m) => m[1] ?? m[2]);
}

function sources(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
		e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
	);
}

/** Every module specifier a file imports or re-exports, type-only ones included (they must resolve too). */
function specifiers(text: string): string[] {
	const found = [...text.matchAll(/\b(?:from|import)\s*\(?\s*["']([^"']+)["']/g)].map((m) => m[1]);
	return [...new Set(found)];
}

describe("host packages in src/", () => {
	it("our list is exactly the @earendil-works and typebox entries of pi's loader (bundled and unbundled alike)", () => {
		const ours = (keys: string[]) =>
			keys.filter((k) => k.startsWith("@earendil-works/") || k.startsWith("typebox")).sort();
		expect(ours(keysAfter(virtualModules, "export const VIRTUAL_MODULES"))).toEqual([...PROVIDED].sort());
		expect(ours(keysAfter(loader, "_aliases = {"))).toEqual([...PROVIDED].sort());
	});

	it("every host import in src/ is one pi provides, and only src/pi and src/extension import host packages", () => {
		const wrong: string[] = [];
		for (const file of sources(join(repo, "src"))) {
			const where = relative(repo, file);
			for (const spec of specifiers(readFileSync(file, "utf8")).filter((s) => HOST.test(s))) {
				if (!PROVIDED.includes(spec)) wrong.push(`${where}: ${spec} is not provided by pi's extension loader`);
				else if (!/^src\/(pi|extension)\//.test(where))
					wrong.push(`${where}: ${spec} imported outside src/pi and src/extension`);
			}
		}
		expect(wrong).toEqual([]);
	});

	it("catches an import pi does not provide (the check itself can fail)", () => {
		const bad =
			'import { getSystemMessageText } from "@earendil-works/pi-ai/utils/text";\nimport type { X } from "typebox/value";\n';
		const flagged = specifiers(bad).filter((s) => HOST.test(s) && !PROVIDED.includes(s));
		expect(flagged).toEqual(["@earendil-works/pi-ai/utils/text"]);
	});
});
