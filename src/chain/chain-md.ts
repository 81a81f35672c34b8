/**
 * pi-subagents' saved chains (`<name>.chain.md`) run as flows. Such a file, read as pi-subagents reads it
 * (chain-md-read.ts), has frontmatter with `name` and `description`, then one `## <agent>` section per step;
 * a section's settings (`output:`, `reads:`, `model:`, `thinking:`, `progress:`, `skills:`, `as:`) and task,
 * where `{task}` is the chain's request and `{previous}` the step before's answer. It becomes a flow text in
 * pi-flows' own format, judged by the same reader and checker; every line of that text remembers the chain
 * file's line it came from, so a fault points into the file the user wrote.
 *
 *   ## scout                       - id: scout          ## scout
 *   output: context.md        →      agent: scout   +   Look at {task} → the request under `input`
 *                                    reads: [input]
 *   Look at {task}
 *
 * Data moves as pi-flows moves it, by reads, not by files: `output: plan.md` names the step's answer, and a
 * later `reads: plan.md` (or `{outputs.<as>}`) reads that step; `progress: true` reads every earlier step,
 * which is what pi-subagents' shared progress file gives a step.
 */
import { type Fault, fault } from "../faults/index.ts";
import { lineTable } from "../text/index.ts";
import { ADDRESS_WORDS, RESERVED_WORDS } from "../language/build/index.ts";
import { type ChainLine, type ChainMdNote, type ChainMdStep, readChainMd } from "./chain-md-read.ts";

/** A chain file as flow text, with the chain file's line for each of its lines, and the notes its reading left. */
export interface ChainMdFlow {
	text: string;
	/** `lines[i]` is the chain file's 1-based line for the flow text's line `i + 1`. */
	lines: number[];
	/** What pi-flows reads differently from pi-subagents, or ignores as it does, each at its line. */
	notes: ChainMdNote[];
}

/** Whether a file is a pi-subagents chain file. */
export function isChainMd(file: string): boolean {
	return file.endsWith(".chain.md");
}

/** Step keys pi-subagents writes that carry nothing a run here needs (labels and display). */
const DISPLAY_KEYS = new Set(["label", "phase", "outputmode"]);

/** pi-subagents' shared progress file, which every step with `progress: true` keeps. */
const PROGRESS_FILE = "progress.md";

interface Step {
	agent: string;
	id: string;
	heading: number;
	output?: string;
	as?: string;
	reads?: { files: string[]; line: number };
	model?: string;
	thinking?: string;
	progress?: boolean;
	skills?: string[];
	/** The task's lines with their chain-file line numbers. */
	task: ChainLine[];
}

type Translated = { ok: true; value: ChainMdFlow } | { ok: false; faults: Fault[] };

/** Translates a chain file to flow text, or gives the one fault that says what to change. */
export function chainMdToFlow(text: string, file: string, name: string): Translated {
	const table = lineTable(text);
	const refuse = (line: number, message: string, hint: string) => {
		const start = table.offset(line, 1);
		const end = text.indexOf("\n", start);
		const range = table.range(start, end < 0 ? text.length : end);
		return { ok: false as const, faults: [fault("peer-format", file, range, "", message, { hint })] };
	};
	const read = readChainMd(text);
	if (!read.ok) return refuse(read.refusal.line, read.refusal.message, read.refusal.hint);
	const chain = read.value;
	if (chain.name !== name) {
		const hint = "A chain is found by its file name, so the two must agree.";
		const at = text.split(/\r?\n/).findIndex((l) => /^name:/.test(l)) + 1 || 2;
		return refuse(at, `\`name: ${chain.name}\` differs from the file name \`${name}.chain.md\``, hint);
	}
	const used = new Set<string>();
	const notes = [...chain.notes];
	const steps: Step[] = [];
	for (const s of chain.steps) {
		const step = settingsOf(s, uniqueId(s.agent, used), notes);
		if ("message" in step) return refuse(step.line, step.message, step.hint);
		steps.push(step);
	}
	const made = translate(steps, chain.name, chain.description, notes);
	if (made.ok) return made;
	const [first] = made.faults;
	return refuse(first.line, first.message, first.hint ?? "");
}

/**
 * A step's settings, as pi-subagents takes them: `false` turns a setting off, a list is comma-separated, and
 * a key it does not know is ignored (noted). `outputSchema:` and `toolBudget:` have no counterpart in a chain
 * here, so they refuse the file at their line.
 */
