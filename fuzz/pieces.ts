/**
 * Generators of the flow language's small texts: conditions, addresses, durations, types, chains,
 * scripts, handoff documents, prose, and the edits people make to any text. Each is mostly well-formed,
 * because a parser refusing its first character tests nothing past it, and wrong in the ways people are
 * wrong often enough to reach every refusal.
 */
import {
	type CreateNodeOptions,
	type DocumentOptions,
	type SchemaOptions,
	stringify,
	type ToStringOptions,
} from "yaml";
import type { HandoffDocument } from "../src/handoff/document.ts";
import type { Rng } from "./rng.ts";

/** Characters that break parsers: quotes, escapes, line breaks of every kind, wide and lone code units. */
export const ODD = [
	"\\",
	'"',
	"'",
	"`",
	"\n",
	"\r\n",
	"\r",
	"\t",
	"\u0000",
	"\uFEFF",
	"é",
	"😀",
	"\uD800",
	"\u2028",
	"#",
	":",
	"{",
	"}",
	"[",
	"]",
	"&",
	"*",
	"!",
	"|",
	">",
	"%",
	"@",
	"-",
	" ",
];

export const READERS = ["scout", "reviewer", "planner", "synthesiser", "auditor"];
export const AGENTS = [...READERS, "coder", "worker", "committer", "interviewer"];
export const TYPOS = ["scuot", "reveiwer", "Scout", "sc-out", "", "nobody", "ask-next"];
export const RESERVED = [
	"input",
	"item",
	"diff",
	"output",
	"ok",
	"error",
	"previous",
	"carry",
	"ledger",
	"handoff",
	"if",
	"in",
	"loop",
	"null",
	"true",
];

/** The typed output conditions can read: every kind of field a condition compares. */
export const TYPED =
	"{ ok: boolean, n: number, s: approved | rejected, who: scout | reviewer, q: Question, items: [string], notes?: string }";
export const TYPED_FIELDS = ["ok", "n", "s", "who", "q", "items", "notes"];

function oddText(r: Rng, max = 4): string {
	let s = "";
	const n = r.between(1, max);
	for (let i = 0; i < n; i++) s += r.pick(ODD);
	return s;
}

/** A name a condition reads: mostly a declared one, sometimes a typo, a reserved word or junk. */
function nameOf(r: Rng, names: readonly string[]): string {
	return r.weighted<() => string>([
		[8, () => (names.length ? r.pick(names) : "input")],
		[1, () => r.pick(["input", "item", "diff"])],
		[1, () => r.pick([...TYPOS, ...RESERVED, "a-b", "9x", "_", "x".repeat(r.between(1, 40))])],
	])();
}

/** `plan.output.s`, `item.task`, `x.ok`: an address over the names in scope. */
export function address(r: Rng, names: readonly string[]): string {
	const head = nameOf(r, names);
	const tail = r.weighted<() => string>([
		[3, () => ""],
		[4, () => `.output.${r.pick(TYPED_FIELDS)}`],
		[
			2,
			() =>
				r.pick([
					".ok",
					".error",
					".error.kind",
					".error.message",
					".output",
					".handoff.status",
					".previous",
					".carry",
					".ledger",
				]),
		],
		[1, () => `.${r.pick(["output", "a", "b", "task", "worker"])}.${r.pick(["x", "y", "output", "size"])}`],
		[1, () => r.pick(["..", ".", ". x", ".1", "[0]", "(x)", ".-a", oddText(r, 2)])],
	])();
	return head + tail;
}

const NUMBERS = ["0", "1", "2", "10", "1.5", "1e3", "2E-2", "007", "1.", ".5", "99999999999999999999", "1e999"];
const STRINGS = ['"approved"', '"rejected"', "'x'", '""', '"a\\"b"', "'\\n'", '"é😀"', '"unclosed', "'bad\\q'"];

/**
 * A condition, `depth` levels deep at most. Nesting stays shallow on purpose: deep nesting is refused
 * past 32 levels, and has a target of its own.
 */
