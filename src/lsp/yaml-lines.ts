/**
 * The frontmatter as lines, for an editor: while someone types, the YAML rarely parses, but its indentation
 * still says which mapping and which list the cursor is in. This reads that structure from the lines alone
 * (never failing), so completion works on half-written text.
 *
 *   input:  "nodes:\n  - id: plan\n    reads: [inp" and the cursor at the end
 *   output: frames [key nodes, item (line 1), key reads] and the node mapping { id: plan, keys: id, reads }
 */

/** One line of the frontmatter, as structure sees it. */
export interface YamlLine {
	/** 0-based line of the document. */
	line: number;
	text: string;
	/** Blank lines and comments hold no structure. */
	blank: boolean;
	/** Column of the first character that is not a space. */
	indent: number;
	/** Columns of the leading `-` item markers. */
	dashes: number[];
	/** Column where the line's content starts, after spaces and item markers. */
	content: number;
	/** The `key:` the content starts with. */
	key?: string;
	/** Column of the key's `:`. */
	colon?: number;
	/** Column where the key's value starts. */
	valueAt?: number;
}

/** The keys of one mapping and its `id`, wherever it was written (a block or a `{ ... }` on one line). */
export interface Mapping {
	keys: string[];
	id?: string;
}

/** A step from the top of the frontmatter down to the cursor. */
export type Frame =
	| { kind: "key"; key: string; line: number; column: number }
	| { kind: "item"; line: number; column: number; map: Mapping; prevId?: string };

/** The frontmatter's lines: `start` is the first YAML line, `end` the closing `---` (or the last line + 1). */
export interface Frontmatter {
	lines: YamlLine[];
	start: number;
	end: number;
}

const KEY = /^([A-Za-z_][\w-]*)[ \t]*:(?=\s|$)/;

/** The frontmatter of a document's text, or undefined when it does not open with `---`. */
export function frontmatterOf(text: string): Frontmatter | undefined {
	const raw = text.split(/\r?\n/);
	if (!/^---[ \t]*$/.test(raw[0] ?? "")) return undefined;
	let end = raw.length;
	for (let i = 1; i < raw.length; i++) {
		if (/^(---|\.\.\.)[ \t]*$/.test(raw[i])) {
			end = i;
			break;
		}
	}
	return { lines: raw.map((t, i) => readLine(t, i)), start: 1, end };
}

/** Structure of one line: its item markers and its key are all that nesting is read from. */
function readLine(text: string, line: number): YamlLine {
	const indent = text.length - text.trimStart().length;
	let at = indent;
	const dashes: number[] = [];
	while (text[at] === "-" && (at + 1 === text.length || text[at + 1] === " ")) {
		dashes.push(at);
		at++;
		while (text[at] === " ") at++;
	}
	const rest = text.slice(at);
	const blank = rest.trim() === "" ? dashes.length === 0 : rest.startsWith("#");
	const m = KEY.exec(rest);
	if (!m || blank) return { line, text, blank, indent, dashes, content: at };
	const colon = at + m[0].length - 1;
	let valueAt = colon + 1;
	while (text[valueAt] === " ") valueAt++;
	return { line, text, blank, indent, dashes, content: at, key: m[1], colon, valueAt };
}

/** A scalar value as written on its line, without quotes or a trailing comment: how an `id:` is compared. */
function scalarOf(l: YamlLine): string {
	if (l.valueAt === undefined) return "";
	return l.text
		.slice(l.valueAt)
		.replace(/\s+#.*$/, "")
		.trim()
		.replace(/^(["'])(.*)\1$/, "$2");
}

/** The keys of the block mapping whose keys sit at `column`, starting on line `from`. */
export function blockMapping(fm: Frontmatter, from: number, column: number): Mapping {
	const keys: string[] = [];
	let id: string | undefined;
	for (let i = from; i < fm.end; i++) {
		const l = fm.lines[i];
		if (l.blank) continue;
		if (i > from && l.indent < column) break;
		if (i > from && l.dashes.length > 0 && l.content <= column) break;
		if (l.content !== column || l.key === undefined) continue;
		keys.push(l.key);
		if (l.key === "id") id = scalarOf(l);
	}
	return { keys, ...(id ? { id } : {}) };
}

/** The `id` of the item just before the one at line `item`, dash `column`, in the same list. */
function previousItemId(fm: Frontmatter, item: number, column: number): string | undefined {
	for (let i = item - 1; i >= fm.start; i--) {
		const l = fm.lines[i];
		if (l.blank || l.indent > column) continue;
		if (l.dashes[0] === column) return blockMapping(fm, i, l.content).id;
		return undefined;
	}
	return undefined;
}

/** An item frame for the list item whose marker is at `column` on line `line`, with what the item's mapping holds and which item came before (what ran before a node). */
export function itemFrame(fm: Frontmatter, line: number, column: number, content: number): Frame {
	const prevId = previousItemId(fm, line, column);
	return { kind: "item", line, column, map: blockMapping(fm, line, content), ...(prevId ? { prevId } : {}) };
}

/**
 * The frames enclosing a mapping (or list) that continues on `line` at `column`: each parent key, and each
 * list item passed on the way up, outermost first. `seq` says the cursor's own line opened a list item at
 * `column`, so the walk looks for that list's owner rather than for sibling keys.
 */
export function enclosingFrames(fm: Frontmatter, line: number, column: number, seq: boolean): Frame[] {
	const frames: Frame[] = [];
	let mode: "map" | "seq" = seq ? "seq" : "map";
	let col = column;
	const enter = (l: YamlLine) => {
		frames.unshift({ kind: "key", key: l.key as string, line: l.line, column: l.content });
		if (l.dashes.length > 0) {
			frames.unshift(itemFrame(fm, l.line, l.dashes[0], l.content));
			mode = "seq";
			col = l.dashes[0];
		} else {
			mode = "map";
			col = l.content;
		}
	};
	for (let i = line - 1; i >= fm.start; i--) {
		const l = fm.lines[i];
		if (l.blank) continue;
		if (mode === "map") {
			if (l.content === col && l.key !== undefined) {
				// A sibling key; when it carries the item marker, the mapping is that list item.
				if (l.dashes.length > 0) {
					frames.unshift(itemFrame(fm, i, l.dashes[0], l.content));
					mode = "seq";
					col = l.dashes[0];
				}
				continue;
			}
			if (l.indent >= col) continue;
			if (l.key !== undefined && l.content < col) enter(l);
			continue;
		}
		if (l.dashes[0] === col || l.indent > col) continue;
		// `key:` followed by its list at the same indentation (`nodes:\n- id: x`) owns the list too.
		if (l.key !== undefined && (l.indent < col || l.dashes.length === 0)) enter(l);
	}
	return frames;
}
