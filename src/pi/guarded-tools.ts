/**
 * pi's own `write` and `edit` tools with operations that refuse the write guard's paths (src/guard). A
 * turn's `write` could otherwise rewrite its own run's snapshot (dropping an `ask` gate, adding a check
 * script of its choosing), a definition the next run reads (`.pi/agents`, `.claude/agents`, the agent
 * folder's `agents/`), or the person's credentials (`models.json`, whose `!command` keys pi runs).
 *
 * In: the turn's folder, its tool names, the paths writes must not touch. Out: tool definitions that
 * replace pi's built-ins of the same names (pi lets an SDK tool win a name).
 * Example: `guardedTools("/repo", ["read", "write"], { noWrite: ["/repo/.pi/runs/x"] })` → [write].
 */
import { constants } from "node:fs";
import { access, mkdir, readFile, writeFile } from "node:fs/promises";
import {
	createEditToolDefinition,
	createWriteToolDefinition,
	type ToolDefinition,
} from "@earendil-works/pi-coding-agent";
import { guardRefusal } from "../guard/index.ts";

/** What a turn's file tools may not touch. */
export interface Guard {
	/** Folders (or files) that no write or edit may land in. */
	noWrite: readonly string[];
}

function refuse(path: string, within: readonly string[]): void {
	const refusal = guardRefusal(path, within);
	if (refusal) throw new Error(refusal);
}

/** Guarded replacements for the turn's `write` and `edit` (only those it has). */
export function guardedTools(cwd: string, names: readonly string[], guard: Guard): ToolDefinition[] {
	const tools: ToolDefinition[] = [];
	const noWrite = (path: string) => refuse(path, guard.noWrite);
	if (guard.noWrite.length && names.includes("write")) {
		tools.push(
			createWriteToolDefinition(cwd, {
				operations: {
					writeFile: async (path, content) => {
						noWrite(path);
						await writeFile(path, content, "utf8");
					},
					mkdir: async (dir) => {
						noWrite(dir);
						await mkdir(dir, { recursive: true });
					},
				},
			}) as unknown as ToolDefinition,
		);
	}
	if (guard.noWrite.length && names.includes("edit")) {
		tools.push(
			createEditToolDefinition(cwd, {
				operations: {
					readFile: (path) => readFile(path),
					writeFile: async (path, content) => {
						noWrite(path);
						await writeFile(path, content, "utf8");
					},
					access: async (path) => {
						noWrite(path);
						await access(path, constants.R_OK | constants.W_OK);
					},
				},
			}) as unknown as ToolDefinition,
		);
	}
	return tools;
}