export function condition(r: Rng, names: readonly string[], depth = 3): string {
	if (depth <= 0 || r.chance(0.3)) {
		return r.weighted<() => string>([
			[6, () => address(r, names)],
			[2, () => r.pick(NUMBERS)],
			[2, () => r.pick(STRINGS)],
			[2, () => r.pick(["true", "false"])],
			[1, () => `[${Array.from({ length: r.int(4) }, () => r.pick([...NUMBERS, ...STRINGS])).join(", ")}]`],
			[1, () => r.pick(["null", "?", "=", "x = 1", "a ? b : c", "{}", "size", "has(", "-", "!", "&&"])],
		])();
	}
	const sub = () => condition(r, names, depth - 1);
	return r.weighted<() => string>([
		[
			5,
			() =>
				`${sub()} ${r.pick(["&&", "||", "==", "!=", "<", "<=", ">", ">=", "in", "+", "-", "*", "/", "%"])} ${sub()}`,
		],
		[1, () => `${sub()}${r.pick(["&&", "==", "<", "+"])}${sub()}`],
		[2, () => `(${sub()})`],
		[1, () => `${r.pick(["!", "-", "!!", "- "])}${sub()}`],
		[2, () => `size(${sub()})`],
		[1, () => `has(${address(r, names)})`],
		[2, () => `${address(r, names)}.${r.pick(["contains", "startsWith", "endsWith"])}(${sub()})`],
		[2, () => `${address(r, names)}.${r.pick(["all", "exists"])}(${r.pick(["v", "t", "item", "if"])}, ${sub()})`],
		[1, () => `${r.pick(["len", "sizes", "count", "Size"])}(${sub()})`],
		[1, () => `${address(r, names)}.${r.pick(["contain", "matches", "all"])}(${sub()})`],
		[1, () => `${sub()} ${r.pick(["and", "or", "&", "|", "===", "=>", "=<", "!"])} ${sub()}`],
		[1, () => `${sub()}${oddText(r)}`],
		[1, () => `(${sub()}`],
	])();
}

const UNITS = ["d", "h", "m", "s", "ms"];

/** A duration: compound parts largest first, or the mistakes people make with them. */
export function duration(r: Rng): string {
	return r.weighted<() => string>([
		[
			5,
			() => {
				let out = "";
				for (const unit of UNITS) if (r.chance(0.4)) out += `${r.between(1, r.pick([9, 59, 999, 99999]))}${unit}`;
				return out || `${r.between(1, 90)}s`;
			},
		],
		[
			2,
			() =>
				`${r.pick(["0", "00", "01", "1", "1.5", "-1", "+1", "1,5", "9007199254740993", "999999999999999999999"])}${r.pick([...UNITS, "", "sec", "min", "hours", "D", "H", "M", "S", "y", "µs"])}`,
		],
		[1, () => `${r.between(1, 9)}${r.pick(UNITS)}${r.pick([" ", "  ", "\t", ""])}${r.between(1, 9)}${r.pick(UNITS)}`],
		[1, () => `${r.between(1, 9)}${r.pick(UNITS)}${r.between(1, 9)}${r.pick(UNITS)}${r.between(1, 9)}${r.pick(UNITS)}`],
		[1, () => r.pick(["", " ", "1", "s", "h1", "1hh", "1m1m", "1s1m", "1d1d", "1ms1s", "∞", "1e3s", "0x10s", "１s"])],
		[1, () => `${oddText(r, 3)}${r.between(1, 9)}s`],
	])();
}

