/**
 * A YAML syntax error said the way a person fixes it. The parser reports where it gave up, in its own
 * terms ("Nested mappings are not allowed in compact mappings", "All mapping items must start at the same
 * column"), often a line after the mistake. This reads the frontmatter's lines as a person sees them (keys,
 * list items, their columns) and finds the line to change: a key indented under a key that already has its
 * value, a key that lines up with no mapping around it, a tab, a value whose quotes or brackets or `: ` YAML
 * reads differently. The fault names the column the key should start at. When no line explains the error,
 * the parser's own message stands.
 *
 *   6 |     agent: planner
 *   7 |       reads: [input]     → 7:7: `reads:` is indented deeper than `agent:` on line 6, which already has
 *                                  its value; start it at column 5, under `agent:`.
 */

/** The line to change and what to do, as offsets into the YAML text. */
export interface YamlMistake {
	start: number;
	end: number;
	message: string;
}

interface Line {
	/** 1-based line number in the file (the YAML's own line plus the lines before it). */
	n: number;
	offset: number;
	text: string;
	indent: number;
	/** Columns (0-based) of the `- ` item markers that open the line. */
	dashes: number[];
	/** A `key:` on the line, after any dashes. */
	key?: { name: string; col: number; rest: string };
	/** Where the line's content starts (after indentation and dashes). */
	content: number;
}

interface Open {
	col: number;
	line: Line;
	kind: "map" | "seq";
}

