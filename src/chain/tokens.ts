/**
 * Stage 1 of reading a chain: text → segments of tokens, by the ohm grammar.
 * Input `@a --retry 2 -> "b"`; output two segments, `[agent a, flag retry, word 2]` and `[quoted b]`,
 * each token with its offsets in the text. No flag names or values are judged here; parse.ts does that.
 */
import type { Node } from "ohm-js";
import { chainGrammar } from "./grammar.ts";

/** A token's place in the chain text: 0-based offsets, end exclusive. */
export interface Span {
	start: number;
	end: number;
}

/** One token of a step, as the grammar classified it. */
export type Token = Span & { source: string } & (
		| { kind: "agent"; name: string; label?: string }
		| { kind: "flow"; name: string }
		| { kind: "template"; name: string }
		/** `text` has its escapes resolved; `exact` says whether offsets inside it map one-to-one to the source. */
		| { kind: "quoted"; text: string; exact: boolean }
		| { kind: "glued" }
		| { kind: "unterminated" }
		| { kind: "globals" }
		/** `name` is what follows `--`. */
		| { kind: "flag"; name: string }
		| { kind: "badRef"; prefix: string }
		| { kind: "word" }
	);

/** The tokens between two arrows, and the arrow before them (absent for the first segment). */
export interface Segment {
	arrow?: Span;
	tokens: Token[];
}

/** Either the segments, or where and why the grammar gave up (only if a grammar change made it partial). */
export type Tokenized = { ok: true; segments: Segment[] } | { ok: false; at: number; expected: string };

const span = (node: Node): Span => ({ start: node.source.startIdx, end: node.source.endIdx });

// Omit over each member of the union, so a kind's own fields stay checked.
type Fields<T> = T extends Token ? Omit<T, "start" | "end" | "source"> : never;

function token(node: Node, fields: Fields<Token>): Token {
	return { ...span(node), source: node.sourceString, ...fields } as Token;
}

function unquote(body: string): string {
	return body.replace(/\\(["'\\])/g, "$1");
}

const semantics = chainGrammar.createSemantics().addOperation<unknown>("build", {
	Chain(first, arrows, rest) {
		const segments: Segment[] = [{ tokens: first.build() as Token[] }];
		arrows.children.forEach((arrow, i) => {
			segments.push({ arrow: span(arrow), tokens: rest.children[i].build() as Token[] });
		});
		return segments;
	},
	Segment(items) {
		return items.children.map((item) => item.build() as Token);
	},
	item_agent(ref, _boundary) {
		const [name, label] = ref.sourceString.slice(1).split(":");
		return token(this, label === undefined ? { kind: "agent", name } : { kind: "agent", name, label });
	},
	item_flow(ref, _boundary) {
		return token(this, { kind: "flow", name: ref.sourceString.slice(ref.sourceString.indexOf(":") + 1) });
	},
	item_template(ref, _boundary) {
		return token(this, { kind: "template", name: ref.sourceString.slice("template:".length) });
	},
	item_quoted(quoted, _boundary) {
		const body = quoted.sourceString.slice(1, -1);
		const text = unquote(body);
		return token(this, { kind: "quoted", text, exact: text === body });
	},
	item_glued(_quoted, _rest) {
		return token(this, { kind: "glued" });
	},
	item_unterminated(_mark, _rest) {
		return token(this, { kind: "unterminated" });
	},
	item_globals(_mark) {
		return token(this, { kind: "globals" });
	},
	item_flag(_flag) {
		return token(this, { kind: "flag", name: this.sourceString.slice(2) });
	},
	item_badRef(prefix, _rest) {
		return token(this, { kind: "badRef", prefix: prefix.sourceString });
	},
	item_word(_rest) {
		return token(this, { kind: "word" });
	},
});

/** Splits a chain into segments of tokens; reports a failed match through ohm's public API only. */
export function tokenize(text: string): Tokenized {
	const match = chainGrammar.match(text, "Chain");
	if (match.failed()) return { ok: false, at: match.getRightmostFailurePosition(), expected: match.getExpectedText() };
	return { ok: true, segments: semantics(match).build() as Segment[] };
}
