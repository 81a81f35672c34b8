/** What a command may touch, injected so tests run commands in-process against a temp project. */
export interface Io {
	cwd: string;
	env: NodeJS.ProcessEnv;
	/** pi's agent dir for this invocation. */
	agentDir: string;
	stdout(text: string): void;
	stderr(text: string): void;
}
