/**
 * Stage 2 of reading a chain: segments of tokens → steps and chain-wide flags, with a fault for every
 * token that does not fit. Input: the segments of `@a --retry 2 -> "b" -- --budget-total 9000`; output:
 * steps `@a` (retry 2) and goal `b`, and globals `{ budgetTotal: 9000 }` in the sink.
 */
import { readFlag } from "./read-flag.ts";
import { refOf, strays } from "./refs.ts";
import { report, type FlagFirstGiven, type Sink, type Source } from "./report.ts";
import type { Segment, Span, Token } from "./tokens.ts";
import type { ChainStep } from "./types.ts";

const STEP_HINT =
	"A step is one reference, optionally an @agent's own quoted goal, then its flags: separate steps with ->.";
const GLOBALS_HINT = "Only flags stand among the chain-wide flags.";

function readStep(tokens: Token[], n: number, src: Source, into: Sink): ChainStep | undefined {
	const path = `${src.path}/${n}`;
	const startsWithFlag = tokens[0].kind === "flag";
	const ref = refOf(tokens[0], src, into, path);
	const at = {
		place: "step" as const,
		fields: {} as Record<string, unknown>,
		seen: new Map<string, FlagFirstGiven>(),
		path,
	};
	let i = startsWithFlag ? 0 : 1;
	// pi-crew gives an `@agent` step its own goal right after the reference: `@team "Convert X -> Y"`.
	const own = tokens[1];
	if (ref?.kind === "agent" && own?.kind === "quoted") {
		if (own.text.trim() === "") {
			const hint = "Write what the step should do.";
			report(into, src, "chain-bad-ref", own, path, "The step's goal is empty.", { hint });
		} else ref.goal = own.text;
		i = 2;
	}
	while (i < tokens.length) {
		if (tokens[i].kind === "flag") {
			i = readFlag(tokens, i, at, src, into);
			continue;
		}
		let j = i;
		while (j < tokens.length && tokens[j].kind !== "flag") j++;
		strays(tokens.slice(i, j), src, into, path, "after the step's reference", STEP_HINT);
		i = j;
	}
	if (!ref) return undefined;
	const range = src.range({ start: tokens[0].start, end: tokens[tokens.length - 1].end });
	return { ref, ...at.fields, range } as ChainStep;
}

/** Reads chain-wide flags: those after `--`, or the whole separate globals string. */
export function readGlobals(tokens: Token[], src: Source, into: Sink): void {
	const at = { place: "globals" as const, fields: {}, seen: new Map<string, FlagFirstGiven>(), path: src.path };
	let i = 0;
	while (i < tokens.length) {
		const token = tokens[i];
		if (token.kind === "flag") {
			i = readFlag(tokens, i, at, src, into);
		} else if (token.kind === "globals") {
			report(into, src, "chain-syntax", token, src.path, "A second `--`: the chain-wide flags have already begun.", {
				hint: "Remove it.",
			});
			i++;
		} else {
			let j = i;
			while (j < tokens.length && tokens[j].kind !== "flag" && tokens[j].kind !== "globals") j++;
			strays(tokens.slice(i, j), src, into, src.path, "among the chain-wide flags", GLOBALS_HINT);
			i = j;
		}
	}
}

function emptyStep(segments: Segment[], i: number, src: Source, into: Sink, reported: Set<number>): void {
	const here = segments[i];
	const path = `${src.path}/${i + 1}`;
	if (segments.length === 1) {
		const span = here.tokens[0] ?? { start: 0, end: src.text.length };
		report(into, src, "chain-empty-step", span, src.path, "The chain has no steps.", {
			hint: "Write at least one step, e.g. @research -> @review.",
		});
		return;
	}
	// Blame the arrow that has nothing after it: the next one for a leading or doubled `->`, else the last.
	const arrow: Span | undefined = segments[i + 1]?.arrow ?? here.arrow;
	if (!arrow || reported.has(arrow.start)) return;
	reported.add(arrow.start);
	report(into, src, "chain-empty-step", arrow, path, `Step ${i + 1} is empty.`, {
		hint: "Remove the extra -> or write a step there.",
	});
}

/** Reads every segment of a chain into steps, and the flags after its `--` into the sink's globals. */
export function readChain(segments: Segment[], src: Source, into: Sink): ChainStep[] {
	const steps: ChainStep[] = [];
	const reported = new Set<number>();
	for (let i = 0; i < segments.length; i++) {
		const tokens = segments[i].tokens;
		const mark = tokens.findIndex((t) => t.kind === "globals");
		const stepTokens = mark < 0 ? tokens : tokens.slice(0, mark);
		if (stepTokens.length === 0) emptyStep(segments, i, src, into, reported);
		else {
			const step = readStep(stepTokens, i + 1, src, into);
			if (step) steps.push(step);
		}
		if (mark < 0) continue;
		readGlobals(tokens.slice(mark + 1), src, into);
		const after = segments[i + 1]?.arrow;
		if (after) {
			report(into, src, "chain-syntax", { start: after.start, end: src.text.length }, src.path, "Steps after `--`.", {
				hint: "Everything after `--` is chain-wide flags; move the `--` section to the end of the chain.",
			});
		}
		break;
	}
	duplicateLabels(steps, src, into);
	return steps;
}

/**
 * A label names its step in reports and in the run folder, so two steps may not share one: `@a:x -> @b:x`
 * is refused, as is a label that another step's unlabelled `@agent` already stands for. Repeating an agent
 * without labels (`@review -> @review`) stays allowed; the second is told apart as `review_2`.
 */
function duplicateLabels(steps: ChainStep[], src: Source, into: Sink): void {
	const plain = new Map<string, ChainStep>();
	for (const s of steps) {
		if (s.ref.kind === "agent" && s.ref.label === undefined && !plain.has(s.ref.name)) plain.set(s.ref.name, s);
	}
	const labels = new Map<string, ChainStep>();
	steps.forEach((s, i) => {
		if (s.ref.kind !== "agent" || s.ref.label === undefined) return;
		const label = s.ref.label;
		const first = labels.get(label) ?? plain.get(label);
		if (!first) {
			labels.set(label, s);
			return;
		}
		const at = s.range.start.offset - src.range({ start: 0, end: 0 }).start.offset;
		const span = { start: at + 1 + s.ref.name.length + 1, end: at + 1 + s.ref.name.length + 1 + label.length };
		const twin = first.ref.kind === "agent" && first.ref.label === label;
		const what = twin ? "another step's label" : `the name of the step \`@${label}\``;
		const { line, column } = first.range.start;
		report(
			into,
			src,
			"chain-duplicate-label",
			span,
			`${src.path}/${i + 1}`,
			`The label \`${label}\` is already ${what}.`,
			{
				hint: "Give each step its own label.",
				related: [{ message: "That step is here.", file: src.file, line, column }],
			},
		);
	});
}
