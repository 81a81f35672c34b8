/**
 * Flows written in combo's format, in the shapes of its shipped flows (explore, split, interview, build,
 * build-attended), check here unmodified against the shipped agents; and a mistake combo refuses is refused
 * here under the same code, with exactly one fault. The fixtures live in test/fixtures/combo/.
 */
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../../src/agents/index.ts";
import { flowFolder, shipped } from "../helpers.ts";

const dir = join(PACKAGE_ROOT, "test", "fixtures", "combo");
const corpus = Object.fromEntries(
	readdirSync(dir)
		.filter((f) => f.endsWith(".md"))
		.map((f) => [basename(f, ".md"), readFileSync(join(dir, f), "utf8")]),
);

/** The corpus with one file changed, the change asserted to apply exactly once. */
function variant(name: string, from: string, to: string) {
	const text = corpus[name];
	expect(text.split(from).length - 1, `\`${from}\` once in ${name}`).toBe(1);
	return flowFolder({ ...corpus, [name]: text.replace(from, to) });
}

describe("combo's flows check here unmodified", () => {
	it("the roster has the agents combo's flows name", () => {
		for (const name of [
			"scout",
			"planner",
			"reviewer",
			"synthesiser",
			"coder",
			"auditor",
			"interviewer",
			"committer",
		]) {
			expect(shipped.get(name)?.kind, name).toBe("agent");
		}
	});

	it("the corpus holds the five shapes", () => {
		expect(Object.keys(corpus).sort()).toEqual(["build", "build-attended", "explore", "interview", "split"]);
	});

	for (const name of Object.keys(corpus)) {
		it(`${name} checks with no fault`, () => {
			const r = flowFolder(corpus).judgeOne(name);
			expect(r.faults).toEqual([]);
			expect(r.value?.name.value).toBe(name);
		});
	}

	it("build-attended checks its callees whole", () => {
		const r = flowFolder(corpus).judgeOne("build-attended");
		expect([...(r.value?.callees.values() ?? [])].map((c) => c.name.value).sort()).toEqual(["build", "interview"]);
		expect(r.value?.commits).toBe(true);
		expect(r.value?.bound.waits).toBe(true);
	});
});

/** [what, file, written, changed to, the codes combo would give]. */
const broken: [what: string, file: string, from: string, to: string, codes: string[]][] = [
	[
		"among names an agent outside the enum",
		"split",
		"among: [scout, reviewer]",
		"among: [scout, auditor]",
		["among-mismatch"],
	],
	["map-from without max", "split", "    max: 4\n", "", ["missing-key"]],
	[
		"a read of a node that does not exist",
		"split",
		"reads: [input, work]",
		"reads: [input, wrok]",
		["unknown-address"],
	],
	[
		"an ask-from with literal options",
		"interview",
		"                enough:",
		"                options: [a, b]\n                enough:",
		["ask-form-conflict"],
	],
	[
		"memory naming no enclosing node",
		"interview",
		"        memory: flow\n",
		"        memory: talkk\n",
		["unknown-scope"],
	],
	[
		"an ask-from answer compared with a literal",
		"interview",
		"!gate.output.output.answered",
		'gate.output.output.answer == \\"yes\\"',
		["condition-free-string"],
	],
	["concurrent writers without copies", "build", "        copies: true\n", "", ["copies-needed"]],
	[
		"a verdict node with an output",
		"build",
		"                verdict: pair\n",
		"                verdict: pair\n                output: { approved: boolean }\n",
		["verdict-with-output"],
	],
	[
		"retry on a check",
		"build",
		"        timeout: 10m\n",
		"        timeout: 10m\n        retry: 1\n",
		["retry-refused"],
	],
	["a loop without max", "build", "    max: 2\n", "", ["missing-key"]],
	["a section for a check", "build", "\n## audit\n", "\n## tests\n\nRun them.\n\n## audit\n", ["section-not-agent"]],
	[
		"a misspelt field in a loop condition",
		"build",
		"loop: review.output.approved",
		"loop: review.output.aproved",
		["condition-unknown-address"],
	],
	[
		"a commit inside copies",
		"build",
		"                retry: 1\n      - id: tests",
		"                retry: 1\n              - id: save\n                commit: code\n      - id: tests",
		["commit-in-copies"],
	],
	["a name that is not the file's", "explore", "name: explore", "name: explorer", ["name-mismatch"]],
	["a call to a flow that does not exist", "build-attended", "flow: build\n", "flow: biuld\n", ["unknown-flow"]],
	["retry on a call", "build-attended", "    input: input\n", "    input: input\n    retry: 1\n", ["retry-refused"]],
	["a default the card cannot give", "build-attended", "default: true", "default: maybe", ["ask-default-mismatch"]],
	["a call back to the caller", "build-attended", "flow: interview", "flow: build-attended", ["call-cycle"]],
];

describe("broken variants get combo's verdict codes, one fault each", () => {
	for (const [what, file, from, to, codes] of broken) {
		it(`${file}: ${what} → ${codes.join(", ")}`, () => {
			expect(
				variant(file, from, to)
					.judgeOne(file)
					.faults.map((f) => f.code),
			).toEqual(codes);
		});
	}

	it("a callee that breaks is one broken-flow at the call", () => {
		const r = variant("build", "        copies: true\n", "").judgeOne("build-attended");
		expect(r.faults.map((f) => `${f.code} ${f.path}`)).toEqual(["broken-flow gate/work.flow"]);
		expect(r.faults[0].message).toContain("copies-needed");
	});
});
