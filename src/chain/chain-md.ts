/**
 * pi-subagents' saved chains (`<name>.chain.md`) run as flows. Such a file has frontmatter with `name` and
 * `description`, then one `## <agent>` section per step; a section's first lines, up to a blank line, set
 * the step (`output:`, `reads:`, `model:`, `progress:`, `skills:`, `as:`), the rest is its task, where
 * `{task}` is the chain's request and `{previous}` the step before's answer. It becomes a flow text in
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
import { parseDocument } from "yaml";
import { type Fault, fault } from "../faults/index.ts";
import { lineTable } from "../text/index.ts";
import { ADDRESS_WORDS, RESERVED_WORDS } from "../language/build/index.ts";

/** A chain file as flow text, with the chain file's line for each of its lines. */
export interface ChainMdFlow {
	text: string;
	/** `lines[i]` is the chain file's 1-based line for the flow text's line `i + 1`. */
	lines: number[];
}

/** Whether a file is a pi-subagents chain file. */
export function isChainMd(file: string): boolean {
	return file.endsWith(".chain.md");
}

/** Step keys pi-subagents writes that carry nothing a run here needs (labels and display). */
const DISPLAY_KEYS = new Set(["label", "phase", "outputmode"]);

interface Step {
	agent: string;
	id: string;
	heading: number;
	output?: string;
	as?: string;
	reads?: { files: string[]; line: number };
	model?: string;
	progress?: boolean;
	skills?: string[];
	/** The task's lines with their chain-file line numbers. */
	task: { text: string; line: number }[];
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
	const doc = parseDocument(all.slice(1, close).join("\n"));
	const fm = doc.errors.length ? undefined : (doc.toJS() as Record<string, unknown> | null);
	if (!fm || typeof fm !== "object") {
		return refuse(1, "the chain file's frontmatter is not a YAML mapping", "Write `name:` and `description:`.");
	}
	for (const key of ["name", "description"]) {
		const value = fm[key];
		if (typeof value !== "string" || !value.trim()) {
			return refuse(1, `a pi-subagents chain file needs \`${key}:\``, `Add \`${key}:\`.`);
		}
	}
	if ((fm.name as string).trim() !== name) {
		const hint = "A chain is found by its file name, so the two must agree.";
		return refuse(2, `\`name: ${String(fm.name)}\` differs from the file name \`${name}.chain.md\``, hint);
	}
	const steps: Step[] = [];
	const used = new Set<string>();
	for (let i = close + 1; i < all.length; i++) {
		const heading = /^##\s+(.+?)\s*$/.exec(all[i]);
		if (heading) {
			const agent = heading[1].trim();
			steps.push({ agent, id: uniqueId(agent, used), heading: i + 1, task: [] });
			continue;
		}
		const step = steps[steps.length - 1];
		if (step) step.task.push({ text: all[i], line: i + 1 });
		else if (all[i].trim()) {
			return refuse(
				i + 1,
				"text before the first `## <agent>` step",
				"Move it into a step's task, or into `description:`.",
			);
		}
	}
	if (steps.length === 0) {
		const message = "a pi-subagents chain file has one `## <agent>` section per step, and this one has none";
		return refuse(close + 2, message, "Add a `## <agent>` section for each step, in order.");
	}
	for (const step of steps) {
		const problem = readConfig(step);
		if (problem) return refuse(problem.line, problem.message, problem.hint);
	}
	const made = translate(steps, fm.name as string, fm.description as string);
	if (made.ok) return made;
	const [first] = made.faults;
	return refuse(first.line, first.message, first.hint ?? "");
}

/** A step's first lines up to a blank line are its settings, as pi-subagents reads them. */
function readConfig(step: Step): { line: number; message: string; hint: string } | undefined {
	const blank = step.task.findIndex((l) => l.text.trim() === "");
	const config = blank < 0 ? step.task : step.task.slice(0, blank);
	step.task = blank < 0 ? [] : step.task.slice(blank + 1);
	for (const { text, line } of config) {
		const m = /^([\w-]+):\s*(.*)$/.exec(text);
		if (!m) continue;
		const key = m[1].toLowerCase();
		const value = m[2].trim();
		const list = () =>
			value === "false"
				? []
				: value
						.split(",")
						.map((v) => v.trim())
						.filter(Boolean);
		if (key === "output") {
			if (value && value !== "false") step.output = value;
		} else if (key === "as") step.as = value;
		else if (key === "reads") step.reads = { files: list(), line };
		else if (key === "model") step.model = value || undefined;
		else if (key === "progress") step.progress = value === "true";
		else if (key === "skills" || key === "skill") step.skills = list();
		else if (DISPLAY_KEYS.has(key)) continue;
		else if (key === "outputschema" || key === "toolbudget") {
			const hint = "Remove it; for a typed answer, write the chain as a flow and give the node `output:`.";
			return { line, message: `\`${m[1]}:\` (pi-subagents) has no counterpart in a chain here`, hint };
		} else {
			return {
				line,
				message: `\`${m[1]}:\` is not a step setting of a pi-subagents chain (output, reads, model, progress, skills, as)`,
				hint: "A step's settings end at its first blank line; put a blank line before the task.",
			};
		}
	}
	return undefined;
}

function translate(steps: Step[], name: string, description: string): Translated {
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
	const prose: { id: string; heading: number; task: { text: string; line: number }[] }[] = [];
	for (const [i, step] of steps.entries()) {
		const reads: string[] = [];
		const read = (address: string) => {
			if (!reads.includes(address)) reads.push(address);
		};
		const previous = steps[i - 1]?.id;
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
					read(previous);
					return `the previous step's answer under \`${previous}\``;
				})
				.replace(/\{outputs\.([\w-]+)\}/g, (all, out: string) => {
					const id = byName.get(out);
					if (!id) return all;
					read(id);
					return `\`${id}\`'s answer below`;
				}),
		}));
		for (const t of body) {
			const left = /\{(chain_dir|outputs\.[\w-]+)\}/.exec(t.text);
			if (left) {
				const message = `\`{${left[1]}}\` has no counterpart here: steps hand their answers on by \`output:\` and \`reads:\``;
				const hint =
					left[1] === "chain_dir"
						? "Remove `{chain_dir}`; name a step's answer with `output:` and read it with `reads:`."
						: `No earlier step has \`as: ${left[1].slice(8)}\`.`;
				return refuseAt(t.line, message, hint);
			}
		}
		for (const f of step.reads?.files ?? []) {
			const id = byFile.get(f);
			const hint = `Give the step that writes it \`output: ${f}\`, before this one.`;
			if (!id)
				return refuseAt(step.reads?.line ?? step.heading, `\`reads: ${f}\` names no earlier step's \`output:\``, hint);
			read(id);
		}
		if (step.progress) for (const s of steps.slice(0, i)) read(s.id);
		if (step.output) byFile.set(step.output, step.id);
		if (step.as) byName.set(step.as, step.id);
		emit(`  - id: ${step.id}`, step.heading);
		emit(`    agent: ${JSON.stringify(step.agent)}`, step.heading);
		if (reads.length) emit(`    reads: [${reads.join(", ")}]`, step.reads?.line ?? step.heading);
		if (step.model) emit(`    model: ${JSON.stringify(step.model)}`, step.heading);
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
	return { ok: true, value: { text: `${out.join("\n")}\n`, lines } };
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