const KEY = /^((?:"[^"]*"|'[^']*'|[^\s:#"'[\]{},][^:#]*?)):(?=\s|$)(.*)$/;

/** Finds the mistake behind a YAML error at `errorOffset`, or undefined to keep the parser's message. */
export function yamlMistake(
	text: string,
	errorOffset: number,
	errorCode?: string,
	lineBase = 0,
): YamlMistake | undefined {
	const lines = linesOf(text, lineBase);
	const errorLine = lines.findLast((l) => l.offset <= errorOffset)?.n ?? lines.length + lineBase;
	const found =
		indentation(lines, errorLine) ?? (errorCode === "DUPLICATE_KEY" ? undefined : onLine(lines, errorLine, lineBase));
	return found;
}

function linesOf(text: string, lineBase: number): Line[] {
	const out: Line[] = [];
	let offset = 0;
	let n = lineBase;
	for (const raw of text.split("\n")) {
		n++;
		const lineText = raw.replace(/\r$/, "");
		const indent = lineText.length - lineText.replace(/^[ \t]*/, "").length;
		const dashes: number[] = [];
		let content = indent;
		while (/^-(\s|$)/.test(lineText.slice(content))) {
			dashes.push(content);
			content += 1;
			while (lineText[content] === " ") content++;
		}
		const m = KEY.exec(lineText.slice(content));
		out.push({
			n,
			offset,
			text: lineText,
			indent,
			dashes,
			content,
			...(m ? { key: { name: m[1], col: content, rest: m[2].trim() } } : {}),
		});
		offset += raw.length + 1;
	}
	return out;
}

const blank = (l: Line) => l.text.trim() === "" || l.text.trim().startsWith("#");
const at = (l: Line, col: number, end = l.text.length): YamlMistake => ({
	start: l.offset + col,
	end: Math.max(l.offset + col + 1, l.offset + end),
	message: "",
});
const column = (col: number) => `column ${col + 1}`;

/**
 * Walks the lines up to the error with a stack of the open mappings and lists (their columns); the first
 * line that breaks the layout is the mistake.
 */
function indentation(lines: Line[], errorLine: number): YamlMistake | undefined {
	const stack: Open[] = [];
	let previous: Line | undefined;
	let skipDeeperThan: number | undefined;
	let open: string | undefined;
	let opener: Line | undefined;
	for (const line of lines) {
		if (line.n > errorLine + 1) break;
		if (open && opener?.key) {
			// Inside a quote or a bracket left open on an earlier line: a line that reads as the next key at
			// the opener's depth means it was never closed; otherwise only its closing matters.
			if (line.key && line.indent <= opener.key.col && !blank(line)) return unclosed(opener);
			open = stillOpen(`${open}\n${line.text}`);
			continue;
		}
		if (blank(line)) continue;
		if (skipDeeperThan !== undefined) {
			if (line.indent > skipDeeperThan) continue;
			skipDeeperThan = undefined;
		}
		const tab = /^ *\t/.exec(line.text);
		if (tab)
			return {
				...at(line, tab[0].length - 1, tab[0].length),
				message: `line ${line.n} is indented with a tab; YAML indents with spaces only.`,
			};
		const first = line.dashes[0] ?? line.key?.col ?? line.indent;
		const prevKey = previous?.key;
		const prevOpened =
			!!previous &&
			(previous.key
				? previous.key.rest === "" || previous.key.rest.startsWith("#")
				: previous.dashes.length > 0 && previous.content >= previous.text.length);
		if (
			previous &&
			prevKey &&
			!prevOpened &&
			line.dashes.length &&
			first >= prevKey.col &&
			!isBlockScalar(prevKey.rest)
		) {
			const list = stack.findLast((o) => o.kind === "seq" && o.col < first);
			if (list) {
				return {
					...at(line, first, line.text.length),
					message:
						`This list item starts at ${column(first)}, deeper than the items of its list; ` +
						`start its \`-\` at ${column(list.col)}, as on line ${list.line.n}.`,
				};
			}
		}
		if (previous && prevKey && !prevOpened && first > prevKey.col && line.key && !isBlockScalar(prevKey.rest)) {
			const name = keyText(line);
			return {
				...at(line, line.key.col, line.key.col + line.key.name.length + 1),
				message:
					`\`${name}:\` is indented deeper than \`${prevKey.name}:\` on line ${previous.n}, which already ` +
					`has its value; start it at ${column(prevKey.col)}, under \`${prevKey.name}:\`.`,
			};
		}
		if (!(previous && prevOpened && first > (stack.at(-1)?.col ?? -1))) {
			// Not a deeper block: it must line up with something open.
			let last: Open | undefined;
			while (stack.length && stack[stack.length - 1].col > first) {
				const popped = stack.pop() as Open;
				last = popped;
				const parent = stack.at(-1);
				if (
					(!parent || parent.col < first) &&
					!(line.dashes.length && popped.kind === "map" && parent?.kind === "map" && parent.col === first)
				) {
					const what =
						line.key && !line.dashes.length
							? `\`${keyText(line)}:\``
							: line.dashes.length
								? "This list item"
								: `\`${line.text.trim()}\``;
					const sibling =
						popped.line.key && popped.kind === "map"
							? `, as \`${popped.line.key.name}:\` on line ${popped.line.n}`
							: ` (line ${popped.line.n})`;
					return {
						...at(line, first, line.text.length),
						message:
							`${what} starts at ${column(first)}, which lines up with nothing above it; ` +
							`the ${popped.kind === "seq" ? "items" : "keys"} around it start at ${column(popped.col)}${sibling}.`,
					};
				}
			}
			const top = stack.at(-1);
			if (last && line.key && !line.dashes.length && top?.kind === "seq" && top.col === first && last.kind === "map") {
				const owner = stack.findLast((o) => o.kind === "map" && o.col < first);
				const outer = owner?.line.key
					? `, or the keys beside the list at ${column(owner.col)}, as \`${owner.line.key.name}:\` on line ${owner.line.n}`
					: "";
				const sibling = `${last.line.key ? `, as \`${last.line.key.name}:\` on line ${last.line.n}` : ""}${outer}`;
				return {
					...at(line, first, line.text.length),
					message:
						`\`${keyText(line)}:\` starts at ${column(first)}, where the list's \`-\` items start, so YAML ` +
						`cannot tell whose key it is; the keys of this item start at ${column(last.col)}${sibling}.`,
				};
			}
		}
		for (const d of line.dashes)
			if (!stack.some((s) => s.col === d && s.kind === "seq")) stack.push({ col: d, line, kind: "seq" });
		if (line.key && !stack.some((s) => s.col === line.key?.col && s.kind === "map"))
			stack.push({ col: line.key.col, line, kind: "map" });
		else if (line.key) {
			const top = stack.findLast((s) => s.col === line.key?.col);
			if (top) top.line = line;
		}
		if (line.key && isBlockScalar(line.key.rest)) skipDeeperThan = line.key.col;
		if (line.key) open = stillOpen(line.key.rest);
		if (open) opener = line;
		previous = line;
	}
	return open && opener ? unclosed(opener) : undefined;
}

/** A quote or bracket the line opens and nothing closes. */
function unclosed(line: Line): YamlMistake {
	const rest = line.key?.rest ?? "";
	const col = line.text.indexOf(rest, line.key ? line.key.col + line.key.name.length + 1 : 0);
	const key = `\`${keyText(line)}:\``;
	const q = rest[0];
	if (q === '"' || q === "'")
		return {
			...at(line, col),
			message: `The value of ${key} opens a quote (${q}) that is never closed; close it at the end of the value.`,
		};
	const which = rest.lastIndexOf("[") >= rest.lastIndexOf("{") ? "[" : "{";
	return {
		...at(line, col),
		message:
			`The ${which === "[" ? "list" : "mapping"} that ${key} opens with \`${which}\` is never closed ` +
			`with \`${which === "[" ? "]" : "}"}\`.`,
	};
}

