/**
 * A chain becomes a flow: each step an agent node (an `@agent`, a template run by `worker`, or a quoted
 * goal run by `worker`) or a `flow` node, in order, with every flag applied to its node: model and
 * thinking, skills, timeout, retry, continue-on-error (`on-fail: continue`). It is then checked and run
 * by the same checker and evaluator as any flow.
 */
import type { AgentNode, CallNode, FlowNode, Located } from "../language/index.ts";
import type { Section } from "../language/read/index.ts";
import type { Range } from "../text/index.ts";
import { type Fault, fault } from "../faults/index.ts";
import type { AddressExpr } from "../language/syntax/index.ts";
import { ADDRESS_WORDS, RESERVED_WORDS } from "../language/build/index.ts";
import { expandTemplate, type Template } from "./templates.ts";
import { modelText } from "./values.ts";
import { type ChainSpec, type ChainStep, DEFAULT_GOAL_AGENT } from "./types.ts";

/** What expansion needs from outside: where templates are. */
export interface ExpandContext {
	file: string;
	findTemplate(name: string): Template | undefined;
}

/** The nodes and sections of a chain, or faults for steps that cannot become nodes. */
export function chainToNodes(
	spec: ChainSpec,
	ctx: ExpandContext,
): { nodes: FlowNode[]; sections: Section[]; faults: Fault[] } {
	const nodes: FlowNode[] = [];
	const sections: Section[] = [];
	const faults: Fault[] = [];
	const used = new Set<string>();
	spec.steps.forEach((step, i) => {
		const id = uniqueId(idOf(step, i), used);
		const located = <T>(value: T): Located<T> => ({ value, range: step.range });
		const path = id;
		const onFail =
			(step.continueOnError ?? spec.globals.continueOnError) ? { onFail: located("continue" as const) } : {};
		if (step.ref.kind === "flow") {
			const call: CallNode = {
				kind: "flow",
				id: located(id),
				path,
				range: step.range,
				callee: located(step.ref.name),
				input: inputAddress(step.range),
				...onFail,
			};
			nodes.push(call);
			return;
		}
		let prose: string;
		let agent = DEFAULT_GOAL_AGENT;
		let template: Template | undefined;
		if (step.ref.kind === "agent") {
			agent = step.ref.name;
			const context = "what earlier steps did is under the chain's history and handoff below.";
			prose =
				step.ref.goal !== undefined
					? `${step.ref.goal}\n\nThis is your step of a chain: the chain's goal is under \`input\`; ${context}`
					: `Do your step of this chain. The chain's goal is under \`input\`; ${context}`;
		} else if (step.ref.kind === "goal") prose = step.ref.text;
		else {
			template = ctx.findTemplate(step.ref.name);
			if (!template) {
				faults.push(
					fault(
						"chain-bad-ref",
						ctx.file,
						step.range,
						id,
						`no prompt template \`${step.ref.name}\` in the prompts folders`,
					),
				);
				return;
			}
			prose = `${expandTemplate(template.text, "the chain's goal under `input`")}`;
		}
		const model = step.model ?? spec.globals.model;
		// Nearest wins, a step's own model suffix included: the step's --thinking, its --model's `:level`, then
		// the chain's --global-thinking, the --global-model's `:level`, then the template's frontmatter.
		const thinking =
			step.thinking ??
			step.model?.thinking ??
			spec.globals.thinking ??
			spec.globals.model?.thinking ??
			(template?.thinking as ChainStep["thinking"]);
		const skills = step.skills ?? spec.globals.skills;
		const retry = step.retry ?? spec.globals.retry;
		const node: AgentNode = {
			kind: "agent",
			id: located(id),
			path,
			range: step.range,
			agent: located(agent),
			reads: [inputAddress(step.range)],
			...onFail,
			...(model ? { model: located(modelText(model)) } : template?.model ? { model: located(template.model) } : {}),
			...(thinking ? { thinking: located(thinking) } : {}),
			...(skills?.length ? { skills: skills.map((s) => located(s)) } : {}),
			...(step.timeoutMs !== undefined ? { timeout: located(step.timeoutMs) } : {}),
			...(retry !== undefined ? { retry: located(retry) } : {}),
		};
		nodes.push(node);
		sections.push({ id, headingRange: step.range, text: prose, range: step.range });
	});
	return { nodes, sections, faults };
}

function idOf(step: ChainStep, i: number): string {
	const raw =
		step.ref.kind === "agent"
			? (step.ref.label ?? step.ref.name)
			: step.ref.kind === "goal"
				? `step${i + 1}`
				: step.ref.name;
	let id = raw.replace(/[^A-Za-z0-9_]/g, "_").replace(/^(?=[0-9])/, "_");
	if (ADDRESS_WORDS.includes(id) || RESERVED_WORDS.includes(id)) id = `step_${id}`;
	return id;
}

function uniqueId(id: string, used: Set<string>): string {
	let out = id;
	for (let n = 2; used.has(out); n++) out = `${id}_${n}`;
	used.add(out);
	return out;
}

function inputAddress(range: Range): AgentNode["reads"][number] {
	const expr: AddressExpr = { kind: "address", segments: [{ name: "input", range }], range };
	return { root: "input", fields: [], text: "input", range, expr };
}
