/**
 * The fields of an agent file's frontmatter that need more than a type check: its tools (Claude Code's
 * names mapped, a peer's tool pi lacks left out with a note), its skills with their places in the file, and
 * combo's and Claude Code's keys with a counterpart. Each reports what it cannot use as a note, or returns a
 * cause that makes the agent broken.
 */
import { isMap, isScalar, isSeq, type LineCounter } from "yaml";
import type { AgentDef, AgentSkill } from "./agent.ts";
import { type AgentPeer, LIFETIMES, type Lifetime, peerOnlyTool, peerTool } from "./peer-keys.ts";

/** Records a note about a key. */
export type Note = (key: string, message: string) => void;

/** combo's and Claude Code's keys with a counterpart; a value pi-flows cannot use is noted, not fatal. */
export function peerFields(fm: Record<string, unknown>, note: Note): Partial<AgentDef> {
	const out: Partial<AgentDef> = {};
	if (fm.lifetime !== undefined) {
		const known = typeof fm.lifetime === "string" && (LIFETIMES as readonly string[]).includes(fm.lifetime);
		if (known) out.lifetime = fm.lifetime as Lifetime;
		else note("lifetime", `\`lifetime:\` is one of ${LIFETIMES.join(", ")}; this one is ignored`);
	}
	if (fm.mustCallTool !== undefined && fm.mustCallTool !== false) {
		if (fm.mustCallTool === true) out.mustCallTool = true;
		else if (typeof fm.mustCallTool === "string" && fm.mustCallTool.trim()) out.mustCallTool = fm.mustCallTool.trim();
		else note("mustCallTool", "`mustCallTool:` is true or a tool name; this one is ignored");
	}
	for (const key of ["pane", "openInHerdr"] as const) {
		if (fm[key] === undefined) continue;
		if (typeof fm[key] === "boolean") out.pane = out.pane || (fm[key] as boolean);
		else note(key, `\`${key}:\` is true or false; this one is ignored`);
	}
	if (fm.color !== undefined) {
		if (typeof fm.color === "string" && /^[A-Za-z0-9#-]+$/.test(fm.color.trim())) out.color = fm.color.trim();
		else note("color", "`color:` is a colour name; this one is ignored");
	}
	return out;
}

/** Where `key` sits in the frontmatter, as a 1-based position in the file (the fence is line 1). */
export function keyPosition(contents: unknown, lines: LineCounter, key: string): { line: number; column: number } {
	if (isMap(contents)) {
		for (const item of contents.items) {
			if (isScalar(item.key) && item.key.value === key && item.key.range) {
				const pos = lines.linePos(item.key.range[0]);
				return { line: pos.line + 1, column: pos.col };
			}
		}
	}
	return { line: 1, column: 1 };
}

/**
 * `read, bash` or a YAML list. Absent is `undefined` (the default tools apply); present and empty is none
 * (an agent that only answers). Claude Code's names are mapped to pi's, and one without a counterpart is
 * dropped with a note, so its file loads as it is.
 */
export function parseTools(value: unknown, note: Note, peer: AgentPeer | undefined): string[] | string | undefined {
	if (value === undefined) return undefined;
	if (value === null || value === "") return [];
	const list = typeof value === "string" ? value.split(",") : Array.isArray(value) ? value : undefined;
	if (!list || list.some((t) => typeof t !== "string"))
		return "`tools:` must be a comma-separated string or a list of names";
	const names: string[] = [];
	const mapped = new Set<string>();
	for (const raw of (list as string[]).map((t) => t.trim()).filter(Boolean)) {
		const claude = peerTool(raw);
		const dropped = claude && "dropped" in claude ? claude.dropped : claude ? undefined : peerOnlyTool(raw, peer);
		if (dropped) {
			note("tools", `${dropped}; it is left out`);
			continue;
		}
		const name = claude && "tool" in claude ? claude.tool : raw;
		if (claude) {
			// Two peer names for one pi tool (Edit, MultiEdit) are one grant, not a repetition.
			if (mapped.has(name) || names.includes(name)) continue;
			mapped.add(name);
		}
		if (!/^[A-Za-z_][\w-]*$/.test(name)) return `\`tools:\` has an invalid tool name \`${name}\``;
		if (names.includes(name)) return `\`tools:\` names \`${name}\` twice`;
		names.push(name);
	}
	return names;
}

/**
 * `skills: a, b` or a YAML list, each name with its place in the file (the fence is line 1), so a fault about
 * one can say where the agent file names it. A name written twice is one skill.
 */
export function parseSkills(
	value: unknown,
	key: "skills" | "skill",
	contents: unknown,
	lines: LineCounter,
): AgentSkill[] | string | undefined {
	if (value === undefined || value === null || value === "") return undefined;
	const list = typeof value === "string" ? value.split(",") : Array.isArray(value) ? value : undefined;
	if (!list || list.some((s) => typeof s !== "string"))
		return `\`${key}:\` must be a comma-separated string or a list of names`;
	const node = isMap(contents) ? contents.items.find((i) => isScalar(i.key) && i.key.value === key)?.value : undefined;
	const at = (offset: number | undefined) => {
		if (offset === undefined) return { line: 1, column: 1 };
		const pos = lines.linePos(offset);
		return { line: pos.line + 1, column: pos.col };
	};
	const out: AgentSkill[] = [];
	let from = 0;
	for (const [i, raw] of (list as string[]).entries()) {
		const name = raw.trim();
		if (!name) continue;
		let offset: number | undefined;
		if (isSeq(node)) {
			const item = node.items[i];
			offset = isScalar(item) && item.range ? item.range[0] : undefined;
		} else if (isScalar(node) && node.range && typeof node.source === "string") {
			// A plain one-line scalar: the name sits at its offset within the text as written.
			const k = node.source.indexOf(name, from);
			if (k >= 0 && node.type === "PLAIN") {
				offset = node.range[0] + k;
				from = k + name.length;
			} else offset = node.range[0];
		}
		if (!out.some((s) => s.name === name)) out.push({ name, ...at(offset) });
	}
	return out;
}
