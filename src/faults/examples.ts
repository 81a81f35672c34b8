/**
 * One small example per fault code where one fits in a few lines, for docs/faults.md. Each is what a person
 * would write by mistake; a test checks every flow, chain and script example really raises its code, so
 * the docs never show an example the checker would let through.
 */
import type { FaultCode } from "./catalogue.ts";

/** An example and how a test turns it into something to judge. */
export interface FaultExample {
	/**
	 * `nodes`: a list of nodes (judged inside a flow `t` taking a string); `flow`: frontmatter keys (judged
	 * between `---` lines, as `t.md`); `file`: a whole file; `chain`: a chain string; `script`: a scripted-model
	 * script for the shipped `explore` flow.
	 */
	kind: "nodes" | "flow" | "file" | "chain" | "script";
	text: string;
	/** A sentence about what the example needs beyond itself (another file, a broken agent). */
	note?: string;
}

const n = (text: string): FaultExample => ({ kind: "nodes", text });

/** Examples by code; a code without one is explained by its trigger alone. */
export const FAULT_EXAMPLES: Partial<Record<FaultCode, FaultExample>> = {
	"yaml-syntax": { kind: "flow", text: "name: t\ndescription: [oops\ninput: string\n" },
	"not-a-flow": { kind: "file", text: "# Notes\n\nJust Markdown, no frontmatter.\n" },
	"missing-key": { kind: "flow", text: "name: t\ndescription: d\nnodes:\n  - id: look\n    agent: scout\n" },
	"unknown-key": n("- id: look\n  agent: scout\n  raeds: [input]\n"),
	"key-type": n("- id: look\n  agent: scout\n  reads: input\n"),
	"name-mismatch": {
		kind: "flow",
		text: "name: other\ndescription: d\ninput: string\nnodes:\n  - id: look\n    agent: scout\n",
	},
	"node-kind": n("- id: look\n  reads: [input]\n"),
	"invalid-id": n("- id: ask-next\n  agent: interviewer\n"),
	"reserved-id": n("- id: input\n  agent: scout\n"),
	"duplicate-id": n("- id: look\n  agent: scout\n- id: look\n  agent: reviewer\n"),
	"unknown-agent": n("- id: look\n  agent: scuot\n"),
	"broken-agent": {
		...n("- id: look\n  agent: scout\n"),
		note: "with a project `.pi/agents/scout.md` that lacks `description:`.",
	},
	"unknown-address": n("- id: look\n  agent: scout\n  reads: [plan]\n"),
	"invalid-address": n(
		"- id: look\n  agent: scout\n- id: answer\n  agent: synthesiser\n  reads: [look.output.summary]\n",
	),
	"section-missing": {
		kind: "file",
		text: "---\nname: t\ndescription: d\ninput: string\nnodes:\n  - id: look\n    agent: scout\n---\n",
	},
	"section-empty": {
		kind: "file",
		text: "---\nname: t\ndescription: d\ninput: string\nnodes:\n  - id: look\n    agent: scout\n---\n\n## look\n",
	},
	"section-duplicate": {
		kind: "file",
		text: "---\nname: t\ndescription: d\ninput: string\nnodes:\n  - id: look\n    agent: scout\n---\n\n## look\nRead.\n\n## look\nRead more.\n",
	},
	"section-unknown": {
		kind: "file",
		text: "---\nname: t\ndescription: d\ninput: string\nnodes:\n  - id: look\n    agent: scout\n---\n\n## look\nRead.\n\n## lok\nRead more.\n",
	},
	"body-preamble": {
		kind: "file",
		text: "---\nname: t\ndescription: d\ninput: string\nnodes:\n  - id: look\n    agent: scout\n---\n\nThis flow looks around.\n\n## look\nRead.\n",
	},
	"unknown-flow": n("- id: spec\n  flow: intervew\n  input: input\n"),
	"script-unknown-node": { kind: "script", text: "turns:\n  lok:\n    - say: hi\n" },
	"script-invalid": { kind: "script", text: "turns:\n  look:\n    - shout: hi\n" },
	"condition-syntax": n(
		"- id: fix\n  loop: review.output.approved = true\n  max: 2\n  do:\n    - id: review\n      agent: reviewer\n      output: { approved: boolean }\n",
	),
	"node-indentation": n(
		"- id: fix\n  loop: review.output.approved\n  max: 2\n  do:\n    - id: code\n      agent: coder\n- id: review\n  agent: reviewer\n  reads: [code]\n  output: { approved: boolean }\n",
	),
	"condition-unknown-address": n(
		"- id: fix\n  loop: review.output.aproved\n  max: 2\n  do:\n    - id: review\n      agent: reviewer\n      output: { approved: boolean }\n",
	),
	"condition-type": n(
		'- id: fix\n  loop: review.output.score == "high"\n  max: 2\n  do:\n    - id: review\n      agent: reviewer\n      output: { score: number }\n',
	),
	"condition-enum-value": n(
		'- id: fix\n  loop: review.output.status == "aproved"\n  max: 2\n  do:\n    - id: review\n      agent: reviewer\n      output: { status: approved | rejected }\n',
	),
	"condition-free-string": n(
		'- id: q\n  agent: interviewer\n  output: { question: Question }\n- id: ask\n  ask-from: q.output.question\n- id: gate\n  choice:\n    - when: ask.output.answer == "Yes"\n      do:\n        - id: go\n          agent: scout\n  default: []\n',
	),
	"schema-invalid": n("- id: plan\n  agent: planner\n  output: { tasks: [strng] }\n"),
	"duration-invalid": n("- id: look\n  agent: scout\n  timeout: 1h30min\n"),
	"chain-syntax": { kind: "chain", text: '@scout "unclosed goal -> @synthesiser' },
	"chain-empty-step": { kind: "chain", text: "@scout -> -> @synthesiser" },
	"chain-bad-ref": { kind: "chain", text: "scout -> @synthesiser" },
	"chain-unknown-flag": { kind: "chain", text: "@scout --modle openai/gpt-5" },
	"chain-flag-value": { kind: "chain", text: "@scout --retry many" },
	"chain-duplicate-flag": { kind: "chain", text: "@scout --retry 1 --retry 2" },
	"chain-duplicate-label": { kind: "chain", text: "@scout:x -> @worker:x" },
	"twin-keys": n("- id: act\n  agent: scout\n  agent-from: plan.output.worker\n"),
	"reserved-name": {
		kind: "flow",
		text: "name: resume\ndescription: d\ninput: string\nnodes:\n  - id: look\n    agent: scout\n",
	},
	"retry-refused": n("- id: tests\n  check: .pi/checks/test.sh\n  retry: 2\n"),
	"among-without-from": n("- id: act\n  agent: scout\n  among: [scout, reviewer]\n"),
	"verdict-with-output": n(
		"- id: pair\n  loop: review.output.approved\n  max: 3\n  ledger: pair\n  do:\n    - id: review\n      agent: reviewer\n      verdict: pair\n      output: { approved: boolean }\n",
	),
	"ask-form-conflict": n("- id: go\n  ask: Build this?\n  confirm: true\n  options: [Build, Stop]\n"),
	"ask-options-count": n("- id: go\n  ask: Which one?\n  options: [Only this]\n"),
	"ask-options-duplicate": n("- id: go\n  ask: Which one?\n  options: [Keep, Drop, Keep]\n"),
	"ask-default-mismatch": n("- id: go\n  ask: Which one?\n  options: [Keep, Drop]\n  default: Maybe\n"),
	"among-mismatch": n(
		"- id: plan\n  agent: planner\n  output: { worker: scout | reviewer }\n- id: act\n  agent-from: plan.output.worker\n  among: [scout, auditor]\n",
	),
	"unknown-scope": n("- id: look\n  agent: scout\n  memory: nowhere\n"),
	"memory-output-mismatch": n(
		"- id: a\n  agent: scout\n  memory: flow\n  output: { x: string }\n- id: b\n  agent: scout\n  memory: flow\n  output: { y: string }\n",
	),
	"carry-mismatch": n(
		"- id: plan\n  agent: planner\n  output: { tasks: [{ text: string }] }\n- id: fix\n  loop: w.output.done\n  max: 2\n  carry: { first: plan.output.tasks, next: w.output.notes }\n  do:\n    - id: w\n      agent: scout\n      output: { done: boolean, notes: [{ id: string }] }\n",
	),
	"copies-needed": n(
		"- id: work\n  map: [api, ui]\n  concurrency: 2\n  do:\n    - id: code\n      agent: coder\n      reads: [item]\n",
	),
	"commit-in-copies": n(
		"- id: work\n  map: [api, ui]\n  concurrency: 2\n  copies: true\n  do:\n    - id: message\n      agent: committer\n    - id: save\n      commit: message\n",
	),
	"memory-outside-copies": n(
		"- id: work\n  map: [api, ui]\n  concurrency: 2\n  copies: true\n  do:\n    - id: code\n      agent: coder\n      memory: flow\n",
	),
	"section-not-agent": {
		kind: "file",
		text: "---\nname: t\ndescription: d\ninput: string\nnodes:\n  - id: tests\n    check: .pi/checks/test.sh\n---\n\n## tests\nRun the tests.\n",
	},
	"broken-flow": {
		...n("- id: spec\n  flow: interview\n  input: input\n"),
		note: "when `interview.md` itself does not check.",
	},
	"call-cycle": {
		...n("- id: again\n  flow: t\n  input: input\n"),
		note: "in `t.md` itself: a flow cannot call itself, directly or through others.",
	},
	"flow-input-mismatch": {
		...n("- id: sub\n  flow: typed\n  input: input\n"),
		note: "when `typed.md` takes `input: { goal: string }`.",
	},
	"tools-widen": n("- id: look\n  agent: scout\n  tools: [read, write]\n"),
	"unknown-tool": {
		...n("- id: look\n  agent: fetcher\n"),
		note: "with a project `.pi/agents/fetcher.md` whose `tools:` is `read, fetch_url`.",
	},
	"unknown-skill": n("- id: look\n  agent: scout\n  skills: [pdf-tolls]\n"),
	"skills-without-read": {
		...n("- id: look\n  agent: scout\n  tools: [grep]\n  skills: [pdf-tools]\n"),
		note: "the node keeps `grep` of the agent's tools, so its subagent could not open the skill.",
	},
	"skill-hidden": {
		...n("- id: look\n  agent: archivist\n"),
		note: "with a project `.pi/agents/archivist.md` whose `skills:` names a skill that sets `disable-model-invocation: true`.",
	},
};

/** The example as a whole text for its kind (a flow file for `nodes` and `flow`), for tests and tools. */
export function exampleText(e: FaultExample): string {
	if (e.kind === "nodes")
		return `---\nname: t\ndescription: d\ninput: string\nnodes:\n${e.text.replace(/^(?=.)/gm, "  ")}---\n`;
	if (e.kind === "flow") return `---\n${e.text}---\n`;
	return e.text;
}
