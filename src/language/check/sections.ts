/**
 * The body's rules: exactly one non-empty `## <id>` section per agent (and swarm) node, nothing before
 * the first section, and no section for a node that takes no prose.
 */
import { didYouMean, nearest } from "../../faults/index.ts";
import { type Range, withArticle } from "../../text/index.ts";
import { allNodes, type FlowNode } from "../ast.ts";
import { report, type Walk } from "./walk.ts";

/** Checks the sections and gives each prose node's text by id. */
export function checkSections(w: Walk, refused: ReadonlySet<string>): Map<string, string> {
	const flow = w.flow;
	const prompts = new Map<string, string>();
	const nodes = allNodes(flow.nodes);
	const hasSection = (node: FlowNode) => w.kinds.of(node).section;
	const prose = new Set(nodes.filter(hasSection).map((n) => n.id.value));
	const others = new Map(nodes.filter((n) => !hasSection(n)).map((n) => [n.id.value, n.kind]));
	const seen = new Map<string, Range>();
	if (flow.preamble)
		report(
			w,
			"body-preamble",
			flow.preamble,
			"",
			"text before the first `## <id>` section belongs in `description:` or a YAML comment",
		);
	for (const section of flow.sections) {
		const first = seen.get(section.id);
		if (first) {
			report(w, "section-duplicate", section.headingRange, section.id, `a second \`## ${section.id}\` section`, {
				related: [{ message: "first section", file: flow.file, line: first.start.line, column: first.start.column }],
			});
			continue;
		}
		seen.set(section.id, section.headingRange);
		if (refused.has(section.id)) continue;
		const kind = others.get(section.id);
		if (kind) {
			report(
				w,
				"section-not-agent",
				section.headingRange,
				section.id,
				`\`${section.id}\` is ${withArticle(kind)} node, which takes no section`,
			);
			continue;
		}
		if (!prose.has(section.id)) {
			const near = nearest(section.id, prose);
			report(
				w,
				"section-unknown",
				section.headingRange,
				section.id,
				`the section \`## ${section.id}\` matches no node.${didYouMean(near)}`,
				{ expected: near ? [near] : [] },
			);
			continue;
		}
		if (!section.text) {
			report(w, "section-empty", section.headingRange, section.id, `the section \`## ${section.id}\` has no text`);
			continue;
		}
		prompts.set(section.id, section.text);
	}
	for (const node of nodes) {
		if (hasSection(node) && !seen.has(node.id.value)) {
			const id = node.id.value;
			// `# plan` or `plan` underlined is the section the author meant, at the wrong level.
			const meant = flow.source.otherHeadings.find((h) => h.id === id);
			const shown = meant
				? meant.setext
					? `\`${id}\` underlined with \`${meant.level === 1 ? "=" : "-"}\``
					: `\`${"#".repeat(meant.level)} ${id}\``
				: "";
			report(
				w,
				"section-missing",
				node.id.range,
				node.path,
				`the ${node.kind} node \`${id}\` has no \`## ${id}\` section`,
				{
					hint: meant
						? `Line ${meant.range.start.line} has ${shown}, which is prose: a section's heading is \`## ${id}\`.`
						: node.kind === "swarm"
							? "Add one stating the swarm's goal."
							: "Add one saying what the turn is asked to do.",
					...(meant
						? {
								related: [
									{
										message: `${shown} is not a section`,
										file: flow.file,
										line: meant.range.start.line,
										column: meant.range.start.column,
									},
								],
							}
						: {}),
				},
			);
		}
	}
	return prompts;
}