function settingsOf(
	s: ChainMdStep,
	id: string,
	notes: ChainMdNote[],
): Step | { line: number; message: string; hint: string } {
	const step: Step = { agent: s.agent, id, heading: s.heading, task: s.task };
	for (const { key, written, value, line } of s.settings) {
		const list = () =>
			value === "false"
				? []
				: value
						.split(",")
						.map((v) => v.trim())
						.filter(Boolean);
		if (key === "output") {
			if (value && value !== "false") step.output = value;
		} else if (key === "as") step.as = value || undefined;
		else if (key === "reads") step.reads = { files: list(), line };
		else if (key === "model") step.model = value || undefined;
		else if (key === "thinking") step.thinking = value || undefined;
		else if (key === "progress") step.progress = value === "true";
		else if (key === "skills" || key === "skill") step.skills = list();
		else if (DISPLAY_KEYS.has(key)) continue;
		else if (key === "outputschema" || key === "toolbudget") {
			const hint = "Remove it; for a typed answer, write the chain as a flow and give the node `output:`.";
			return { line, message: `\`${written}:\` (pi-subagents) has no counterpart in a chain here`, hint };
		} else {
			notes.push({
				line,
				message: `\`${written}:\` is not a step setting pi-subagents knows (output, reads, model, thinking, progress, skills, as); it ignores it, and so does this run`,
			});
		}
	}
	return step;
}

/**
 * The flow of agent nodes the steps stand for. What a step is handed in pi-subagents, it reads here: the
 * step before it (its `{previous}`, or the "previous step output" pi-subagents appends when the task does not
 * say `{previous}`), `input` for `{task}`, the step whose `output:` a `reads:` file names (the steps keeping
 * pi-subagents' progress file for `progress.md`), every earlier step for `progress: true`, and the step an
 * `{outputs.<as>}` names.
 */
function translate(steps: Step[], name: string, description: string, notes: ChainMdNote[]): Translated {
	const out: string[] = [];
	const lines: number[] = [];
	const emit = (text: string, line: number) => {
		out.push(text);
		lines.push(line);
	};
	emit("---", 1);
	emit(`name: ${JSON.stringify(name)}`, 2);
	emit(`description: ${JSON.stringify(description)}`, 2);
	emit("input: string", 1);
	emit("nodes:", 1);
	const byFile = new Map<string, string>();
	const byName = new Map<string, string>();
	const prose: { id: string; heading: number; task: ChainLine[] }[] = [];
	for (const [i, step] of steps.entries()) {
		const reads: string[] = [];
		const read = (address: string) => {
			if (!reads.includes(address)) reads.push(address);
		};
		const previous = steps[i - 1]?.id;
		const earlier = steps.slice(0, i);
		const written = step.task
			.map((t) => t.text)
			.join("\n")
			.trim();
		const task = written ? step.task : [{ text: i === 0 ? "{task}" : "{previous}", line: step.heading }];
		const body = task.map((t) => ({
			line: t.line,
			text: t.text
				.replace(/\{task\}/g, () => {
					read("input");
					return "the request under `input`";
				})
				.replace(/\{previous\}/g, () => {
					if (!previous) return "(nothing: this is the first step)";
					return `the previous step's answer under \`${previous}\``;
				})
				.replace(/\{outputs\.([\w-]+)\}/g, (all, out: string) => {
					const id = byName.get(out);
					if (!id) return all;
					read(id);
					return `\`${id}\`'s answer below`;
				}),
		}));
		if (previous) read(previous);
		for (const t of body) {
			const left = /\{(chain_dir|outputs\.[\w-]+)\}/.exec(t.text);
			if (!left) continue;
			if (left[1] === "chain_dir") {
				const message = "`{chain_dir}` has no counterpart here: steps hand their answers on by `output:` and `reads:`";
				return refuseAt(
					t.line,
					message,
					"Remove `{chain_dir}`; name a step's answer with `output:` and read it with `reads:`.",
				);
			}
			return unknownOutput(left[1].slice(8), t.line, earlier);
		}
		for (const f of step.reads?.files ?? []) {
			const id = byFile.get(f);
			if (id) {
				read(id);
				continue;
			}
			const at = step.reads?.line ?? step.heading;
			if (f === PROGRESS_FILE) {
				const keepers = earlier.filter((s) => s.progress);
				for (const s of keepers) read(s.id);
				if (!keepers.length)
					notes.push({
						line: at,
						message: `\`reads: ${f}\` is pi-subagents' progress file, and no earlier step keeps it (\`progress: true\`): there is nothing to read`,
					});
				continue;
			}
			for (const s of earlier) read(s.id);
			notes.push({
				line: at,
				message: `no earlier step's \`output:\` names \`${f}\`; pi-subagents reads the file if an earlier step wrote it, so this step reads every earlier step's answer`,
			});
		}
		if (step.progress) for (const s of earlier) read(s.id);
		if (step.output) byFile.set(step.output, step.id);
		if (step.as) byName.set(step.as, step.id);
		emit(`  - id: ${step.id}`, step.heading);
		emit(`    agent: ${JSON.stringify(step.agent)}`, step.heading);
		if (reads.length) emit(`    reads: [${reads.join(", ")}]`, step.reads?.line ?? step.heading);
		if (step.model) emit(`    model: ${JSON.stringify(step.model)}`, step.heading);
		if (step.thinking) emit(`    thinking: ${JSON.stringify(step.thinking)}`, step.heading);
		if (step.skills?.length)
			emit(`    skills: [${step.skills.map((s) => JSON.stringify(s)).join(", ")}]`, step.heading);
		prose.push({ id: step.id, heading: step.heading, task: body });
	}
	emit("---", 1);
	for (const p of prose) {
		emit("", p.heading);
		emit(`## ${p.id}`, p.heading);
		emit("", p.heading);
		for (const t of p.task) emit(t.text, t.line);
	}
	return { ok: true, value: { text: `${out.join("\n")}\n`, lines, notes } };
}

