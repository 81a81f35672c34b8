/**
 * Issue 17, point 3: combo's checker verdicts, case by case. The cases are data (test/fixtures/combo-checker/,
 * each file naming the combo commit and test file they come from); every case must get combo's verdict
 * (accepted or refused) and the same fault codes, unless docs/flows.md's "Differences from combo" table has
 * a row for the case, which then states pi-flows' codes and the reason.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadRoster, PACKAGE_ROOT } from "../../../src/agents/index.ts";
import { checkFlowText } from "../../../src/load/index.ts";
import { flowFolder } from "../helpers.ts";

/** A case: the flow file's whole text, or its frontmatter and body as combo's catalogue() joins them. */
interface Case {
	name: string;
	file: string;
	text?: string;
	frontmatter?: string;
	body?: string;
	/** Other flow files of the case's catalogue (callees), by name. */
	flows?: Record<string, string>;
	/** Agent files of the case's project (`.pi/agents/<name>.md`), by name, over the shipped agents. */
	agents?: Record<string, string>;
	/** Other files of the case's project (skills), by path from its root; `home/` is the user's agent dir. */
	files?: Record<string, string>;
	codes: string[];
}

/**
 * The shipped agents with `agents` written in a fresh project's `.pi/agents/` above them, read the way a
 * project's agents are: combo's catalogue cases whose agent file is broken need the file on disk.
 */
function projectRoster(agents: Record<string, string>, files: Record<string, string> = {}) {
	const dir = mkdtempSync(join(tmpdir(), "pi-flows-combo-agents-"));
	mkdirSync(join(dir, ".git"));
	mkdirSync(join(dir, ".pi", "agents"), { recursive: true });
	for (const [name, text] of Object.entries(agents)) writeFileSync(join(dir, ".pi", "agents", `${name}.md`), text);
	for (const [path, text] of Object.entries(files)) {
		mkdirSync(dirname(join(dir, path)), { recursive: true });
		writeFileSync(join(dir, path), text);
	}
	// The user's agent dir is the case's own `home/` (combo's tests point `PI_CODING_AGENT_DIR` there too).
	return loadRoster(dir, { project: true }, { ...process.env, PI_CODING_AGENT_DIR: join(dir, "home") });
}

const dir = join(PACKAGE_ROOT, "test", "fixtures", "combo-checker");
const suites = readdirSync(dir)
	.filter((f) => f.endsWith(".json"))
	.map((f) => ({
		file: f,
		...(JSON.parse(readFileSync(join(dir, f), "utf8")) as { source: { commit: string; file: string }; cases: Case[] }),
	}));

/** The "Differences from combo" table: case name → pi-flows' codes, with a reason in the row. */
function differences(): Map<string, string[]> {
	const doc = readFileSync(join(PACKAGE_ROOT, "docs", "flows.md"), "utf8");
	const table = doc.slice(doc.indexOf("## Differences from combo"));
	const rows = new Map<string, string[]>();
	for (const m of table.matchAll(/^\| ([^|]+?) \| ([^|]*?) \| ([^|]*?) \| ([^|]+?) \|$/gm)) {
		if (m[1] === "Case" || m[1].startsWith("---")) continue;
		rows.set(
			m[1].trim(),
			m[3].trim() === "accepted"
				? []
				: m[3]
						.split(",")
						.map((c) => c.replace(/`/g, "").trim())
						.filter(Boolean),
		);
	}
	return rows;
}

describe("combo's checker cases", () => {
	const differ = differences();
	for (const suite of suites) {
		it(`${suite.file} names the commit it was taken from`, () => {
			expect(suite.source.commit).toMatch(/^[0-9a-f]{40}$/);
		});
		for (const c of suite.cases) {
			it(`${c.name}${c.codes.length ? ` → ${c.codes.join(", ")}` : " → accepted"}`, () => {
				const text = c.text ?? `---\n${c.frontmatter}\n---\n${c.body}`;
				const folder = flowFolder({ ...c.flows, [c.file]: text });
				const judged = c.agents
					? checkFlowText(text, folder.file(c.file), projectRoster(c.agents, c.files), folder.options)
					: folder.judgeOne(c.file);
				const got = judged.faults.map((f) => f.code);
				const documented = differ.get(`${suite.file}: ${c.name}`) ?? differ.get(c.name);
				const want = documented ?? c.codes;
				// Without a documented difference, the verdict (accepted or refused) is combo's.
				if (!documented) expect(got.length === 0, "the same verdict as combo").toBe(c.codes.length === 0);
				expect([...got].sort()).toEqual([...want].sort());
			});
		}
	}
});