/** A type in the short or the long notation, or something that is neither. */
export function typeText(r: Rng, depth = 2): string {
	if (depth <= 0 || r.chance(0.35)) {
		return r.weighted<() => string>([
			[6, () => r.pick(["string", "number", "boolean", "Question"])],
			[
				3,
				() =>
					Array.from({ length: r.between(1, 4) }, () =>
						r.pick(["a", "b", "approved", "rejected", "x y", "1", "a|b"]),
					).join(" | "),
			],
			[1, () => r.pick(["any", "null", "String", "int", "object", "[]", "{}", "[string, number]", "", "string?"])],
		])();
	}
	const sub = () => typeText(r, depth - 1);
	return r.weighted<() => string>([
		[3, () => `[${sub()}]`],
		[
			4,
			() =>
				`{ ${Array.from({ length: r.between(1, 3) }, (_, i) => `${r.pick(["a", "b", "ok", "task", "worker", "9x", "a-b", "if"])}${i}${r.chance(0.2) ? "?" : ""}: ${sub()}`).join(", ")} }`,
		],
		[
			1,
			() =>
				`{ json-schema: { type: ${r.pick(["object", "array", "string", "number", "boolean", "integer", "null"])}${r.chance(0.5) ? `, items: { type: string }` : ""}${r.chance(0.5) ? `, properties: { a: { type: string } }, required: [a]` : ""}${r.chance(0.3) ? ", enum: [x, y]" : ""}${r.chance(0.2) ? ", oneOf: []" : ""} } }`,
		],
	])();
}

/** A chain: `@agent -> flow:name -> "goal"` with flags; each piece wrong with chance `slips`. */
export function chainText(r: Rng, slips = 0.15): string {
	const wrong = () => r.chance(slips);
	const ref = () =>
		wrong()
			? r.pick([
					"scout",
					"@",
					"@@a",
					"@a:b:c",
					"->",
					"--",
					"é",
					"😀",
					"\u0000",
					"flow:",
					"flow:a b",
					"template:../x",
					"template:/etc/passwd",
					"template:a\\b",
					"template:..",
					'""',
					'"unclosed',
					'"glued"x',
					"@a-",
					"@-a",
				])
			: r.weighted<() => string>([
					[5, () => `@${r.pick([...AGENTS, "a.b", "a-b", "x_1"])}${r.chance(0.2) ? `:${r.pick(["one", "two"])}` : ""}`],
					[1, () => `flow:${r.pick(["explore", "split", "x"])}`],
					[1, () => `template:${r.pick(["review", "review/deep", "a.b"])}`],
					[
						2,
						() => r.pick(['"find the bug"', "'say \\'hi\\''", '"multi\nline"', '"-> not a step"', "'@not an agent'"]),
					],
				])();
	const flag = () =>
		wrong()
			? r.pick([
					"--model x",
					"--model a/",
					"--model /b",
					"--model a/b:loud",
					"--retry -1",
					"--retry x",
					"--retry 1.5",
					"--retry 99999999999999999999",
					`--timeout ${duration(r)}`,
					"--thinking loud",
					"--skill",
					"--unknown",
					"-m",
					"--model",
					"--retry=1",
					"--budget-warning 200",
				])
			: r.weighted<() => string>([
					[3, () => `--model ${r.pick(["anthropic/claude-sonnet-4-5", "a/b:high", "p/m:xhigh", "openai/gpt-5/mini"])}`],
					[2, () => `--retry ${r.between(0, 3)}`],
					[2, () => `--timeout ${r.pick(["90s", "10m", "1h30m", "500ms"])}`],
					[1, () => `--thinking ${r.pick(["off", "low", "high", "xhigh", "fast", "deep"])}`],
					[1, () => `--skill ${r.pick(["review", "lint"])}`],
					[1, () => "--continue-on-error"],
				])();
	const global = () =>
		wrong()
			? r.pick(["--budget-total 100 --budget-warning 200", "--global-model", "--max-history -1", "--backoff x"])
			: r.pick([
					"--continue-on-error",
					"--global-model a/b",
					"--budget-total 100",
					"--budget-total 100 --budget-warning 50",
					"--backoff 1s",
					"--max-history 3",
					"--retry 2",
				]);
	const steps: string[] = [];
	const n = r.between(1, 5);
	for (let i = 0; i < n; i++) {
		let step = ref();
		// A flag given twice on a step is a refusal of its own; the well-formed path gives each once.
		const seen = new Set<string>();
		for (let j = r.int(3); j > 0; j--) {
			const f = flag();
			const name = f.split(" ")[0];
			if (seen.has(name) && !wrong()) continue;
			seen.add(name);
			step += ` ${f}`;
		}
		steps.push(step);
	}
	const sep = () =>
		wrong() ? r.pick(["->", " → ", " - > ", "\n-> ", " >> ", " -> -> "]) : r.pick([" -> ", " ->\n", "\n-> "]);
	let text = steps.reduce((all, step) => `${all}${sep()}${step}`);
	if (r.chance(0.2)) text += ` -- ${global()}`;
	if (wrong()) text = `${text}${oddText(r)}`;
	return text;
}

