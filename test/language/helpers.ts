/**
 * Flows for the language tests, judged against the shipped agents (scout, planner, reviewer, synthesiser,
 * coder, auditor, interviewer, committer, worker). Imported from the flow stages themselves rather than the
 * package door, so these tests pin read → build → check and nothing of the runtime.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadRoster } from "../../src/agents/index.ts";
import type { Fault } from "../../src/faults/index.ts";
import { checkFlowText, type LoadOptions } from "../../src/load/index.ts";

/** An empty folder: nothing of a project or of `~/.pi` is read, only the package's own agents. */
const nowhere = mkdtempSync(join(tmpdir(), "pi-flows-language-"));

/** The shipped agents only. */
export const shipped = loadRoster(nowhere, { user: false, project: false });

/** A frontmatter with `nodes` and optional extra flow keys, closed by `---`. */
export const head = (nodes: string, extra = "") =>
	`---\nname: t\ndescription: d\ninput: string\n${extra}nodes:\n${nodes}---\n`;

/** Judges `text` as the file `<name>.md`. */
export function judge(text: string, name = "t", options: LoadOptions = {}) {
	return checkFlowText(text, `${name}.md`, shipped, options);
}

/** A fault as `code line:col`, the form every case table states. */
export const at = (f: Fault) => `${f.code} ${f.line}:${f.column}`;

/** The faults of `text` as `code line:col`. */
export function faultsAt(text: string, name = "t", options: LoadOptions = {}): string[] {
	return judge(text, name, options).faults.map(at);
}

/** The source text a fault's range covers: proves the position, not just the line, is the mistake's. */
export function covered(text: string, f: Fault): string {
	return text.slice(f.offset, f.endOffset);
}

/** Flow files written to a fresh folder (name → text), with load options that find them as callees. */
export function flowFolder(files: Record<string, string>): {
	options: LoadOptions;
	file(name: string): string;
	judgeOne(name: string): ReturnType<typeof judge>;
} {
	const dir = mkdtempSync(join(tmpdir(), "pi-flows-calls-"));
	for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, `${name}.md`), text);
	const file = (name: string) => join(dir, `${name}.md`);
	const options: LoadOptions = {
		flows: (name) => (name in files ? { file: file(name) } : undefined),
		flowNames: () => Object.keys(files),
	};
	return { options, file, judgeOne: (name) => checkFlowText(files[name], file(name), shipped, options) };
}