/**
 * `{outputs.<name>}` that no earlier step's `as:` names: pi-subagents refuses it too. When an earlier step's
 * task holds the line `as: <name>` (a setting written after the blank line that ends the settings, so read as
 * task text), the fault is at that line, the one that says it.
 */
function unknownOutput(name: string, use: number, earlier: readonly Step[]): { ok: false; faults: Fault[] } {
	for (const s of earlier) {
		const said = s.task.find((t) => /^as:\s*(.*)$/i.exec(t.text.trim())?.[1].trim() === name);
		if (!said) continue;
		const message = `\`as: ${name}\` here is read as the task of \`## ${s.agent}\` (line ${s.heading}), not as a setting, so \`{outputs.${name}}\` (line ${use}) names nothing`;
		const hint = "A step's settings come right under its heading, before the first blank line; move this line up.";
		return refuseAt(said.line, message, hint);
	}
	const message = `\`{outputs.${name}}\` has no counterpart here: no earlier step has \`as: ${name}\``;
	return refuseAt(use, message, `Give the step whose answer this is \`as: ${name}\`, under its heading.`);
}

/** A fault found while translating, placed by line alone (the caller adds the file's text). */
function refuseAt(line: number, message: string, hint: string): { ok: false; faults: Fault[] } {
	const at = { line, column: 1, offset: 0 };
	return { ok: false, faults: [fault("peer-format", "", { start: at, end: at }, "", message, { hint })] };
}

function uniqueId(agent: string, used: Set<string>): string {
	let id = agent.replace(/[^A-Za-z0-9_]/g, "_").replace(/^(?=[0-9])/, "_");
	if (ADDRESS_WORDS.includes(id) || RESERVED_WORDS.includes(id)) id = `step_${id}`;
	let out = id;
	for (let n = 2; used.has(out); n++) out = `${id}_${n}`;
	used.add(out);
	return out;
}

/**
 * Moves the faults of the flow text onto the chain file: each to the line its flow line came from, whole
 * line, so an unknown agent points at its `## <agent>` heading and a bad model at that step.
 */
export function placeInChainFile(faults: readonly Fault[], chain: ChainMdFlow, text: string, file: string): Fault[] {
	const table = lineTable(text);
	return faults.map((f) => {
		if (f.file !== file && f.file !== "") return f;
		const line = chain.lines[f.line - 1] ?? 1;
		const start = table.offset(line, 1);
		const eol = text.indexOf("\n", start);
		const range = table.range(start, eol < 0 ? text.length : eol);
		const moved = fault(f.code, file, range, f.path, f.message, {
			...(f.hint ? { hint: f.hint } : {}),
			...(f.expected ? { expected: f.expected } : {}),
		});
		return moved;
	});
}
