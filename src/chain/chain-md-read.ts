/**
 * A pi-subagents `.chain.md` file read as pi-subagents' own parser reads it (nicobailon/pi-subagents
 * `src/agents/chain-serializer.ts`, and pi-vault/pi-subagents' `src/core/chain-serializer.ts` for the
 * settings block after a blank line): frontmatter `key: value` lines, then one step per `## <agent>`
 * heading. What comes before the first heading is not a step and is ignored (zflow's chains keep orchestrator
 * notes there); a step's first lines up to a blank line are its settings, unknown ones ignored, the rest its
 * task. pi-vault also takes settings written after a blank line under the heading, when they are at least two
 * lines that are all settings. What pi-flows reads differently is a note, with the line that says it.
 *
 *   ## scout          → { agent: "scout", heading: 6, settings: [output@8, as@9], task: lines 11.. }
 *                        (pi-vault's shape: the blank line 7 comes before the settings)
 *   phase: Context
 *   output: context.md
 *   as: context
 *
 *   Analyze {task}.
 */
import { readFrontmatter } from "../agents/index.ts";

/** A line of the chain file with its 1-based number. */
export interface ChainLine {
	text: string;
	line: number;
}

/** One step's setting as written: its key in lower case, its value, and its line. */
export interface StepSetting {
	key: string;
	/** As written, for messages. */
	written: string;
	value: string;
	line: number;
}

/** One `## <agent>` section. */
export interface ChainMdStep {
	agent: string;
	heading: number;
	settings: StepSetting[];
	task: ChainLine[];
}

/** Something read differently from pi-subagents, or ignored as it ignores it: a note at a line. */
export interface ChainMdNote {
	line: number;
	message: string;
}

/** A chain file read: its name and description, its steps, and the notes its reading left. */
export interface ChainMdFile {
	name: string;
	description: string;
	steps: ChainMdStep[];
	notes: ChainMdNote[];
}

/** A refusal at a line, with what to change. */
export interface ChainMdRefusal {
	line: number;
	message: string;
	hint: string;
}

/** The step settings pi-vault accepts in a block after a blank line (its `CHAIN_STEP_CONFIG_KEYS`). */
const SETTING_KEYS = new Set([
	"output",
	"phase",
	"label",
	"as",
	"outputschema",
	"outputmode",
	"reads",
	"model",
	"thinking",
	"skills",
	"progress",
	"toolbudget",
]);

/** Reads the chain file, or gives the one refusal pi-subagents would give too. */
export function readChainMd(text: string): { ok: true; value: ChainMdFile } | { ok: false; refusal: ChainMdRefusal } {
	const refuse = (line: number, message: string, hint: string) => ({
		ok: false as const,
		refusal: { line, message, hint },
	});
	const all = text.split(/\r?\n/);
	if (all[0]?.trim() !== "---") {
		return refuse(
			1,
			"a pi-subagents chain file starts with `---` frontmatter holding `name:` and `description:`",
			"Add the frontmatter, or rename the file without `.chain.md` if it is a flow.",
		);
	}
	const close = all.findIndex((l, i) => i > 0 && l.trim() === "---");
	if (close < 0) return refuse(1, "the chain file's frontmatter is never closed", "Close it with a `---` line.");
	// pi-subagents reads `key: value` lines: a description holding `: ` is text there, as it is here.
	const fm = readFrontmatter(text);
	if (!fm.ok)
		return refuse(1, "the chain file's frontmatter is not a YAML mapping", "Write `name:` and `description:`.");
	const data = fm.value.data;
	for (const key of ["name", "description"]) {
		const value = data[key];
		if (typeof value !== "string" || !value.trim()) {
			return refuse(1, `a pi-subagents chain file needs \`${key}:\``, `Add \`${key}:\`.`);
		}
	}
	const notes: ChainMdNote[] = [];
	const steps: ChainMdStep[] = [];
	let before: number | undefined;
	for (let i = close + 1; i < all.length; i++) {
		const heading = /^##\s+(.+?)\s*$/.exec(all[i]);
		if (heading) {
			steps.push({ agent: heading[1].trim(), heading: i + 1, settings: [], task: [] });
			continue;
		}
		const step = steps[steps.length - 1];
		if (step) step.task.push({ text: all[i], line: i + 1 });
		else if (all[i].trim() && before === undefined) before = i + 1;
	}
	if (steps.length === 0) {
		const message = "a pi-subagents chain file has one `## <agent>` section per step, and this one has none";
		return refuse(close + 2, message, "Add a `## <agent>` section for each step, in order.");
	}
	if (before !== undefined) {
		notes.push({
			line: before,
			message: `the text before the first step (\`## ${steps[0].agent}\`, line ${steps[0].heading}) is not part of any step; pi-subagents ignores it, and so does this run`,
		});
	}
	for (const step of steps) readSettings(step, notes);
	return {
		ok: true,
		value: { name: (data.name as string).trim(), description: (data.description as string).trim(), steps, notes },
	};
}

/**
 * Splits a step's lines into settings and task as pi-subagents does: up to the first blank line, or, in
 * pi-vault's shape, the block after a blank first line when it holds two or more setting lines and nothing
 * else. A line of the settings that is not `key: value` is ignored, as pi-subagents ignores it.
 */
function readSettings(step: ChainMdStep, notes: ChainMdNote[]): void {
	const lines = step.task;
	const blank = (l: ChainLine) => l.text.trim() === "";
	let start = 0;
	if (lines[0] && blank(lines[0])) {
		const end = lines.findIndex((l, i) => i > 0 && blank(l));
		const block = lines.slice(1, end < 0 ? lines.length : end);
		const settings = block.length >= 2 && block.every((l) => SETTING_KEYS.has(settingOf(l)?.key ?? ""));
		if (settings) start = 1;
	}
	const rest = lines.slice(start);
	const end = rest.findIndex(blank);
	const config = end < 0 ? rest : rest.slice(0, end);
	step.task = end < 0 ? [] : rest.slice(end + 1);
	for (const l of config) {
		const setting = settingOf(l);
		if (!setting) {
			notes.push({
				line: l.line,
				message: `\`${l.text.trim()}\` sits among \`## ${step.agent}\`'s settings but is not \`key: value\`; pi-subagents ignores it, and so does this run`,
			});
			continue;
		}
		step.settings.push(setting);
	}
}

function settingOf(l: ChainLine): StepSetting | undefined {
	const m = /^([\w-]+):\s*(.*)$/.exec(l.text);
	return m ? { key: m[1].toLowerCase(), written: m[1], value: m[2].trim(), line: l.line } : undefined;
}
