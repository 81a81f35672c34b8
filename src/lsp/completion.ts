/**
 * Completion in a flow file: keys where a key goes (the flow's, a node's by its kind, a case's, a swarm
 * member's), agent and flow names where they are named, the addresses a node can read where it reads, the
 * values of an enum after `==`, and missing `## <id>` sections in the body. Works on the text as typed
 * plus the last version that built and the scopes the checker walked over it.
 *
 *   `    reads: [input, pl|`  →  input, diff, plan, plan.output, plan.output.tasks, plan.ok, …
 */
import { type CompletionItem, CompletionItemKind, type Range } from "vscode-languageserver/node";
import type { Roster } from "../agents/index.ts";
// The chain door also carries its run options (the evaluator); completion needs only the flag table.
import { CHAIN_FLAGS, type FlagPlace, flagNames } from "../chain/index.ts";
import { hasSection, KIND_KEYS, NODE_KEYS } from "../kinds/language.ts";
import { FLOW_KEYS, THINKING_LEVELS } from "../language/build/index.ts";
import { allNodes, type Flow, type Readable, type Scope, type ScopePoints, typeToString } from "../language/index.ts";
import type { FlowEntry } from "../load/index.ts";
import { type Cursor, cursorIn, valueNames } from "./cursor.ts";
import { headingSpans, tokenAt } from "./locate.ts";
import { hereAt } from "./scope.ts";
import { frontmatterOf } from "./yaml-lines.ts";

/** What completion reads besides the text. */
export interface CompletionWorld {
	/** The flow as it last built. */
	flow?: Flow;
	/** The scopes the checker walked, from the last version that built. */
	scopes?: ScopePoints;
	roster: Roster;
	flows: () => FlowEntry[];
}

const BOOLEAN_KEYS = new Set(["copies", "fail-fast", "confirm"]);

/**
 * The keys a node may take next: `id`, its kind's keys and `on-fail`. A node is exactly one kind, so the other
 * kind keys are offered only while it has none.
 */
function nodeKeys(written: readonly string[]): string[] {
	const kindKey = KIND_KEYS.find((k) => written.includes(k));
	const own = kindKey ? (NODE_KEYS[kindKey.replace(/-from$/, "")] ?? []) : KIND_KEYS;
	return ["id", ...own, "on-fail"].filter((k) => !written.includes(k));
}

function keysFor(cursor: Cursor): string[] {
	const left = (keys: readonly string[]) => keys.filter((k) => !cursor.keys.includes(k));
	switch (cursor.role) {
		case "top":
			return left(FLOW_KEYS);
		case "node":
			return nodeKeys(cursor.keys);
		case "case":
			return left(["name", "when", "do"]);
		case "member":
			return left(["agent", "count"]);
		case "carry":
			return left(["first", "next"]);
		default:
			return [];
	}
}

