/**
 * The one door to pi. A {@link PiHost} holds one model runtime for a run (pi's models and credentials,
 * plus the scripted model when a script is given) and spawns in-process subagents on it. Nothing else in
 * pi-flows imports pi's runtime.
 */
import { builtInToolSchemas } from "./tool-schemas.ts";
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import {
	createAgentSession,
	createExtensionRuntime,
	createSyntheticSourceInfo,
	ModelRuntime,
	type ResourceLoader,
	resolveCliModel,
	SessionManager,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";
import type { Api, Model } from "@earendil-works/pi-ai";
import { type AgentSkill, agentDir as defaultAgentDir } from "../agents/index.ts";
import { nearestModels } from "../faults/index.ts";
import type { Spawn, SpawnRequest, Subagent } from "../runtime/index.ts";
import {
	createScriptedModel,
	type Script,
	type ScriptedModel,
	SCRIPTED_MODEL,
	SCRIPTED_PROVIDER,
} from "./scripted/index.ts";
import { openSubagent } from "./subagent.ts";
import type { LateTools } from "./late-tools.ts";
import { learnKeyOf } from "./keys.ts";
import { learnSecrets } from "../secrets/index.ts";
import { createGate, type Gate } from "../runtime/index.ts";
import { mergePolicy, type TransportPolicy } from "../runtime/index.ts";

/** A model resolved before any turn: the object pi runs and its thinking level. */
export interface ResolvedModel {
	model: Model<Api>;
	/** `provider/id`. */
	ref: string;
	thinking?: string;
}

/** Options of a host. */
export interface HostOptions {
	cwd: string;
	/** pi's agent dir: credentials, models.json and settings. Default: `PI_CODING_AGENT_DIR` or `~/.pi/agent`. */
	agentDir?: string;
	/** Registers the scripted model with this script. */
	script?: Script;
	/** A runtime to share, e.g. the host pi's inside the extension (sees extension-registered providers). */
	modelRuntime?: ModelRuntime;
	/**
	 * Whether the project's `.pi/settings.json` may be read (its `defaultProvider`/`defaultModel` pick
	 * which of the person's providers gets the work, and at what cost). pi gates that file behind trust;
	 * so do we. Default: false, only the person's own settings.
	 */
	projectTrusted?: boolean;
	/**
	 * Transport retries of every model request: a run's settings over {@link DEFAULT_TRANSPORT}; a
	 * spawn's `transport` (the flow's) goes over these. pi's own retries are off in subagents.
	 */
	transport?: Partial<TransportPolicy>;
}

/** pi, as pi-flows uses it. */
export interface PiHost {
	readonly cwd: string;
	readonly agentDir: string;
	readonly scripted?: ScriptedModel;
	/**
	 * Resolves a model as pi reads it (`sonnet`, `opus:high`, `provider/id[:thinking]`, or pi's settings when
	 * undefined) through pi's own resolver, before any turn; a failure names the nearest models pi knows.
	 */
	resolveModel(
		ref: string | undefined,
	): { ok: true; value: ResolvedModel } | { ok: false; error: string; nearest?: string[] };
	/**
	 * Which providers of these models have no credentials, one line each naming the nodes that use them.
	 * Asked before a run starts: a missing key is one refusal, not a failed turn per node. It asks pi
	 * what its first request would ask (`ModelRuntime.getAuth`), so a keyless local provider passes.
	 */
	missingCredentials(uses: Iterable<{ node: string; ref: string }>): Promise<string[]>;
	/** Spawns an in-process subagent. */
	spawn: Spawn;
	/** Subagents still open (for tests that prove every session was closed). */
	open(): number;
	/** The built-in tools among `names` as the model is told of them, for visits' identities. */
	toolSchemas(names: readonly string[]): Readonly<Record<string, unknown>>;
}

/** Opens a host. */
export async function openHost(options: HostOptions): Promise<PiHost> {
	const agentDir = options.agentDir ?? defaultAgentDir();
	const runtime = options.modelRuntime ?? (await personalRuntime(agentDir));
	// The credentials of this agent folder are secrets of every record the run writes.
	learnSecrets({ env: process.env, agentDir });
	const learned = new Set<string>();
	const scripted = options.script ? createScriptedModel(options.script) : undefined;
	if (scripted) {
		runtime.registerNativeProvider(scripted.provider);
		// As pi does after its extensions register providers: one more offline pass, so the snapshot of who is
		// configured (which decides `sonnet`) is whole before the first resolution, not refreshed behind it.
		if (!options.modelRuntime) await runtime.refresh({ allowNetwork: false });
	}
	const settings = SettingsManager.create(options.cwd, agentDir, { projectTrusted: options.projectTrusted ?? false });
	const live = new Set<Subagent>();
	let counter = 0;
	// One window per provider endpoint for the whole run: every subagent's requests to it share it.
	const gates = new Map<string, Gate>();
	const gateOf = (m: Model<Api>) => {
		const key = `${m.provider}\u0000${m.baseUrl ?? ""}`;
		let gate = gates.get(key);
		if (!gate) gates.set(key, (gate = createGate()));
		return gate;
	};

	const resolveModel: PiHost["resolveModel"] = (ref) => {
		let text = ref?.trim();
		if (!text) {
			const provider = settings.getDefaultProvider();
			const id = settings.getDefaultModel();
			if (!id) {
				return {
					ok: false,
					error: "no model: none given with --model, in the flow, in the agent, nor as defaultModel in pi's settings",
				};
			}
			text = provider && !id.includes("/") ? `${provider}/${id}` : id;
		}
		if (scripted && (text === SCRIPTED_PROVIDER || text === `${SCRIPTED_PROVIDER}/${SCRIPTED_MODEL}`)) {
			const model = runtime.getModel(SCRIPTED_PROVIDER, SCRIPTED_MODEL);
			if (model) return { ok: true, value: { model, ref: `${SCRIPTED_PROVIDER}/${SCRIPTED_MODEL}` } };
		}
		const found = resolveCliModel({ cliModel: text, modelRuntime: runtime });
		if (found.error || !found.model) {
			// The models pi knows, nearest first, so the refusal says what was meant.
			const known = runtime.getModels().map((m) => `${m.provider}/${m.id}`);
			const nearest = nearestModels(text, known);
			const error = `unknown model \`${text}\`${found.error ? `: ${found.error.split("\n")[0]}` : ""}`;
			return { ok: false, error, ...(nearest.length ? { nearest } : {}) };
		}
		return {
			ok: true,
			value: {
				model: found.model,
				ref: `${found.model.provider}/${found.model.id}`,
				...(found.thinkingLevel ? { thinking: found.thinkingLevel } : {}),
			},
		};
	};

	const spawn: Spawn = async (request: SpawnRequest) => {
		const resolved = resolveModel(request.model ?? request.agent.model);
		if (!resolved.ok) throw new Error(resolved.error);
		await learnKeyOf(runtime, resolved.value.model, learned);
		counter++;
		const sub = await openSubagent({
			id: `${request.agent.name}#${counter}`,
			request,
			model: resolved.value,
			cwd: request.cwd,
			agentDir,
			runtime,
			...(scripted ? { scripted } : {}),
			transport: (() => {
				const policy = mergePolicy(options.transport, request.transport);
				return { policy, ...(policy.adaptive ? { gate: gateOf(resolved.value.model) } : {}) };
			})(),
			onClose: (s) => live.delete(s),
		});
		live.add(sub);
		return sub;
	};

	const missingCredentials: PiHost["missingCredentials"] = async (uses) => {
		const byProvider = new Map<string, { model: Model<Api>; refs: Set<string>; nodes: string[] }>();
		for (const { node, ref } of uses) {
			// A reference that does not resolve is reported by the model resolution, not here.
			const r = resolveModel(ref);
			if (!r.ok) continue;
			const provider = r.value.model.provider;
			const entry = byProvider.get(provider) ?? { model: r.value.model, refs: new Set<string>(), nodes: [] };
			entry.refs.add(r.value.ref);
			entry.nodes.push(node);
			byProvider.set(provider, entry);
		}
		const problems: string[] = [];
		for (const [provider, e] of byProvider) {
			let why = "";
			try {
				await learnKeyOf(runtime, e.model, learned);
				if (await runtime.getAuth(e.model)) continue;
			} catch (error) {
				why = `: ${(error as Error).message ?? String(error)}`;
			}
			const nodes =
				e.nodes.length > 4 ? `${e.nodes.slice(0, 4).join(", ")} and ${e.nodes.length - 4} more` : e.nodes.join(", ");
			problems.push(
				`no credentials for ${provider}${why} (${[...e.refs].join(", ")}, used by ${nodes}): log in with /login in pi, or set the provider's API key in the environment`,
			);
		}
		return problems;
	};

	return {
		cwd: options.cwd,
		agentDir,
		...(scripted ? { scripted } : {}),
		resolveModel,
		missingCredentials,
		spawn,
		open: () => live.size,
		toolSchemas: builtInToolSchemas,
	};
}

/**
 * The person's model runtime, made as pi's own CLI makes it (`createAgentSessionServices`): pi's models and
 * credentials from the agent dir, refreshed offline on creation. The refresh is what tells pi which
 * providers this person has credentials for; without it none counts as configured, and a name several
 * providers offer (`sonnet`) goes to whichever sorts first, a provider the person may have no key for.
 * Offline: no catalogue is fetched, only keys, auth.json and models.json are read.
 */
async function personalRuntime(agentDir: string): Promise<ModelRuntime> {
	return ModelRuntime.create({
		authPath: join(agentDir, "auth.json"),
		modelsPath: join(agentDir, "models.json"),
		allowModelNetwork: false,
	});
}

/**
 * A resource loader that discovers nothing: a subagent sees its agent's prompt and tools and no more, save
 * the skills its agent file names. Those are pi's own skills: pi lists each in the system prompt (name,
 * description, where its SKILL.md is) when the subagent has `read`, and the model opens the one it needs.
 */
export function staticResources(
	systemPrompt: string,
	skills: readonly AgentSkill[] = [],
	late?: LateTools,
): ResourceLoader {
	const offered = skills.flatMap((s) =>
		s.skill && !s.skill.hidden
			? [
					{
						name: s.skill.name,
						description: s.skill.description,
						filePath: s.skill.file,
						baseDir: s.skill.dir,
						sourceInfo: createSyntheticSourceInfo(s.skill.file, { source: "pi-flows", baseDir: s.skill.dir }),
						disableModelInvocation: false,
					},
				]
			: [],
	);
	return {
		getExtensions: () =>
			late
				? { extensions: late.extensions, errors: [], runtime: late.runtime }
				: { extensions: [], errors: [], runtime: createExtensionRuntime() },
		getSkills: () => ({ skills: offered, diagnostics: [] }),
		getPrompts: () => ({ prompts: [], diagnostics: [] }),
		getThemes: () => ({ themes: [], diagnostics: [] }),
		getAgentsFiles: () => ({ agentsFiles: [] }),
		getSystemPrompt: () => systemPrompt,
		getSystemPromptSource: () => undefined,
		getAppendSystemPrompt: () => [],
		getAppendSystemPromptSources: () => [],
		extendResources: () => {},
		reload: async () => {},
	} as unknown as ResourceLoader;
}

/**
 * In-memory session and explicit settings: nothing of the user's pi state is read or written by a turn.
 * With `sessionDir`, the session lives in that folder (a run's shared subagent), and an existing one is
 * continued, so a resumed subagent keeps its conversation.
 */
export function sessionDefaults(cwd: string, sessionDir?: string) {
	let sessionManager = SessionManager.inMemory(cwd);
	if (sessionDir) {
		mkdirSync(sessionDir, { recursive: true });
		const existing = readdirSync(sessionDir)
			.filter((f) => f.endsWith(".jsonl"))
			.sort();
		sessionManager = existing.length
			? SessionManager.open(join(sessionDir, existing[existing.length - 1]), sessionDir, cwd)
			: SessionManager.create(cwd, sessionDir);
	}
	return {
		sessionManager,
		// pi's retries are off: transport faults are retried per request by pi-flows (./transport.ts), with
		// events, and the SDK's own silent retries would hide them.
		settingsManager: SettingsManager.inMemory({
			compaction: { enabled: false },
			retry: { enabled: false, provider: { maxRetries: 0 } },
		}),
	};
}

export { createAgentSession };
