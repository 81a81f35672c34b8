/**
 * Issue 29, point 1: a model name resolves the way pi resolves it for this person, the providers they have
 * credentials for first. pi's own CLI refreshes its model runtime (offline) before resolving, which is what
 * tells its resolver who is configured; a runtime left unrefreshed sends `sonnet` to whichever provider
 * sorts first (Amazon Bedrock) even for a person holding only an Anthropic key. Here, for a person with only
 * an Anthropic key, only an OpenRouter key, or only a Bedrock profile: every alias the shipped agents and
 * the peer corpus name resolves to that person's provider through the library (`openHost`) and the
 * extension's host, and every other name the corpus writes resolves exactly as pi's own CLI resolves it.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ModelRuntime, resolveCliModel } from "@earendil-works/pi-coding-agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentDef, PACKAGE_ROOT, parseAgentFile } from "../../src/agents/index.ts";
import { hostFor } from "../../src/extension/host.ts";
import { openHost } from "../../src/pi/index.ts";
import { corpusFile, corpusSources } from "../helpers/peer-corpus.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";
import { PERSONS, withoutCredentials } from "./persons.ts";

/** Every agent file of the corpus, parsed as the roster parses it (Claude Code's in a Claude Code folder). */
function corpusAgents(): AgentDef[] {
	const out: AgentDef[] = [];
	for (const s of corpusSources()) {
		for (const path of s.paths) {
			if (/\.chain\.md$|SKILL\.md$|(^|\/)flows\//.test(path)) continue;
			const text = readFileSync(corpusFile(s, path), "utf8");
			const a = parseAgentFile(text, path, "user", path, s.role === "claude-agents" ? { peer: "claude-code" } : {});
			if (a.kind === "agent") out.push(a);
		}
	}
	return out;
}

/** The agents pi-flows ships. */
function shippedAgents(): AgentDef[] {
	const dir = join(PACKAGE_ROOT, "agents");
	return readdirSync(dir).flatMap((f) => {
		const a = parseAgentFile(readFileSync(join(dir, f), "utf8"), f, "shipped", f);
		return a.kind === "agent" ? [a] : [];
	});
}

let project: TempProject;
let restore: () => void;
beforeAll(() => {
	restore = withoutCredentials();
	project = tempProject();
	// `inherit`: no model of its own, so a run takes the person's own default, written as a bare alias.
	writeFileSync(join(project.agentDir, "settings.json"), JSON.stringify({ defaultModel: "sonnet" }));
});
afterAll(() => {
	project.cleanup();
	restore();
});

const agents = corpusAgents();
const shipped = shippedAgents();

/** Claude Code's aliases as the corpus writes them: a bare family name, no provider, no version. */
const ALIASES = [
	...new Set(
		[...agents, ...shipped].flatMap((a) =>
			a.model && /^[a-z]+$/.test(a.model) && a.model !== "placeholder" ? [a.model] : [],
		),
	),
].sort();

/** Every other name the corpus writes: full ids, `provider/id`, a profile placeholder. */
const OTHERS = [...new Set(agents.flatMap((a) => (a.model && !ALIASES.includes(a.model) ? [a.model] : [])))].sort();

describe("the corpus's model names", () => {
	it("are Claude Code's aliases, full ids and peers' own names; `inherit`, `default` and `false` mean none", () => {
		expect(ALIASES).toEqual(["fable", "haiku", "opus", "sonnet"]);
		expect(OTHERS).toContain("claude-sonnet-4-20250514");
		// 85 `inherit` (Claude Code), pi-vault's `default`, pi-crew's `false`: no model of the agent's own.
		expect(agents.filter((a) => a.model && /^(inherit|default|false)$/i.test(a.model))).toEqual([]);
	});
});

for (const person of PERSONS) {
	describe(`for a person with only ${person.who}`, () => {
		beforeAll(() => Object.assign(process.env, person.env));
		afterAll(() => {
			for (const k of Object.keys(person.env)) delete process.env[k];
		});

		it(`every alias resolves to ${person.provider}, through openHost and the extension's host alike`, async () => {
			const library = await openHost({ cwd: project.cwd, agentDir: project.agentDir });
			const extension = await hostFor({ cwd: project.cwd, model: undefined, modelRegistry: undefined } as never);
			for (const alias of [...ALIASES, "opus:high"]) {
				for (const host of [library, extension]) {
					const r = host.resolveModel(alias);
					expect(r.ok && r.value.model.provider, `${alias} via ${host === library ? "openHost" : "hostFor"}`).toBe(
						person.provider,
					);
				}
			}
			// `inherit`: the agent has none, so the person's own default (`sonnet` in their settings) answers.
			const inherited = library.resolveModel(undefined);
			expect(inherited.ok && inherited.value.model.provider).toBe(person.provider);
			expect(await library.missingCredentials(ALIASES.map((ref) => ({ node: ref, ref })))).toEqual([]);
		});

		it("every other name resolves as pi's own CLI resolves it, for this person", async () => {
			const host = await openHost({ cwd: project.cwd, agentDir: project.agentDir });
			// pi's CLI: `createAgentSessionServices` creates the runtime refreshed, offline.
			const pi = await ModelRuntime.create({
				authPath: join(project.agentDir, "auth.json"),
				modelsPath: join(project.agentDir, "models.json"),
			});
			for (const name of [...ALIASES, ...OTHERS]) {
				const ours = host.resolveModel(name);
				const theirs = resolveCliModel({ cliModel: name, modelRuntime: pi });
				const ref = theirs.model && !theirs.error ? `${theirs.model.provider}/${theirs.model.id}` : undefined;
				expect(ours.ok ? ours.value.ref : undefined, name).toBe(ref);
			}
		});
	});
}
