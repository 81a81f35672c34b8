/**
 * One scope model: the checker resolves every address once, and the evaluator and the language server take
 * that resolution instead of deciding again. Over the shipped flows, the combo corpus and a fixture that
 * reads every kind of binding: every address the flow holds is in the checker's table, bound to what its
 * first name names; go-to-definition lands on the node the checker bound and hover shows the checker's
 * type; and a run looks up only addresses the checker resolved, reading the values those bindings name.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadRoster, PACKAGE_ROOT } from "../../src/agents/index.ts";
import { allNodes, type CheckedFlow, type Resolved, typeToString } from "../../src/language/index.ts";
import { resolveModels } from "../../src/engine/index.ts";
import { runFlow } from "../../src/kinds/run.ts";
import { catalogueOptions, checkFlowText, type Judged } from "../../src/load/index.ts";
import type { AddressExpr } from "../../src/language/syntax/index.ts";
import { definitionAt } from "../../src/lsp/definition.ts";
import { hoverAt } from "../../src/lsp/hover.ts";
import { idSpans } from "../../src/lsp/locate.ts";
import type { FlowEvent } from "../../src/runtime/events.ts";
import { countingSpawn, scriptedHost } from "../helpers/host.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

/** A flow that reads each kind of binding: input, nested items, records and their parts, a loop's carry and previous turns, a condition's own names. */
const EVERY_BINDING = `---
name: bindings
description: every kind of binding, read at run time
input: string
nodes:
  - id: plan
    agent: planner
    reads: [input]
    output: { tasks: [{ text: string, parts: [string] }] }
  - id: each
    map-from: plan.output.tasks
    max: 3
    do:
      - id: inner
        map-from: item.parts
        max: 3
        do:
          - id: act
            agent: scout
            reads: [item, plan.output.tasks, input]
  - id: round
    loop: review.output.approved && size(round.carry.tasks) >= 0 && code.ok
    max: 2
    carry: { first: plan.output, next: plan.output }
    do:
      - id: code
        agent: coder
        reads: [round.carry.tasks, round.previous.review, each]
      - id: review
        agent: reviewer
        reads: [code, code.handoff]
        output: { approved: boolean }
  - id: gate
    choice:
      - when: plan.ok && plan.output.tasks.all(t, size(t.parts) > 0) && round.output.iterations == 1 && has(round.output.last)
        do:
          - id: fin
            agent: synthesiser
            reads: [round, input, plan.error]
    default: []
---

## plan
Plan.

## act
Act.

## code
Code.

## review
Review.

## fin
Finish.
`;

const SCRIPT = `turns:
  plan:
    - call: submit
      args: { tasks: [{ text: a, parts: [a1, a2] }, { text: b, parts: [b1] }] }
  "each[1]/inner[1]/act":
    - say: act a1
  "each[1]/inner[2]/act":
    - say: act a2
  "each[2]/inner[1]/act":
    - say: act b1
  "round#1/code":
    - say: coded
  "round#1/review":
    - call: submit
      args: { approved: true }
  "gate/fin":
    - say: done
`;

/** Every address of a parsed condition or address, with the names a macro binds inside it left out. */
function addressesIn(x: unknown, bound: ReadonlySet<string>, out: AddressExpr[], seen = new Set<object>()): void {
	if (!x || typeof x !== "object" || seen.has(x)) return;
	seen.add(x);
	const o = x as { kind?: unknown; segments?: unknown; variable?: { name: string }; target?: unknown; body?: unknown };
	if (o.kind === "address" && Array.isArray(o.segments)) {
		const expr = x as AddressExpr;
		if (!bound.has(expr.segments[0].name)) out.push(expr);
		return;
	}
	if (o.kind === "macro" && o.variable) {
		addressesIn(o.target, bound, out, seen);
		addressesIn(o.body, new Set([...bound, o.variable.name]), out, seen);
		return;
	}
	for (const v of Array.isArray(x) ? x : Object.values(x)) addressesIn(v, bound, out, seen);
}

/** The addresses a checked flow holds, node by node (callees are flows of their own). */
function addressesOf(flow: CheckedFlow): AddressExpr[] {
	const out: AddressExpr[] = [];
	for (const node of allNodes(flow.nodes)) {
		const { body: _b, cases: _c, otherwise: _o, branches: _r, ...own } = node as unknown as Record<string, unknown>;
		addressesIn(own, new Set(), out);
		if (node.kind === "choice") for (const c of node.cases) addressesIn(c.when, new Set(), out);
		if (node.kind === "parallel") for (const b of node.branches) addressesIn({ ...b, body: [] }, new Set(), out);
	}
	return [...new Set(out)];
}

/** What the first name of `expr` names, as a person reads the address. */
function named(expr: AddressExpr, r: Resolved): string | undefined {
	const head = expr.segments[0].name;
	switch (r.binding.kind) {
		case "input":
		case "diff":
			return head === r.binding.kind ? head : `wrong: ${r.binding.kind} for ${head}`;
		case "item":
			return head === "item" ? r.binding.map : `wrong: item for ${head}`;
		default:
			return r.binding.id === head ? head : `wrong: ${r.binding.id} for ${head}`;
	}
}

const roster = loadRoster(PACKAGE_ROOT, {}, { ...process.env, PI_CODING_AGENT_DIR: "/nonexistent" });

function judged(file: string, text: string): Judged & { value: CheckedFlow } {
	const j = checkFlowText(text, file, roster, catalogueOptions(PACKAGE_ROOT, {}, process.env));
	if (!j.value) throw new Error(`${file} does not check: ${j.faults.map((f) => f.message).join("; ")}`);
	return j as Judged & { value: CheckedFlow };
}

