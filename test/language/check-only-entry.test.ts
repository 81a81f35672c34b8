/**
 * A static judgement loads neither the evaluator nor pi: `src/language/index.ts`, the language server and
 * `pi-flows check` are each imported in a fresh Node with a loader hook that records every module URL
 * resolved, and none may lie under the evaluator, pi's wrapper, the combinators or a pi package. The full
 * door `src/engine/index.ts` does reach the evaluator, so the hook is seen to catch what it must.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/agents/index.ts";

const dir = mkdtempSync(join(tmpdir(), "pi-flows-loaded-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HOOK = `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
	const r = await next(specifier, context);
	appendFileSync(process.env.PI_FLOWS_LOADED, r.url + "\\n");
	return r;
}
`;
writeFileSync(join(dir, "hook.mjs"), HOOK);
writeFileSync(
	join(dir, "register.mjs"),
	`import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(join(dir, "hook.mjs")).href)});\n`,
);

/** Every module URL a fresh Node resolves while importing `entry` (relative to the package root). */
function loaded(entry: string): string[] {
	const log = join(dir, `${entry.replace(/[/.]/g, "_")}.log`);
	writeFileSync(log, "");
	const url = pathToFileURL(join(PACKAGE_ROOT, entry)).href;
	execFileSync(
		process.execPath,
		["--import", join(dir, "register.mjs"), "-e", `await import(${JSON.stringify(url)})`],
		{
			cwd: PACKAGE_ROOT,
			env: { ...process.env, PI_FLOWS_LOADED: log },
			stdio: ["ignore", "ignore", "inherit"],
		},
	);
	return [...new Set(readFileSync(log, "utf8").split("\n").filter(Boolean))];
}

const SRC = pathToFileURL(join(PACKAGE_ROOT, "src")).href;
/** The evaluator, every kind's run half and the run table, pi's wrapper and the combinators. */
const FORBIDDEN = [/^\/engine\//, /^\/kinds\/(\w+\/)?run\.ts$/, /^\/pi\//, /^\/combinators\//];

/** The modules of `urls` a static judgement must not load. */
function forbidden(urls: readonly string[]): string[] {
	return urls.filter(
		(u) => (u.startsWith(SRC) && FORBIDDEN.some((f) => f.test(u.slice(SRC.length)))) || u.includes("@earendil-works"),
	);
}

const own = (urls: readonly string[]) => urls.filter((u) => u.startsWith(`${SRC}/`));

describe("the check-only entry", () => {
	it("the full door reaches the evaluator, so the hook sees what it must refuse", { timeout: 120_000 }, () => {
		const full = loaded("src/engine/index.ts");
		expect(forbidden(full).some((u) => u.includes("/engine/evaluate.ts"))).toBe(true);
	});

	for (const entry of ["src/language/index.ts", "src/lsp/index.ts", "src/cli/check.ts"]) {
		it(`${entry} loads neither the evaluator, nor pi, nor the combinators`, { timeout: 120_000 }, () => {
			const urls = loaded(entry);
			expect(own(urls).length).toBeGreaterThan(10);
			expect(forbidden(urls)).toEqual([]);
		});
	}
});
