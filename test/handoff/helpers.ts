/**
 * A real pi session runtime on the faux provider, with our extension loaded the way pi loads it: a temp
 * project, a temp agent dir (PI_CODING_AGENT_DIR points at it for the test), discovery off, and command
 * context actions wired so /next and /cut really replace the session.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
	fauxAssistantMessage,
	type FauxProviderHandle,
	type FauxResponseStep,
	fauxProvider,
	fauxToolCall,
} from "@earendil-works/pi-ai/providers/faux";
import {
	type AgentSession,
	type AgentSessionEvent,
	type AgentSessionRuntime,
	createAgentSessionFromServices,
	createAgentSessionRuntime,
	createAgentSessionServices,
	type CreateAgentSessionRuntimeFactory,
	type ExtensionFactory,
	type ExtensionUIContext,
	ModelRuntime,
	SessionManager,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { registerHandoff } from "../../src/extension/handoff/index.ts";

/** How a harness is built. */
export interface HarnessOptions {
	responses: FauxResponseStep[];
	/** Default: 128000. */
	contextWindow?: number;
	/** `rpc` is interactive (resets happen); `print` is headless. Default: rpc. */
	mode?: "rpc" | "print";
	/** Give commands a UI whose confirm answers this. Default: a UI that confirms. */
	confirm?: boolean;
	/** Default: ["read", "finish", "checkpoint"]. */
	tools?: string[];
	/** Environment for the test; restored by dispose. */
	env?: Record<string, string | undefined>;
	/** pi settings (in memory); compaction and retry are off unless given. */
	settings?: Record<string, unknown>;
	/** Extra extensions loaded after ours (probes, test tools). */
	extensions?: ExtensionFactory[];
	/** Written to `<agentDir>/settings.json` before the session starts. */
	globalSettings?: Record<string, unknown>;
}

/**
 * A session that fills its context with `size` characters through the test's `pad` tool, then calls
 * `checkpoint` with `args`; `after` answers the request that follows (it sees the context the reset left).
 */
export function padThenCheckpoint(size: number, args: Record<string, string>, after: FauxResponseStep): HarnessOptions {
	return {
		tools: ["read", "finish", "checkpoint", "pad"],
		extensions: [padExtension()],
		responses: [
			fauxAssistantMessage([fauxToolCall("pad", { size }, { id: "p1" })], { stopReason: "toolUse" }),
			fauxAssistantMessage([fauxToolCall("checkpoint", args, { id: "c1" })], { stopReason: "toolUse" }),
			after,
		],
	};
}

/** A running harness. */
export interface Harness {
	cwd: string;
	agentDir: string;
	faux: FauxProviderHandle;
	runtime: AgentSessionRuntime;
	readonly session: AgentSession;
	/** Every session event, across session replacements, with the session id it came from. */
	events: { sessionId: string; event: AgentSessionEvent }[];
	notes: { text: string; level: string }[];
	confirms: string[];
	errors: string[];
	/** Resolves when `check` holds (polled), or rejects after `timeoutMs`. */
	waitFor(check: () => boolean, what: string, timeoutMs?: number): Promise<void>;
	dispose(): Promise<void>;
}

/** A test tool that returns `size` characters, to grow the context on purpose. */
export function padExtension(): ExtensionFactory {
	return (pi) => {
		pi.registerTool({
			name: "pad",
			label: "Pad",
			description: "Returns filler text.",
			parameters: Type.Object({ size: Type.Number({ description: "How many characters to return." }) }),
			async execute(_id, params) {
				return { content: [{ type: "text", text: "x".repeat(params.size) }], details: {} };
			},
		});
	};
}

