/**
 * The language's behaviour as data, to hold two trees byte for byte: per generated flow, one JSON line with
 * its faults, or its plan, bounds, Mermaid and report SVG. Run it on two checkouts and `cmp` the outputs; a
 * refactor that changes nothing a user sees prints the same file. Kinds named in `--exclude` (kind keys)
 * are never generated, so a tree that gained a kind compares against one that has not.
 *
 *   node fuzz/compare.ts 5000 [--exclude wait,wait-from] > out.jsonl
 */
import { join, relative } from "node:path";
import { tmpdir } from "node:os";
import { loadRoster, PACKAGE_ROOT } from "../src/agents/index.ts";
import { catalogueOptions, checkFlowText, type LoadOptions } from "../src/load/index.ts";
import { mermaidOf, planOf, showPlan } from "../src/language/render/index.ts";
import { graphSvg } from "../src/report/graph.ts";
import { generateFlow } from "./flows.ts";
import { Rng } from "./rng.ts";

const count = Number(process.argv[2] ?? 5000);
const excludeAt = process.argv.indexOf("--exclude");
const exclude = excludeAt > 0 ? (process.argv[excludeAt + 1] ?? "").split(",").filter(Boolean) : [];

const nowhere = join(tmpdir(), "pi-flows-fuzz-nowhere");
const env: NodeJS.ProcessEnv = { PI_CODING_AGENT_DIR: join(nowhere, "agent") };
const scope = { user: false, project: false };
const roster = loadRoster(nowhere, scope, env);
const options: LoadOptions = { ...catalogueOptions(nowhere, scope, env), cache: new Map() };
const SLIPS = [0, 0, 0.02, 0.1, 0.3];

// `generateFlow` takes no exclusion on a tree without it; the extra argument is ignored there.
const generate = generateFlow as (
	r: Rng,
	name: string,
	size: number,
	slips: number,
	exclude?: readonly string[],
) => {
	text: string;
};

for (let i = 0; i < count; i++) {
	const r = new Rng(i + 1);
	const size = 1 + (i % 12);
	const slips = SLIPS[i % SLIPS.length];
	const { text } = exclude.length ? generate(r, "gen", size, slips, exclude) : generate(r, "gen", size, slips);
	const line: Record<string, unknown> = { i };
	try {
		const out = checkFlowText(text, "gen.md", roster, options);
		line.faults = out.faults.map((f) => [f.code, f.line, f.column, f.path, f.message]);
		const flow = out.value;
		if (flow) {
			line.plan = showPlan(planOf(flow, { file: "gen.md", display: (p) => relative(PACKAGE_ROOT, p) }));
			line.bounds = [flow.bound, [...flow.bounds]];
			line.mermaid = mermaidOf(flow);
			line.svg = graphSvg(flow, new Map());
		}
	} catch (e) {
		line.threw = String(e);
	}
	// The checkout's own place is no behaviour: two trees print the same paths.
	process.stdout.write(`${JSON.stringify(line).replaceAll(PACKAGE_ROOT, "<root>")}\n`);
}