/** Completion items at a position of a flow document. */
export function complete(text: string, line: number, character: number, world: CompletionWorld): CompletionItem[] {
	const fm = frontmatterOf(text);
	if (!fm || line < fm.start || line >= fm.lines.length) return [];
	const lineText = fm.lines[line].text;
	const edit = (start: number, end = character): Range => ({
		start: { line, character: start },
		end: { line, character: end },
	});
	const items = (
		labels: {
			label: string;
			newText?: string;
			kind: CompletionItemKind;
			detail?: string;
			documentation?: string;
			filterText?: string;
		}[],
		range: Range,
	) =>
		labels.map(
			(x, i): CompletionItem => ({
				label: x.label,
				kind: x.kind,
				sortText: String(i).padStart(4, "0"),
				textEdit: { range, newText: x.newText ?? x.label },
				...(x.detail ? { detail: x.detail } : {}),
				...(x.documentation ? { documentation: x.documentation } : {}),
				...(x.filterText ? { filterText: x.filterText } : {}),
			}),
		);
	if (line > fm.end) {
		const heading = /^##[ \t]+([A-Za-z0-9_]*)$/.exec(lineText.slice(0, character));
		if (!heading || !world.flow) return [];
		const written = headingSpans(text);
		const missing = allNodes(world.flow.nodes).filter((n) => hasSection(n) && !written.has(n.id.value));
		return items(
			missing.map((n) => ({ label: n.id.value, kind: CompletionItemKind.Reference, detail: `${n.kind} node` })),
			edit(character - heading[1].length),
		);
	}
	if (line === fm.end) return [];
	const cursor = cursorIn(fm, line, character);
	if (cursor.at === "key") {
		const word = tokenAt(lineText.slice(0, character), line, character, /[A-Za-z0-9_-]/);
		const colon = /^[A-Za-z0-9_-]*[ \t]*:/.test(lineText.slice(character));
		return items(
			keysFor(cursor).map((k) => ({ label: k, kind: CompletionItemKind.Property, newText: colon ? k : `${k}: ` })),
			edit(word.start),
		);
	}
	const word = tokenAt(lineText.slice(0, character), line, character, /[A-Za-z0-9_.-]/);
	const space = lineText[word.start - 1] === ":" ? " " : "";
	const values = (list: { label: string; kind: CompletionItemKind; detail?: string; documentation?: string }[]) =>
		items(
			list.map((x) => ({ ...x, newText: `${space}${x.label}` })),
			edit(word.start),
		);
	if (cursor.at === "value" && cursor.role === "top" && cursor.key === "chain") {
		const chain = chainCompletion(lineText.slice(cursor.valueAt, character), world);
		return chain ? items(chain.items, edit(character - chain.typed.length)) : [];
	}
	const names = valueNames(cursor);
	if (names === "agent") {
		const agents = [...world.roster.entries.values()]
			.filter((a) => a.kind === "agent")
			.sort((a, b) => a.name.localeCompare(b.name));
		return values(
			agents.map((a) => ({
				label: a.name,
				kind: CompletionItemKind.Class,
				detail: `agent · ${a.source}`,
				documentation: a.kind === "agent" ? a.description : "",
			})),
		);
	}
	if (names === "flow") {
		return values(
			world.flows().map((f) => ({ label: f.name, kind: CompletionItemKind.Module, detail: `flow · ${f.source}` })),
		);
	}
	const simple = simpleValues(cursor);
	if (simple) return values(simple.map((label) => ({ label, kind: CompletionItemKind.Value })));
	const isCondition = names === "condition";
	// `reads:` takes a list: before its `[` there is no address to complete yet.
	const isAddress = names === "address" && (cursor.key !== "reads" || cursor.list);
	if ((!isCondition && !isAddress) || !world.scopes) return [];
	const here = hereAt(world.scopes, cursor);
	if (isCondition) {
		const before = lineText.slice(cursor.valueAt, character);
		const compared =
			/([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*(?:==|!=)\s*(["']?)([A-Za-z0-9_-]*)$/.exec(before);
		if (compared) {
			const enumItems = enumValues(here, compared[1], compared[2], compared[3], lineText, character, line);
			if (enumItems || compared[2]) return enumItems ?? [];
		}
	}
	const readable = here.readable().filter((r) => !isCondition || conditionReadable(r));
	return values(
		readable.map((r: Readable) => ({
			label: r.address,
			kind: CompletionItemKind.Variable,
			detail: typeToString(r.type),
		})),
	);
}

/** Whether a condition may read a value of this type: an agent's text and a person's free answer it may not. */
function conditionReadable(r: Readable): boolean {
	return r.type.kind !== "text" && r.type.kind !== "freeString";
}

type Offer = { label: string; kind: CompletionItemKind; detail?: string; documentation?: string };

/**
 * Completion inside a `chain:` string, on the token being typed: `@` and an agent, `flow:` and a flow,
 * `--` and a flag that may stand there (step flags before ` -- `, chain-wide ones after), a thinking level
 * after `--thinking`, and both kinds of reference where a step starts. Nothing inside a quoted task.
 *
 *   `chain: @scout -> @pl|`  →  @planner, …
 */
function chainCompletion(value: string, world: CompletionWorld): { typed: string; items: Offer[] } | undefined {
	// The YAML value's own quote is not the chain's.
	const text = /^["']/.test(value) ? value.slice(1) : value;
	if ((text.match(/"/g) ?? []).length % 2 === 1) return undefined;
	const typed = /\S*$/.exec(text)?.[0] ?? "";
	const before = text
		.slice(0, text.length - typed.length)
		.trim()
		.split(/\s+/)
		.filter(Boolean);
	const previous = before.at(-1);
	const place: FlagPlace = before.includes("--") ? "globals" : "step";
	const agents = (): Offer[] =>
		[...world.roster.entries.values()]
			.filter((a) => a.kind === "agent")
			.sort((a, b) => a.name.localeCompare(b.name))
			.map((a) => ({
				label: `@${a.name}`,
				kind: CompletionItemKind.Class,
				detail: `agent · ${a.source}`,
				documentation: a.kind === "agent" ? a.description : "",
			}));
	const flows = (): Offer[] =>
		world
			.flows()
			.map((f) => ({ label: `flow:${f.name}`, kind: CompletionItemKind.Module, detail: `flow · ${f.source}` }));
	if (typed.startsWith("@")) return { typed, items: agents() };
	if (typed.startsWith("flow:")) return { typed, items: flows() };
	if (typed.startsWith("-")) {
		return {
			typed,
			items: flagNames(place).map((name) => ({
				label: `--${name}`,
				kind: CompletionItemKind.Property,
				...(CHAIN_FLAGS[name].shape ? { detail: CHAIN_FLAGS[name].shape } : {}),
			})),
		};
	}
	if (previous === "--thinking" || previous === "--global-thinking")
		return { typed, items: THINKING_LEVELS.map((label) => ({ label, kind: CompletionItemKind.Value })) };
	if (previous === undefined || previous === "->") return { typed, items: [...agents(), ...flows()] };
	return undefined;
}

/** The quoted values of the enum `address` reads, replacing what was typed of one (quote included). */
function enumValues(
	here: Scope,
	address: string,
	quote: string,
	typed: string,
	lineText: string,
	character: number,
	line: number,
): CompletionItem[] | undefined {
	const type = here.resolveNames(address.split("."))?.type;
	if (type?.kind !== "enum") return undefined;
	const q = quote || '"';
	const start = character - typed.length - quote.length;
	const end = quote && lineText[character] === quote ? character + 1 : character;
	const range = { start: { line, character: start }, end: { line, character: end } };
	return type.values.map((v, i) => ({
		label: v,
		kind: CompletionItemKind.EnumMember,
		detail: `${address}: ${typeToString(type)}`,
		sortText: String(i).padStart(4, "0"),
		filterText: `${q}${v}${q}`,
		textEdit: { range, newText: `${q}${v}${q}` },
	}));
}

/** Values from a closed set: thinking levels, `on-fail`, switches, `join`, and the ids a key must name. */
function simpleValues(cursor: Cursor): string[] | undefined {
	if (cursor.role !== "node") return undefined;
	const key = cursor.key ?? "";
	const ids = cursor.nodes.map((n) => n.id).filter((id): id is string => !!id);
	if (key === "thinking") return THINKING_LEVELS;
	if (key === "on-fail") return ["continue"];
	if (BOOLEAN_KEYS.has(key)) return ["true", "false"];
	if (key === "join") return ["all", "any"];
	if (key === "ledger") return ids.slice(-1);
	if (key === "verdict") return ids.slice(0, -1).reverse();
	if (key === "memory") return [...ids.slice(0, -1).reverse(), "flow"];
	return undefined;
}
