// Credentials are asked of pi before a run starts, the way its first request would ask them: a provider
// with no key is one refusal naming the nodes that use it; a key in the environment, the scripted model
// and a reference that does not resolve are not refusals.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openHost, readScript } from "../../src/pi/index.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

let project: TempProject;
let saved: Record<string, string | undefined>;
beforeEach(() => {
	project = tempProject();
	saved = Object.fromEntries(
		Object.keys(process.env)
			.filter((k) => k.startsWith("ANTHROPIC_"))
			.map((k) => [k, process.env[k]]),
	);
	for (const k of Object.keys(saved)) delete process.env[k];
});
afterEach(() => {
	delete process.env.ANTHROPIC_API_KEY;
	for (const [k, v] of Object.entries(saved)) if (v !== undefined) process.env[k] = v;
	project.cleanup();
});

const host = () =>
	openHost({ cwd: project.cwd, agentDir: project.agentDir, script: readScript("turns: {}\n", "s.yaml").value });

describe("missingCredentials", () => {
	it("names a provider without a key once, with every node that uses it", async () => {
		const h = await host();
		const uses = [
			{ node: "plan", ref: "anthropic/claude-sonnet-4-5" },
			{ node: "review", ref: "anthropic/claude-sonnet-4-5" },
			{ node: "draft", ref: "scripted/scripted" },
			{ node: "typo", ref: "nowhere/none" },
		];
		const missing = await h.missingCredentials(uses);
		expect(missing).toEqual([
			expect.stringMatching(
				/^no credentials for anthropic \(anthropic\/claude-sonnet-4-5, used by plan, review\): log in with \/login in pi/,
			),
		]);
	});

	it("passes once the key is in the environment", async () => {
		process.env.ANTHROPIC_API_KEY = "sk-test-not-a-key";
		const h = await host();
		expect(await h.missingCredentials([{ node: "plan", ref: "anthropic/claude-sonnet-4-5" }])).toEqual([]);
	});
});
