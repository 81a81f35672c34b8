/**
 * Real indentation and quoting mistakes in a flow's frontmatter, each as the edit that makes it from a flow
 * that checks, the line and column the fault must stand on (the line the person must change), and the
 * words the message must hold (the column a key should start at, or the fix).
 */
export interface YamlMistakeCase {
	name: string;
	/** Which flow the mistake is made in. */
	base: "triage" | "review";
	from: string;
	to: string;
	line: number;
	column: number;
	says: string[];
}

export const YAML_MISTAKES: YamlMistakeCase[] = [
	{ name: "a key indented under a key that has its value", base: "review", from: "    agent: planner\n    reads: [input]", to: "    agent: planner\n      reads: [input]", line: 8, column: 7, says: ["`reads:`", "start it at column 5", "under `agent:`"] },
	{ name: "a key one space too deep", base: "review", from: "    agent: planner\n    reads: [input]", to: "    agent: planner\n     reads: [input]", line: 8, column: 6, says: ["start it at column 5"] },
	{ name: "a node key un-indented to the list's column", base: "review", from: "    concurrency: 3\n    do:", to: "    concurrency: 3\n  do:", line: 14, column: 3, says: ["`do:`", "the keys of this item start at column 5", "`concurrency:` on line 13"] },
	{ name: "a node key between two columns", base: "review", from: "    concurrency: 3\n    do:", to: "    concurrency: 3\n   do:", line: 14, column: 4, says: ["`do:` starts at column 4", "start at column 5"] },
	{ name: "a top-level key indented", base: "review", from: "input: string", to: "  input: string", line: 4, column: 3, says: ["`input:`", "start it at column 1"] },
	{ name: "a nested node's key too deep", base: "review", from: "        agent: reviewer", to: "          agent: reviewer", line: 16, column: 11, says: ["`agent:`", "start it at column 9", "under `id:`"] },
	{ name: "a nested node's key too shallow", base: "review", from: "        agent: reviewer", to: "       agent: reviewer", line: 16, column: 8, says: ["`agent:` starts at column 8", "start at column 9"] },
	{ name: "a loop's key too deep in the triage flow", base: "triage", from: "            max: 3", to: "              max: 3", line: 16, column: 15, says: ["`max:`", "start it at column 13"] },
	{ name: "a case's do: un-indented", base: "triage", from: "      - when: scout.output.severity == \"high\"\n        do:", to: "      - when: scout.output.severity == \"high\"\n      do:", line: 13, column: 7, says: ["`do:`", "the keys of this item start at column 9"] },
	{ name: "default: indented into the case list", base: "triage", from: "    default:", to: "      default:", line: 26, column: 7, says: ["`default:`", "or the keys beside the list at column 5, as `choice:` on line 11"] },
	{ name: "a tab in the indentation", base: "review", from: "    reads: [input]\n    output", to: "\treads: [input]\n    output", line: 8, column: 1, says: ["tab", "spaces only"] },
	{ name: "a condition that starts with a quoted part", base: "triage", from: "when: scout.output.severity == \"high\"", to: "when: \"high\" == scout.output.severity", line: 12, column: 15, says: ["quote the whole value", "'\"high\" == scout.output.severity'"] },
	{ name: "a description holding `: `", base: "review", from: "description: A planner lists the files to review; each is reviewed; a synthesiser sums up.", to: "description: Review: a planner lists the files", line: 3, column: 20, says: ["holds `: `", "quote the whole value"] },
	{ name: "a quote never closed", base: "review", from: "description: A planner lists the files to review; each is reviewed; a synthesiser sums up.", to: "description: \"A planner lists the files", line: 3, column: 14, says: ["never closed"] },
	{ name: "a reads list never closed", base: "review", from: "    reads: [input]\n    output", to: "    reads: [input\n    output", line: 8, column: 12, says: ["never closed with `]`"] },
	{ name: "a value starting with a backtick", base: "review", from: "description: A planner lists the files to review; each is reviewed; a synthesiser sums up.", to: "description: `review` lists files", line: 3, column: 14, says: ["cannot start with `` ` ``", "quote the value"] },
	{ name: "a value starting with @", base: "review", from: "    agent: planner", to: "    agent: @planner", line: 7, column: 12, says: ["cannot start with `@`"] },
	{ name: "a missing space after a colon", base: "review", from: "    agent: planner", to: "    agent:planner", line: 7, column: 5, says: ["needs a space after the colon", "`agent: planner`"] },
	{ name: "a missing colon", base: "review", from: "    agent: planner", to: "    agent planner", line: 7, column: 5, says: ["not a `key: value` pair", "`agent: planner`"] },
	{ name: "a flow list followed by text", base: "review", from: "    reads: [input]\n    output", to: "    reads: [input] and more\n    output", line: 8, column: 12, says: ["followed by `and more`"] },
	{ name: "a when: that is a quoted word and more", base: "triage", from: "when: scout.output.severity == \"high\"", to: "when: 'high' == scout.output.severity", line: 12, column: 15, says: ["quote the whole value"] },
	{ name: "an output type holding `: ` outside braces", base: "review", from: "    output: { files: [string] }", to: "    output: files: [string]", line: 9, column: 18, says: ["holds `: `"] },
	{ name: "a list item's dash too deep", base: "review", from: "  - id: each", to: "    - id: each", line: 10, column: 5, says: ["start its `-` at column 3", "line 6"] },
];