/** A scripted-model script: turns of steps with every key; each piece wrong with chance `slips`. */
export function scriptText(r: Rng, ids: readonly string[], slips = 0.15): string {
	const wrong = () => r.chance(slips);
	const step = (): unknown =>
		wrong()
			? r.pick<unknown>([
					"",
					1,
					null,
					[],
					{ sya: "typo" },
					{ say: "a", fail: "b" },
					{ say: "a", hang: true },
					{},
					{ args: {} },
					{ call: "read", args: "x" },
					{ call: "read", args: [1] },
					{ calls: [{ name: 1 }] },
					{ calls: "read" },
					{ calls: [{ args: {} }] },
					{ hang: "yes" },
					{ say: "x", length: 1 },
					{ say: "x", delay: -1 },
					{ say: "x", delay: "1s" },
					{ say: ["a"] },
				])
			: r.weighted<() => unknown>([
					[
						4,
						() => ({
							say: r.pick([
								"ok",
								"{{task}}",
								"{{result|lines:3}}",
								"{{section:plan}}",
								"{{messages}}",
								"a: b",
								"",
								"é😀",
							]),
						}),
					],
					[1, () => r.pick(["plain step", "{{task|lines:1}}"])],
					[
						2,
						() => ({
							call: r.pick(["read", "submit", "bash", "verdict", "finish"]),
							args: r.pick([{ path: "README.md", limit: 60 }, { ok: true }, {}]),
						}),
					],
					[1, () => ({ say: "two", calls: [{ name: "read", args: { path: "a" } }, { name: "ls" }] })],
					[1, () => ({ fail: r.pick(["rate limited", 429]) })],
					[1, () => ({ hang: true })],
					[1, () => ({ say: "x", length: true })],
					[1, () => ({ say: "x", delay: r.pick([0, 10]) })],
					[1, () => ({ thinking: "hmm", say: "x" })],
				])();
	const turns: Record<string, unknown> = {};
	for (let i = r.between(0, 4); i > 0; i--) {
		const key = wrong()
			? r.pick(["", "unknown", "a b", "😀", "#1", "[0]"])
			: r.weighted<() => string>([
					[5, () => (ids.length ? r.pick(ids) : "look")],
					[2, () => r.pick(["*", "deliver#2/code", "work[1]/act", "deliver/work/code"])],
				])();
		turns[key] = wrong()
			? r.pick<unknown>(["x", 1, { say: "x" }, null])
			: Array.from({ length: r.between(1, 4) }, step);
	}
	const doc: Record<string, unknown> = wrong() && r.chance(0.3) ? {} : { turns };
	if (r.chance(0.2)) doc.contextWindow = wrong() ? r.pick<unknown>([0, -1, 1.5, "big"]) : 32000;
	if (r.chance(0.2)) doc.latencyMs = wrong() ? r.pick<unknown>([-1, "x"]) : r.pick([0, 50]);
	if (wrong() && r.chance(0.2)) doc[r.pick(["turn", "Turns", "steps"])] = {};
	return stringify(doc, yamlOptions(r));
}

