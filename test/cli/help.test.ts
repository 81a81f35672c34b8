/**
 * Help everywhere: `pi-flows <command> --help`, `-h` and `pi-flows help <command>` for every command the
 * parser knows, each listing every flag that command's spec accepts (the help is rendered from the same
 * spec, so a flag added later shows up without a second edit), with words for every flag and command.
 */
import { describe, expect, it } from "vitest";
import { COMMAND_DOCS, FLAG_DOCS } from "../../src/cli/help.ts";
import type { Io } from "../../src/cli/io.ts";
import { COMMAND_SPECS, main } from "../../src/cli/main.ts";

function capture() {
	const out: string[] = [];
	const err: string[] = [];
	const io: Io = {
		cwd: process.cwd(),
		env: {},
		agentDir: "/nonexistent",
		stdout: (t) => out.push(t),
		stderr: (t) => err.push(t),
	};
	return { io, out, err };
}

async function help(argv: string[]) {
	const c = capture();
	const code = await main(argv, c.io);
	return { code, stdout: c.out.join("\n"), stderr: c.err.join("\n") };
}

const commands = Object.keys(COMMAND_SPECS);

describe("pi-flows help", () => {
	it("knows a dozen commands", () => {
		expect(commands.length).toBeGreaterThanOrEqual(12);
	});

	it.each(commands)(
		"%s: --help, -h and `help %s` print the same page, naming every flag of its spec",
		async (command) => {
			const a = await help([command, "--help"]);
			const b = await help([command, "-h"]);
			const c = await help(["help", command]);
			expect(a.code).toBe(0);
			expect(a.stderr).toBe("");
			expect(b).toEqual(a);
			expect(c).toEqual(a);
			expect(a.stdout).toMatch(new RegExp(`^usage: pi-flows ${command}\\b`));
			for (const [flag, takesValue] of Object.entries(COMMAND_SPECS[command])) {
				expect(a.stdout, `--${flag}`).toMatch(new RegExp(`\\[--${flag}${takesValue ? " [^\\]]+" : ""}\\]`));
				expect(a.stdout, `--${flag}`).toMatch(new RegExp(`^  --${flag}\\b.*\\S`, "m"));
			}
			// --help wins wherever it stands, even beside arguments that would not parse.
			expect((await help([command, "--no-such-flag", "--help"])).code).toBe(0);
			// The command has code to run: a bad flag is refused as a bad flag of this command, not as an unknown command.
			const bad = await help([command, "--no-such-flag"]);
			expect(bad.code).toBe(2);
			expect(bad.stderr).toMatch(new RegExp(`^pi-flows ${command}: unknown flag --no-such-flag`));
		},
	);

	it("has words for every command and every flag a command takes", () => {
		expect(commands.filter((c) => !COMMAND_DOCS[c])).toEqual([]);
		const flags = new Set(commands.flatMap((c) => Object.keys(COMMAND_SPECS[c])));
		expect([...flags].filter((f) => !FLAG_DOCS[f]?.text)).toEqual([]);
		// A value-taking flag names its value.
		const valued = commands.flatMap((c) =>
			Object.entries(COMMAND_SPECS[c])
				.filter(([, v]) => v)
				.map(([f]) => f),
		);
		expect(valued.filter((f) => !FLAG_DOCS[f]?.value)).toEqual([]);
	});

	it("the overview lists every command with its summary; no command is an error", async () => {
		const all = await help(["--help"]);
		expect(all.code).toBe(0);
		for (const command of commands) expect(all.stdout).toMatch(new RegExp(`^  ${command}\\b`, "m"));
		expect((await help(["help"])).stdout).toBe(all.stdout);
		const none = await help([]);
		expect(none.code).toBe(2);
		expect(none.stderr).toBe(all.stdout);
	});

	it("`help <unknown>` and an unknown flag are refusals (exit 2) that show the way", async () => {
		const unknown = await help(["help", "rn"]);
		expect(unknown.code).toBe(2);
		expect(unknown.stderr).toMatch(/^pi-flows help: unknown command `rn`/);
		const flag = await help(["graph", "--projct", "x.md"]);
		expect(flag.code).toBe(2);
		expect(flag.stderr).toMatch(
			/^pi-flows graph: unknown flag --projct\. Did you mean `--project`\?\nusage: pi-flows graph/,
		);
	});
});
