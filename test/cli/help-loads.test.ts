/**
 * `pi-flows --help` loads the help's words, the flag parser and what every printed line passes through
 * (the redaction), and no command's code: the program is started in a fresh Node with a loader hook that
 * records every module URL resolved. `pi-flows run --help` loads no more than `--help`: a command's code
 * is imported only when the command runs, which `pi-flows schema` shows the hook sees.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/agents/index.ts";

const dir = mkdtempSync(join(tmpdir(), "pi-flows-help-loads-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

writeFileSync(
	join(dir, "hook.mjs"),
	`import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
	const r = await next(specifier, context);
	appendFileSync(process.env.PI_FLOWS_LOADED, r.url + "\\n");
	return r;
}
`,
);
writeFileSync(
	join(dir, "register.mjs"),
	`import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(join(dir, "hook.mjs")).href)});\n`,
);

const SRC = `${pathToFileURL(join(PACKAGE_ROOT, "src")).href}/`;

/** Our modules (under src/, relative) and the packages a fresh `pi-flows <argv>` resolves. */
function loaded(argv: string[]): { own: string[]; packages: string[] } {
	const log = join(dir, `${argv.join("_").replace(/\W/g, "_")}.log`);
	writeFileSync(log, "");
	execFileSync(
		process.execPath,
		["--import", join(dir, "register.mjs"), join(PACKAGE_ROOT, "bin/pi-flows.js"), ...argv],
		{
			cwd: dir,
			env: { ...process.env, PI_FLOWS_LOADED: log },
			stdio: ["ignore", "ignore", "ignore"],
		},
	);
	const urls = [...new Set(readFileSync(log, "utf8").split("\n").filter(Boolean))];
	const packages = new Set(
		urls.flatMap((u) => {
			const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u);
			return m ? [m[1] as string] : [];
		}),
	);
	return {
		own: urls
			.filter((u) => u.startsWith(SRC))
			.map((u) => u.slice(SRC.length))
			.sort(),
		packages: [...packages].sort(),
	};
}

describe("pi-flows --help", () => {
	it("loads the parser, the words and the redaction, as many modules as docs/cli.md says, none of a command's code", {
		timeout: 120_000,
	}, () => {
		const help = loaded(["--help"]);
		// What --help may load: the program, its parser and words, the flag names of the chain, where the
		// agents' folder is, the redaction every printed line passes, and the fault helpers of a did-you-mean.
		const allowed = [
			/^cli\/(main|args|help)\.ts$/,
			/^chain\/cli-flags\.ts$/,
			/^agents\/locations\.ts$/,
			/^secrets\//,
			/^faults\//,
			/^package\//,
		];
		expect(help.own.filter((m) => !allowed.some((a) => a.test(m)))).toEqual([]);
		expect(help.own).toEqual(expect.arrayContaining(["cli/main.ts", "cli/args.ts", "cli/help.ts"]));
		const said = /`--help` loads (\d+) of\s+our modules/.exec(readFileSync(join(PACKAGE_ROOT, "docs/cli.md"), "utf8"));
		expect(help.own.length).toBe(Number(said?.[1]));
		// The did-you-mean of a misspelt flag.
		expect(help.packages).toEqual(["fastest-levenshtein"]);
		expect(loaded(["run", "--help"])).toEqual(help);
	});

	it("a command that runs loads its code, so the hook sees what --help leaves out", { timeout: 120_000 }, () => {
		const schema = loaded(["schema"]);
		expect(schema.own).toContain("cli/schema.ts");
		expect(schema.own.length).toBeGreaterThan(20);
	});
});