const isBlockScalar = (rest: string) => /^[|>][-+0-9]*\s*(#.*)?$/.test(rest);

function keyText(line: Line): string {
	return (line.key?.name ?? "").replace(/^["']|["']$/g, "");
}

/** The text of an unclosed quote or bracket to carry to the next line, or undefined when all are closed. */
function stillOpen(text: string): string | undefined {
	let quote: string | undefined;
	let depth = 0;
	for (let i = 0; i < text.length; i++) {
		const c = text[i];
		if (quote) {
			if (c === quote && !(quote === "'" && text[i + 1] === "'")) quote = undefined;
			else if (quote === "'" && c === "'") i++;
			continue;
		}
		if ((c === '"' || c === "'") && (i === 0 || /[\s[{,:]/.test(text[i - 1]))) quote = c;
		else if (c === "[" || c === "{") depth++;
		else if (c === "]" || c === "}") depth--;
		else if (c === "#" && (i === 0 || /\s/.test(text[i - 1]))) break;
	}
	return quote || depth > 0 ? text : undefined;
}

/** Mistakes inside one line's value: quotes, brackets, `: ` in a plain value, a missing colon or space. */
function onLine(lines: Line[], errorLine: number, lineBase: number): YamlMistake | undefined {
	const candidates = lines.filter((l) => l.n <= errorLine && !blank(l)).reverse();
	for (const line of candidates.slice(0, 3)) {
		const found = valueMistake(line, lines.slice(line.n - lineBase));
		if (found) return found;
	}
	return undefined;
}

/** `later` is the lines after `line`, where a quote or bracket it opens may close. */
function valueMistake(line: Line, later: Line[]): YamlMistake | undefined {
	if (!line.key) {
		const body = line.text.slice(line.content);
		const glued = /^([A-Za-z_][\w-]*):(\S.*)$/.exec(body);
		if (glued)
			return {
				...at(line, line.content),
				message: `\`${glued[1]}:${glued[2]}\` needs a space after the colon: \`${glued[1]}: ${glued[2]}\`.`,
			};
		const words = /^([A-Za-z_][\w-]*)\s+(\S.*)$/.exec(body);
		if (words && !body.includes(":"))
			return {
				...at(line, line.content),
				message: `\`${body.trim()}\` is not a \`key: value\` pair; write \`${words[1]}: ${words[2]}\`.`,
			};
		return undefined;
	}
	const { name, rest } = line.key;
	const valueCol = line.text.indexOf(rest, line.key.col + name.length + 1);
	const key = `\`${name.replace(/^["']|["']$/g, "")}:\``;
	const q = rest[0];
	if (q === '"' || q === "'") {
		const close = closing(rest, q);
		if (close < 0) {
			if (!later.some((l) => l.text.includes(q)))
				return {
					...at(line, valueCol),
					message: `The value of ${key} opens a quote (${q}) that is never closed; close it at the end of the value.`,
				};
		} else {
			const after = rest.slice(close + 1).trim();
			if (after && !after.startsWith("#")) {
				return {
					...at(line, valueCol),
					message:
						`The value of ${key} starts with a quoted part, so YAML reads only ${rest.slice(0, close + 1)} ` +
						`as the value and stops at \`${after}\`; ` +
						`quote the whole value: ${q === '"' ? `'${rest.replace(/'/g, "''")}'` : `"${rest.replace(/"/g, '\\"')}"`}.`,
				};
			}
		}
		return undefined;
	}
	if (q === "[" || q === "{") {
		if (stillOpen(rest) && !later.some((l) => /[\]}]/.test(l.text))) {
			return {
				...at(line, valueCol),
				message:
					`The ${q === "[" ? "list" : "mapping"} that ${key} opens with \`${q}\` is never closed with ` +
					`\`${q === "[" ? "]" : "}"}\`.`,
			};
		}
		const end = q === "[" ? rest.lastIndexOf("]") : rest.lastIndexOf("}");
		const after = end >= 0 ? rest.slice(end + 1).trim() : "";
		if (after && !after.startsWith("#"))
			return {
				...at(line, valueCol),
				message:
					`The value of ${key} is a ${q === "[" ? "list" : "mapping"} followed by \`${after}\`; ` +
					`quote the whole value if it is text.`,
			};
		return undefined;
	}
	if (q && "@`%".includes(q))
		return {
			...at(line, valueCol),
			message:
				`A plain value cannot start with ${q === "`" ? "`` ` ``" : `\`${q}\``} in YAML; ` +
				`quote the value of ${key}: "${rest.replace(/"/g, '\\"')}".`,
		};
	if (q && "*&!".includes(q))
		return {
			...at(line, valueCol),
			message:
				`A value starting with \`${q}\` is YAML syntax (an alias, anchor or tag); ` +
				`quote the value of ${key}: "${rest.replace(/"/g, '\\"')}".`,
		};
	const colon = /:\s/.exec(rest);
	if (colon && !rest.startsWith("#"))
		return {
			...at(line, valueCol + colon.index, valueCol + colon.index + 1),
			message:
				`The value of ${key} holds \`: \`, which YAML reads as a new key; ` +
				`quote the whole value: "${rest.replace(/"/g, '\\"')}".`,
		};
	return undefined;
}

function closing(text: string, q: string): number {
	for (let i = 1; i < text.length; i++) {
		if (text[i] !== q) continue;
		if (q === "'" && text[i + 1] === "'") {
			i++;
			continue;
		}
		if (q === '"' && text[i - 1] === "\\") continue;
		return i;
	}
	return -1;
}