/** Options of the YAML printer: most texts plain and block, some in every other style the reader meets. */
export function yamlOptions(r: Rng): DocumentOptions & SchemaOptions & CreateNodeOptions & ToStringOptions {
	return {
		lineWidth: r.weighted<number>([
			[6, 0],
			[1, 20],
			[1, 60],
		]),
		minContentWidth: 0,
		indent: r.weighted<number>([
			[6, 2],
			[1, 4],
			[1, 3],
		]),
		indentSeq: r.chance(0.8),
		collectionStyle: r.weighted<"any" | "block" | "flow">([
			[6, "any"],
			[1, "block"],
			[1, "flow"],
		]),
		defaultStringType: r.weighted<"PLAIN" | "QUOTE_DOUBLE" | "QUOTE_SINGLE" | "BLOCK_LITERAL" | "BLOCK_FOLDED">([
			[12, "PLAIN"],
			[1, "QUOTE_DOUBLE"],
			[1, "QUOTE_SINGLE"],
			[1, "BLOCK_LITERAL"],
			[1, "BLOCK_FOLDED"],
		]),
		defaultKeyType: r.weighted<"PLAIN" | "QUOTE_DOUBLE" | null>([
			[10, null],
			[1, "QUOTE_DOUBLE"],
		]),
	};
}

/** Prose that stays one section: Markdown that holds `##` without being a heading, and odd characters. */
const PROSE = [
	"Find what in this repository answers the question under `input`.",
	"Read the plan under `plan` and report.",
	"### A sub-heading\n\nStill prose.",
	"```sh\n## not a heading\necho $(touch pwned)\n```",
	"~~~\n## fenced\n~~~",
	"- a list\n- of things\n  - nested",
	"> a quote\n> ## inside",
	"A line with `code`, *emphasis*, [a link](x) and <b>html</b>.",
	"Trailing spaces   \nand a hard break.",
	"#not-a-heading and ##also-not",
	"| a | b |\n| - | - |\n| 1 | 2 |",
	"é😀 and \u2028 and a tab\tinside.",
];

/** Prose that opens another section or none: what people trip over in Markdown. */
const TRICKY = [
	"  ## indented heading",
	"Setext heading\n---",
	"## ",
	"#",
	"<!-- ## hidden -->",
	"    ## indented code",
	"## two\n## headings",
];

/** The prose of one section; with `tricky`, sometimes Markdown that is not what it looks like. */
export function prose(r: Rng, tricky = false): string {
	return Array.from({ length: r.between(1, 3) }, () => (tricky && r.chance(0.3) ? r.pick(TRICKY) : r.pick(PROSE))).join(
		"\n\n",
	);
}

/** A handoff document with any text in its values, for the round trip. */
export function handoffDoc(r: Rng): HandoffDocument {
	const text = () =>
		r.weighted<() => string>([
			[5, () => r.pick(["Parser done.", "Wrote the checker; tests pass.", "x", ""])],
			[
				2,
				() =>
					r.pick([
						"two\nlines",
						"## Status\ndone",
						"---",
						"\\escaped",
						"(none)",
						"(none — chain ends here)",
						"- a bullet",
						"  indented",
						"trailing\n",
						"\n\nleading",
						"a\r\nb",
						"é😀",
					]),
			],
			[1, () => oddText(r, 6)],
		])();
	const list = () => Array.from({ length: r.int(4) }, text);
	const doc: HandoffDocument = {
		status: r.pick(["done", "partial", "blocked", "in-progress"] as const),
		summary: text(),
		decisions: list(),
		artifacts: list(),
		writtenAt: r.pick(["2025-01-01T00:00:00.000Z", "", " padded ", '"quoted', "line\nbreak", "é"]),
		by: r.pick(["finish", "checkpoint"] as const),
	};
	if (r.chance(0.6)) doc.next_task = text();
	if (r.chance(0.4)) doc.blocked = text();
	if (r.chance(0.4)) doc.session = r.pick(["/tmp/s.jsonl", "", "a b", '"x"', "tab\there"]);
	if (r.chance(0.4)) doc.contextAtWrite = r.pick([0, 0.42, 1, 0.1 + 0.2, 1e-7, 123456789.5]);
	return doc;
}

