/**
 * Where the cursor is in a flow's frontmatter, in the flow language's terms: typing a key of a node (or of
 * the flow, a choice case, a swarm member, a loop's carry), or typing the value of one key, and inside which
 * nodes. Read from the lines around the cursor (block structure plus flow collections on the cursor's line),
 * so it answers on text that does not parse.
 *
 *   input:  "nodes:\n  - id: plan\n    agent: sc" with the cursor at the end
 *   output: { at: "value", role: "node", key: "agent", nodes: [{ id: "plan", keys: ["id", "agent"] }] }
 */
import { LANGUAGE } from "../kinds/language.ts";
import { inlineFrames, inlineMapping } from "./inline.ts";
import { enclosingFrames, type Frame, type Frontmatter, frontmatterOf, itemFrame } from "./yaml-lines.ts";

/** The kinds of mapping a key can belong to. */
export type Role = "top" | "node" | "case" | "member" | "carry" | "branches" | "other";

/** A node mapping the cursor is inside. */
export interface NodeAt {
	id?: string;
	keys: string[];
	/** The id of the node written just before it in the same list. */
	prevId?: string;
}

/** The cursor, as completion, hover and definition need it. */
export interface Cursor {
	/** Typing a key of a `role` mapping, or the value of `key` in it. */
	at: "key" | "value";
	role: Role;
	key?: string;
	/** The value is an item of a list (`reads: [a, b]`, or a block list). */
	list: boolean;
	/** Keys already written in the mapping. */
	keys: string[];
	/** Enclosing node mappings, outermost first; the last is the cursor's own node (or a choice, for `when`). */
	nodes: NodeAt[];
	/** Column where the value under the cursor starts on its line. */
	valueAt: number;
}

/** What a key's value holds, from the mapping the key is in. */
function valueKind(role: Role, key: string): "nodes" | "cases" | "members" | "branches" | "carry" | "value" {
	if (role === "top") return key === "nodes" ? "nodes" : "value";
	if (role === "branches") return "nodes";
	if (role === "case") return key === "do" ? "nodes" : "value";
	if (role !== "node") return "value";
	if (key === "do" || key === "default") return "nodes";
	if (key === "choice") return "cases";
	if (key === "swarm") return "members";
	if (key === "parallel") return "branches";
	if (key === "carry") return "carry";
	return "value";
}

const ITEM_ROLE: Partial<Record<string, Role>> = { nodes: "node", cases: "case", members: "member" };

/** Reads the frames from the top down into roles: the state a cursor at their end is in. */
function classify(frames: readonly Frame[], top: string[], mode: "key" | "value"): Omit<Cursor, "valueAt"> {
	let role: Role = "top";
	let keys = top;
	let pending: string | undefined;
	let listOf: string | undefined;
	const nodes: NodeAt[] = [];
	for (const frame of frames) {
		if (frame.kind === "key") {
			if (pending !== undefined) {
				// The pending key's value turned out to be a mapping.
				const held = valueKind(role, pending);
				role = held === "branches" || held === "carry" ? held : "other";
				keys = [];
			} else if (listOf !== undefined) {
				role = "other";
				keys = [];
			}
			pending = frame.key;
			listOf = undefined;
			continue;
		}
		const held: string = pending === undefined ? "value" : valueKind(role, pending);
		const itemRole: Role | undefined = ITEM_ROLE[held];
		if (itemRole) {
			role = itemRole;
			keys = frame.map.keys;
			listOf = undefined;
			if (itemRole === "node")
				nodes.push({
					keys: frame.map.keys,
					...(frame.map.id ? { id: frame.map.id } : {}),
					...(frame.prevId ? { prevId: frame.prevId } : {}),
				});
		} else {
			listOf = pending ?? listOf;
		}
		pending = undefined;
	}
	if (pending !== undefined) {
		if (mode === "value") return { at: "value", role, key: pending, list: false, keys, nodes };
		const held = valueKind(role, pending);
		return { at: "key", role: held === "branches" || held === "carry" ? held : "other", list: false, keys: [], nodes };
	}
	if (listOf !== undefined) return { at: "value", role, key: listOf, list: true, keys, nodes };
	return { at: "key", role, list: false, keys, nodes };
}

/** Keys whose value is one address (or a list of them, for `reads`). */
const ADDRESS_KEYS = LANGUAGE.addressKeys;
/** Keys whose value is a condition. */
const CONDITION_KEYS = LANGUAGE.conditionKeys;

/**
 * What the value under the cursor names, from its key: completion, hover and definition all answer by this
 * one table, so a key that names an agent for one of them names an agent for all.
 */
export function valueNames(cursor: Cursor): "agent" | "id" | "flow" | "address" | "condition" | undefined {
	const { role, key = "" } = cursor;
	if (cursor.at !== "value") return undefined;
	if ((role === "node" && (key === "agent" || key === "among")) || (role === "member" && key === "agent"))
		return "agent";
	if (role === "node" && key === "id") return "id";
	if (role === "node" && key === "flow") return "flow";
	if ((role === "node" && CONDITION_KEYS.has(key)) || (role === "case" && key === "when")) return "condition";
	if ((role === "node" && ADDRESS_KEYS.has(key)) || (role === "carry" && (key === "first" || key === "next")))
		return "address";
	return undefined;
}

/** The cursor at `line`/`character` (0-based, UTF-16) of a document, or undefined outside the frontmatter. */
export function cursorAt(text: string, line: number, character: number): Cursor | undefined {
	const fm = frontmatterOf(text);
	if (!fm || line < fm.start || line >= fm.end) return undefined;
	return cursorIn(fm, line, character);
}

/** As {@link cursorAt}, on frontmatter already split into lines. */
export function cursorIn(fm: Frontmatter, line: number, c: number): Cursor {
	const l = fm.lines[line];
	const top = fm.lines
		.slice(fm.start, fm.end)
		.filter((x) => !x.blank && x.content === 0 && x.key !== undefined)
		.map((x) => x.key as string);
	const dashes = l.dashes.filter((d) => d < c);
	const own: Frame[] = dashes.map((d, i) => {
		const content = dashes[i + 1] ?? l.content;
		const frame = itemFrame(fm, line, d, content);
		return l.text[content] === "{" && frame.kind === "item" ? { ...frame, map: inlineMapping(l.text, content) } : frame;
	});
	if (l.key !== undefined && l.colon !== undefined && l.valueAt !== undefined && c > l.colon) {
		const base = enclosingFrames(fm, line, dashes[0] ?? l.content, dashes.length > 0);
		const frames = [...base, ...own, { kind: "key" as const, key: l.key, line, column: l.content }];
		frames.push(...(inlineFrames(l.text, l.valueAt, c, line) ?? []));
		return { ...classify(frames, top, "value"), valueAt: l.valueAt };
	}
	if (dashes.length > 0) {
		const frames = [
			...enclosingFrames(fm, line, dashes[0], true),
			...own,
			...(inlineFrames(l.text, l.content, c, line) ?? []),
		];
		return { ...classify(frames, top, "value"), valueAt: l.content };
	}
	const column = l.text.trim() === "" ? c : l.content;
	return { ...classify(enclosingFrames(fm, line, column, false), top, "key"), valueAt: column };
}
