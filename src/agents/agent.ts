/**
 * An agent is data: a Markdown file whose frontmatter says who it is and what it may touch, and whose body
 * is its system prompt. A file that does not parse keeps its name and its cause, so a broken project
 * `scout.md` is reported as broken instead of silently falling back to the user's `scout`.
 */
import { parseDocument } from "yaml";

/** Where an agent or flow file was found; later sources win a name. */
export type Source = "shipped" | "user" | "project";

/** A parsed agent file. */
export interface AgentDef {
	readonly kind: "agent";
	name: string;
	description: string;
	/** An allowlist of pi tool names: a prompt is not a permission boundary, an absent tool is. */
	tools: string[];
	/** `provider/id[:thinking]`; shipped agents pin none. */
	model?: string;
	thinking?: string;
	/** The body: the agent's system prompt. */
	prompt: string;
	file: string;
	source: Source;
}

/** An agent file that exists but cannot be used, with the reason. */
export interface BrokenAgent {
	readonly kind: "broken";
	name: string;
	file: string;
	source: Source;
	cause: string;
}

const AGENT_KEYS = new Set(["name", "description", "tools", "model", "thinking", "skills"]);
const THINKING = new Set(["off", "minimal", "low", "medium", "high", "xhigh", "max"]);

/** Parses one agent file; `fallbackName` (the file name) names it when the file is broken. */
export function parseAgentFile(text: string, file: string, source: Source, fallbackName: string): AgentDef | BrokenAgent {
	const broken = (cause: string): BrokenAgent => ({ kind: "broken", name: fallbackName, file, source, cause });
	const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
	if (!match) return broken("it has no `---` frontmatter");
	const doc = parseDocument(match[1]);
	if (doc.errors.length > 0) return broken(`its frontmatter is not valid YAML: ${doc.errors[0].message.split("\n")[0]}`);
	let data: unknown;
	try {
		// An alias is expanded here; a missing one or an alias bomb is yaml's exception, so the agent's fault.
		data = doc.toJS({ maxAliasCount: 100 });
	} catch (error) {
		return broken(`its frontmatter cannot be read: ${(error instanceof Error ? error.message : String(error)).split("\n")[0]}`);
	}
	if (!data || typeof data !== "object" || Array.isArray(data)) return broken("its frontmatter is not a mapping");
	const fm = data as Record<string, unknown>;
	const unknown = Object.keys(fm).filter((k) => !AGENT_KEYS.has(k));
	if (unknown.length) return broken(`unknown frontmatter key \`${unknown[0]}\``);
	if (typeof fm.name !== "string" || !fm.name.trim()) return broken("it lacks `name:`");
	if (typeof fm.description !== "string" || !fm.description.trim()) return broken("it lacks `description:`");
	const tools = parseTools(fm.tools);
	if (typeof tools === "string") return broken(tools);
	if (fm.model !== undefined && (typeof fm.model !== "string" || !fm.model.trim())) return broken("`model:` must be a string");
	if (fm.thinking !== undefined && (typeof fm.thinking !== "string" || !THINKING.has(fm.thinking))) {
		return broken(`\`thinking:\` must be one of ${[...THINKING].join(", ")}`);
	}
	const prompt = text.slice(match[0].length).trim();
	if (!prompt) return broken("its body (the system prompt) is empty");
	return {
		kind: "agent",
		name: fm.name.trim(),
		description: fm.description.trim(),
		tools,
		...(typeof fm.model === "string" ? { model: fm.model.trim() } : {}),
		...(typeof fm.thinking === "string" ? { thinking: fm.thinking } : {}),
		prompt,
		file,
		source,
	};
}

/** `read, bash` or a YAML list; no tools at all is allowed (an agent that only answers). */
function parseTools(value: unknown): string[] | string {
	if (value === undefined || value === null) return [];
	const list = typeof value === "string" ? value.split(",") : Array.isArray(value) ? value : undefined;
	if (!list || list.some((t) => typeof t !== "string")) return "`tools:` must be a comma-separated string or a list of names";
	const names = (list as string[]).map((t) => t.trim()).filter(Boolean);
	const seen = new Set<string>();
	for (const n of names) {
		if (!/^[A-Za-z_][\w-]*$/.test(n)) return `\`tools:\` has an invalid tool name \`${n}\``;
		if (seen.has(n)) return `\`tools:\` names \`${n}\` twice`;
		seen.add(n);
	}
	return names;
}