/** Tokens an edit inserts: the structure of YAML, Markdown and the flow language, and odd characters. */
const INSERTS = [
	"---",
	"\n---\n",
	"## ",
	"\n## x\n",
	"```",
	"\n```\n",
	"- ",
	": ",
	":",
	"{",
	"}",
	"[",
	"]",
	",",
	"&a ",
	"*a",
	"<<: *a",
	"!!str ",
	"!!binary ",
	"|",
	">-",
	"? ",
	"#",
	"'",
	'"',
	"\\",
	"\t",
	"\n",
	"\r\n",
	"\r",
	"  ",
	"\u0000",
	"\uFEFF",
	"\uD800",
	"😀",
	"é",
	"...",
	"%YAML 1.2\n",
	"id: ",
	"agent: ",
	"do:",
	"loop: ",
	"max: ",
	"reads: [",
	"output: {",
	"timeout: ",
	"chain: ",
	"nodes:",
	"$(touch pwned)",
	"`touch pwned`",
	"&&",
	"==",
	"(",
	")",
];

/**
 * One to `max` edits of a text: a span deleted, duplicated or moved, a token inserted, a line swapped,
 * indented or cut, the text truncated, or its line breaks changed.
 */
export function mutate(r: Rng, text: string, max = 4): string {
	let out = text;
	const edits = r.between(1, max);
	for (let e = 0; e < edits; e++) {
		const at = out.length ? r.int(out.length + 1) : 0;
		const span = r.between(1, r.pick([1, 4, 16, 64]));
		const lines = out.split("\n");
		const li = r.int(lines.length);
		out = r.weighted<() => string>([
			[4, () => out.slice(0, at) + r.pick(INSERTS) + out.slice(at)],
			[3, () => out.slice(0, at) + out.slice(at + span)],
			[2, () => out.slice(0, at) + out.slice(at, at + span) + out.slice(at)],
			[
				1,
				() => {
					const piece = out.slice(at, at + span);
					const rest = out.slice(0, at) + out.slice(at + span);
					const to = r.int(rest.length + 1);
					return rest.slice(0, to) + piece + rest.slice(to);
				},
			],
			[
				2,
				() => {
					const lj = r.int(lines.length);
					[lines[li], lines[lj]] = [lines[lj], lines[li]];
					return lines.join("\n");
				},
			],
			[
				2,
				() => {
					lines[li] = r.chance(0.5) ? `${" ".repeat(r.between(1, 4))}${lines[li]}` : lines[li].replace(/^ {1,4}/, "");
					return lines.join("\n");
				},
			],
			[
				1,
				() => {
					lines.splice(li, 1);
					return lines.join("\n");
				},
			],
			[
				1,
				() => {
					lines.splice(li, 0, lines[r.int(lines.length)]);
					return lines.join("\n");
				},
			],
			[
				1,
				() => {
					const colon = lines[li].indexOf(": ");
					const value = r.pick([
						"[]",
						"{}",
						"null",
						"~",
						"0",
						"-1",
						"1e999",
						"true",
						"*a",
						"&a x",
						"|",
						"'",
						"[a, [b",
						"🦜",
						"x == ",
						"0s",
					]);
					lines[li] = colon >= 0 ? `${lines[li].slice(0, colon + 2)}${value}` : `${lines[li]}${value}`;
					return lines.join("\n");
				},
			],
			[1, () => out.slice(0, at)],
			[1, () => out.slice(0, at) + String.fromCharCode(r.int(0x10000)) + out.slice(at + 1)],
			[1, () => out.replaceAll("\n", r.pick(["\r\n", "\r", "\n\n"]))],
		])();
	}
	return out;
}
