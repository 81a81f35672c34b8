/**
 * A temp project for a test: its own folder, its own pi agent dir (so nothing of `~/.pi` is read), and
 * helpers to write flows, agents and scripts into it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface TempProject {
	cwd: string;
	agentDir: string;
	env: NodeJS.ProcessEnv;
	write(path: string, text: string): string;
	cleanup(): void;
}

export function tempProject(): TempProject {
	const root = mkdtempSync(join(tmpdir(), "pi-flows-test-"));
	const cwd = join(root, "project");
	const agentDir = join(root, "agent");
	mkdirSync(cwd, { recursive: true });
	mkdirSync(agentDir, { recursive: true });
	return {
		cwd,
		agentDir,
		env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1" },
		write(path, text) {
			const file = join(path.startsWith("~agent/") ? agentDir : cwd, path.replace(/^~agent\//, ""));
			mkdirSync(dirname(file), { recursive: true });
			writeFileSync(file, text);
			return file;
		},
		cleanup: () => rmSync(root, { recursive: true, force: true }),
	};
}

/** A one-line agent file. */
export function agentFile(name: string, tools = "read", extra = ""): string {
	return `---\nname: ${name}\ndescription: ${name} for tests\ntools: ${tools}\n${extra}---\nYou are ${name}.\n`;
}