const corpus = [
	...readdirSync(join(PACKAGE_ROOT, "flows"))
		.filter((f) => f.endsWith(".md"))
		.map((f) => join(PACKAGE_ROOT, "flows", f)),
	...readdirSync(join(PACKAGE_ROOT, "test", "fixtures", "combo"))
		.filter((f) => f.endsWith(".md"))
		.map((f) => join(PACKAGE_ROOT, "test", "fixtures", "combo", f)),
].map((file) => ({ file, text: readFileSync(file, "utf8") }));
corpus.push({ file: join(PACKAGE_ROOT, "flows", "bindings.md"), text: EVERY_BINDING });

describe("one scope model", () => {
	it.each(corpus.map((c) => [c.file.slice(PACKAGE_ROOT.length + 1), c]))(
		"%s: the checker resolved every address, binding what its first name names",
		(_name, { file, text }) => {
			const { value: flow } = judged(file, text);
			const addresses = addressesOf(flow);
			expect(addresses.length).toBeGreaterThan(0);
			for (const expr of addresses) {
				const r = flow.resolutions.get(expr);
				const text = expr.segments.map((s) => s.name).join(".");
				expect(r, `${text} at ${expr.range.start.line}:${expr.range.start.column}`).toBeDefined();
				expect(named(expr, r as Resolved) ?? "", text).not.toMatch(/^wrong/);
			}
			expect(flow.resolutions.size).toBe(addresses.length);
		},
	);

	it.each(corpus.map((c) => [c.file.slice(PACKAGE_ROOT.length + 1), c]))(
		"%s: definition lands on the checker's binding and hover shows the checker's type",
		(_name, { file, text }) => {
			const j = judged(file, text);
			const world = {
				uri: "file:///flow.md",
				roster,
				flows: () => [],
				flow: j.value,
				...(j.scopes ? { scopes: j.scopes } : {}),
			};
			const ids = idSpans(text);
			const lines = text.split("\n");
			let asked = 0;
			for (const [expr, r] of j.value.resolutions) {
				const head = expr.segments[0];
				const last = expr.segments[expr.segments.length - 1];
				const line = head.range.start.line - 1;
				const character = head.range.start.column - 1;
				// Addresses written in the frontmatter as they are parsed (a `chain:` step's are generated text).
				if (lines[line]?.slice(character, character + head.name.length) !== head.name) continue;
				asked++;
				const target = named(expr, r);
				const want = target && target !== "input" && target !== "diff" ? ids.get(target) : undefined;
				const got = definitionAt(text, line, character, world);
				const where = `${expr.segments.map((s) => s.name).join(".")} at ${line + 1}:${character + 1}`;
				expect(got?.range, where).toEqual(
					want
						? { start: { line: want.line, character: want.start }, end: { line: want.line, character: want.end } }
						: undefined,
				);
				if (last.range.start.line !== head.range.start.line) continue;
				const hover = hoverAt(text, line, last.range.start.column - 1, world);
				const shown =
					hover && typeof hover.contents === "object" && "value" in hover.contents ? hover.contents.value : "";
				expect(shown, where).toContain(`\`${typeToString(r.type)}\``);
			}
			expect(asked).toBeGreaterThan(0);
		},
	);

	describe("at run time", () => {
		let project: TempProject;
		beforeEach(() => {
			project = tempProject();
		});
		afterEach(() => project.cleanup());

		it("a run looks up only addresses the checker resolved, and reads what their bindings name", async () => {
			const file = project.write(".pi/flows/bindings.md", EVERY_BINDING);
			const projectRoster = loadRoster(project.cwd, { project: true }, project.env);
			const checked = checkFlowText(
				EVERY_BINDING,
				file,
				projectRoster,
				catalogueOptions(project.cwd, { project: true }, project.env),
			).value as CheckedFlow;
			expect(checked).toBeDefined();
			const looked: AddressExpr[] = [];
			const missed: AddressExpr[] = [];
			const recorded = checked.resolutions;
			const spy = new Map(recorded);
			spy.get = (expr: AddressExpr) => {
				const r = recorded.get(expr);
				(r ? looked : missed).push(expr);
				return r;
			};
			Object.assign(checked, { resolutions: spy });
			const host = await scriptedHost(project, SCRIPT);
			const models = resolveModels(checked, host.resolveModel, "scripted");
			if (!models.ok) throw new Error(models.errors.join("\n"));
			const events: FlowEvent[] = [];
			const result = await runFlow(checked, "the goal", {
				spawn: countingSpawn(host).spawn,
				models: models.models,
				cwd: project.cwd,
				retryBackoffMs: 1,
				onEvent: (e) => events.push(e),
			});
			expect(result).toMatchObject({ ok: true });
			expect(missed).toEqual([]);
			// Every address of the flow but `plan.error` (read only while `plan` failed) was looked up.
			const texts = new Set(looked.map((e) => e.segments.map((s) => s.name).join(".")));
			for (const want of [
				"input",
				"plan.output.tasks",
				"item.parts",
				"item",
				"round.carry.tasks",
				"round.previous.review",
				"review.output.approved",
				"code.ok",
				"code.handoff",
				"plan.ok",
				"round.output.last",
				"each",
			])
				expect(texts, want).toContain(want);
			const ends = events.filter((e) => e.type === "node_end");
			expect(ends.map((e) => e.node)).toContain("fin");
		});
	});
});
