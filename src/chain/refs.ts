/**
 * Step references and the tokens that cannot stand where they are. Each refusal names what was written
 * and what would be read, since pi-crew's chain parser turned `@fast-research` into team `fast` and a
 * bare word into a step name without a word to the user.
 */
import { withArticle } from "../text/index.ts";
import { quote, report, type Sink, type Source } from "./report.ts";
import type { Token } from "./tokens.ts";
import type { ChainRef } from "./types.ts";

const REF_HINT = "Start a step with @agent, @agent:label, flow:name, template:name or a quoted goal.";
const NAME_HINT = "Names start with a letter or _ and hold letters, digits, _, . and -.";
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** Reports a token the grammar marked broken (a glued or an unterminated quote); true if it was one. */
export function brokenToken(token: Token, src: Source, into: Sink, path: string): boolean {
	if (token.kind === "unterminated") {
		const quoteChar = token.source[0];
		report(
			into,
			src,
			"chain-syntax",
			{ start: token.start, end: token.start + 1 },
			path,
			"This quote is never closed.",
			{
				hint: `Close it with ${quoteChar}; write \\${quoteChar} for a ${quoteChar} inside the text.`,
			},
		);
		return true;
	}
	if (token.kind === "glued") {
		report(
			into,
			src,
			"chain-syntax",
			token,
			path,
			`\`${quote(token.source)}\` has text right after its closing quote.`,
			{
				hint: "Put a space after the closing quote, or move the text inside the quotes.",
			},
		);
		return true;
	}
	return false;
}

function badRef(token: Token & { kind: "badRef" }, src: Source, into: Sink, path: string): void {
	const name = token.source.slice(token.prefix.length);
	if (token.prefix === "template:") {
		const escapes = name.includes("..") || name.startsWith("/") || name.includes("\\");
		const message = escapes
			? `Template \`${quote(name)}\` reaches outside the prompt templates folder.`
			: `\`${quote(name)}\` is not a template name.`;
		report(into, src, "chain-bad-ref", token, path, message, {
			hint: "Name a template by its path under the templates folder, without .., e.g. template:review/deep.",
		});
		return;
	}
	const kind = token.prefix === "@" ? "agent" : "flow";
	const message =
		name === "" ? `\`${token.prefix}\` names no ${kind}.` : `\`${quote(name)}\` is not ${withArticle(kind)} name.`;
	const hint = token.prefix === "@" ? `${NAME_HINT} A label follows one colon: @agent:label.` : NAME_HINT;
	report(into, src, "chain-bad-ref", token, path, message, { hint });
}

/** The reference a step starts with, or undefined after reporting why the token is none. */
export function refOf(token: Token, src: Source, into: Sink, path: string): ChainRef | undefined {
	switch (token.kind) {
		case "agent":
			return token.label === undefined
				? { kind: "agent", name: token.name }
				: { kind: "agent", name: token.name, label: token.label };
		case "flow":
			return { kind: "flow", name: token.name };
		case "template":
			return { kind: "template", name: token.name };
		case "quoted":
			if (token.text.trim() !== "") return { kind: "goal", text: token.text };
			report(into, src, "chain-bad-ref", token, path, "The goal is empty.", { hint: "Write what the step should do." });
			return undefined;
		case "badRef":
			badRef(token, src, into, path);
			return undefined;
		case "word": {
			const guess = PLAIN_NAME.test(token.source) ? `@${token.source}` : undefined;
			const mean = guess ? ` Did you mean \`${guess}\`?` : "";
			report(into, src, "chain-bad-ref", token, path, `\`${quote(token.source)}\` is not a step reference.${mean}`, {
				hint: REF_HINT,
				...(guess ? { expected: [guess] } : {}),
			});
			return undefined;
		}
		case "flag":
		case "globals":
			report(into, src, "chain-bad-ref", token, path, "This step has no reference before its flags.", {
				hint: REF_HINT,
			});
			return undefined;
		default:
			brokenToken(token, src, into, path);
			return undefined;
	}
}

/**
 * Tokens that stand where only a flag may: each broken token is its own fault, and each run of ordinary
 * ones is one fault, so `@a do the thing` reads as one mistake (an unquoted goal), not three.
 */
export function strays(tokens: Token[], src: Source, into: Sink, path: string, where: string, hint: string): void {
	let run: Token[] = [];
	const flush = () => {
		if (run.length === 0) return;
		const span = { start: run[0].start, end: run[run.length - 1].end };
		const text = src.text.slice(span.start, span.end);
		report(into, src, "chain-syntax", span, path, `Unexpected \`${quote(text)}\` ${where}.`, { hint });
		run = [];
	};
	for (const token of tokens) {
		if (token.kind === "glued" || token.kind === "unterminated") {
			flush();
			brokenToken(token, src, into, path);
		} else run.push(token);
	}
	flush();
}
