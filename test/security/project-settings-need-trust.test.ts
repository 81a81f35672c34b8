/**
 * Attack 7 (issue 21): the repository's `.pi/settings.json` picked the model (`defaultProvider`,
 * `defaultModel`) without trust, so a clone chose which of the person's providers received its content,
 * and at what cost. pi itself gates that file behind trust; pi-flows reads it only with `--project`.
 */
import { afterAll, describe, expect, it } from "vitest";
import { cleanup, cli, repo } from "./helpers.ts";

afterAll(cleanup);

describe("a project's .pi/settings.json is read only when the project is trusted", () => {
	it("does not pick the model of `pi-flows run` without --project, and does with it", () => {
		const p = repo();
		p.write(".pi/settings.json", JSON.stringify({ defaultProvider: "anthropic", defaultModel: "claude-opus-4-1" }));
		const untrusted = cli(p, "run", "explore", "what is here?");
		expect(untrusted.code).toBe(2);
		expect(untrusted.stderr).toContain("no model");
		expect(untrusted.stderr).not.toContain("anthropic");
		// With the project trusted the file counts (and the run then stops at the missing key, before any turn).
		const trusted = cli(p, "run", "explore", "what is here?", "--project");
		expect(trusted.code).toBe(2);
		expect(trusted.stderr).toContain("anthropic");
	}, 120_000);
});
