/**
 * `template:name` steps: pi prompt templates (`<agentDir>/prompts/<name>.md`, the project's
 * `.pi/prompts/<name>.md` when asked), expanded with the chain's goal (`$@`, `$ARGUMENTS`, `$1`…`$9`).
 * A name that would leave the folder is refused by the parser already; this refuses it again.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { agentDir, nearestProjectDir, type Sources } from "../agents/index.ts";

/** A template's text and its frontmatter settings. */
export interface Template {
	name: string;
	file: string;
	text: string;
	model?: string;
	thinking?: string;
}

/** Finds a template by name. */
export function findTemplate(
	name: string,
	cwd: string,
	scope: Sources = {},
	env: NodeJS.ProcessEnv = process.env,
): Template | undefined {
	if (!/^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(name) || name.split("/").includes("..")) return undefined;
	const dirs = [join(agentDir(env), "prompts")];
	if (scope.project) {
		const agents = nearestProjectDir(cwd, "agents");
		dirs.push(agents ? join(agents, "..", "prompts") : join(cwd, ".pi", "prompts"));
	}
	for (const dir of dirs.reverse()) {
		const file = join(dir, `${name}.md`);
		if (!existsSync(file)) continue;
		const raw = readFileSync(file, "utf8");
		const fm = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*\r?\n?/.exec(raw);
		const field = (key: string) => fm?.[1].match(new RegExp(`^${key}:\\s*(.+)$`, "m"))?.[1].trim();
		const model = field("model");
		const thinking = field("thinking");
		return {
			name,
			file,
			text: raw.slice(fm?.[0].length ?? 0).trim(),
			...(model ? { model } : {}),
			...(thinking ? { thinking } : {}),
		};
	}
	return undefined;
}

/** Expands a template's arguments with the goal. */
export function expandTemplate(text: string, goal: string): string {
	const words = goal.split(/\s+/).filter(Boolean);
	return text.replace(/\$(@|ARGUMENTS|[1-9])/g, (_m, what: string) =>
		what === "@" || what === "ARGUMENTS" ? goal : (words[Number(what) - 1] ?? ""),
	);
}