/** Starts a runtime. Dispose it in `finally`/`afterEach`. */
export async function startHarness(options: HarnessOptions): Promise<Harness> {
	const root = mkdtempSync(join(tmpdir(), "pi-flows-handoff-"));
	const cwd = join(root, "project");
	const agentDir = join(root, "agent");
	mkdirSync(cwd);
	mkdirSync(agentDir);
	if (options.globalSettings) writeFileSync(join(agentDir, "settings.json"), JSON.stringify(options.globalSettings));
	const savedEnv = new Map<string, string | undefined>();
	const setEnv = (name: string, value: string | undefined) => {
		if (!savedEnv.has(name)) savedEnv.set(name, process.env[name]);
		if (value === undefined) delete process.env[name];
		else process.env[name] = value;
	};
	setEnv("PI_CODING_AGENT_DIR", agentDir);
	for (const name of ["HANDOFF_ENABLED", "HANDOFF_WATERMARK", "HANDOFF_MAX_RESETS", "HANDOFF_CHECKPOINT_RESET"])
		setEnv(name, undefined);
	for (const [name, value] of Object.entries(options.env ?? {})) setEnv(name, value);

	const contextWindow = options.contextWindow ?? 128_000;
	const faux = fauxProvider({
		provider: "faux",
		models: [{ id: "faux-1", contextWindow, maxTokens: Math.min(4096, Math.floor(contextWindow / 4)) }],
	});
	faux.setResponses(options.responses);
	const modelRuntime = await ModelRuntime.create({
		authPath: join(agentDir, "auth.json"),
		modelsPath: null,
		refreshOnCreate: false,
	});
	modelRuntime.registerNativeProvider(faux.provider);
	const settingsManager = SettingsManager.inMemory({
		compaction: { enabled: false },
		retry: { enabled: false },
		...options.settings,
	});
	const tools = options.tools ?? ["read", "finish", "checkpoint"];
	const createRuntime: CreateAgentSessionRuntimeFactory = async ({
		cwd: at,
		agentDir: dir,
		sessionManager,
		sessionStartEvent,
	}) => {
		const services = await createAgentSessionServices({
			cwd: at,
			agentDir: dir,
			settingsManager,
			modelRuntime,
			resourceLoaderOptions: {
				noExtensions: true,
				noSkills: true,
				noPromptTemplates: true,
				noThemes: true,
				noContextFiles: true,
				extensionFactories: [(pi) => registerHandoff(pi), ...(options.extensions ?? [])],
				systemPromptOverride: () => "You are a test agent.",
				appendSystemPromptOverride: () => [],
			},
		});
		const created = await createAgentSessionFromServices({
			services,
			sessionManager,
			sessionStartEvent,
			model: faux.getModel(),
			thinkingLevel: "off",
			tools,
		});
		return { ...created, services, diagnostics: services.diagnostics };
	};
	const sessionDir = join(agentDir, "sessions");
	const runtime = await createAgentSessionRuntime(createRuntime, {
		cwd,
		agentDir,
		sessionManager: SessionManager.create(cwd, sessionDir),
	});

	const events: Harness["events"] = [];
	const notes: Harness["notes"] = [];
	const confirms: string[] = [];
	const errors: string[] = [];
	const ui = recordingUi(options.confirm ?? true, notes, confirms);
	let unsubscribe = () => {};
	const bind = async (session: AgentSession) => {
		unsubscribe();
		const id = session.sessionId;
		unsubscribe = session.subscribe((event) => events.push({ sessionId: id, event }));
		await session.bindExtensions({
			mode: options.mode ?? "rpc",
			uiContext: options.mode === "print" ? undefined : ui,
			onError: (e) => errors.push(`${e.event}: ${String(e.error)}`),
			commandContextActions: {
				waitForIdle: () => runtime.session.waitForIdle(),
				newSession: (o) => runtime.newSession(o),
				fork: async (entryId, o) => ({ cancelled: (await runtime.fork(entryId, o)).cancelled }),
				navigateTree: async (target, o) => ({ cancelled: (await runtime.session.navigateTree(target, o)).cancelled }),
				switchSession: (path, o) => runtime.switchSession(path, o),
				reload: () => runtime.session.reload(),
			},
		});
	};
	runtime.setRebindSession(bind);
	await bind(runtime.session);

	return {
		cwd,
		agentDir,
		faux,
		runtime,
		get session() {
			return runtime.session;
		},
		events,
		notes,
		confirms,
		errors,
		async waitFor(check, what, timeoutMs = 10_000) {
			const deadline = Date.now() + timeoutMs;
			while (!check()) {
				if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
				await new Promise((resolve) => setTimeout(resolve, 5));
			}
		},
		async dispose() {
			unsubscribe();
			await runtime.dispose();
			for (const [name, value] of savedEnv) {
				if (value === undefined) delete process.env[name];
				else process.env[name] = value;
			}
			rmSync(root, { recursive: true, force: true });
		},
	};
}

/** A UI that records notifications and answers confirmations; every other UI call is a no-op. */
function recordingUi(answer: boolean, notes: Harness["notes"], confirms: string[]): ExtensionUIContext {
	const known: Record<string, unknown> = {
		notify: (text: string, level?: string) => notes.push({ text, level: level ?? "info" }),
		confirm: async (title: string) => {
			confirms.push(title);
			return answer;
		},
		select: async () => undefined,
		input: async () => undefined,
		editor: async () => undefined,
		custom: async () => undefined,
		getEditorText: () => "",
	};
	return new Proxy(known, {
		// "then" must stay undefined or the object would look like a promise to `await`.
		get: (target, key) => (key in target ? target[key as string] : key === "then" ? undefined : () => undefined),
	}) as unknown as ExtensionUIContext;
}

/** Text of a message's content, whatever its shape. */
export function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content
		.map((part: { type?: string; text?: string }) => (part.type === "text" ? (part.text ?? "") : ""))
		.join("");
}
