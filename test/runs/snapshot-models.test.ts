// A resume resolves its models as the snapshot launched them and asks for credentials before its first
// turn, like every other launch: the errors come back instead of the models.
import { describe, expect, it } from "vitest";
import type { ModelDoor } from "../../src/engine/index.ts";
import { checkFlowText } from "../../src/load/index.ts";
import { snapshotModels, snapshotOf } from "../../src/runs/index.ts";
import { shipped } from "../language/helpers.ts";

const flow = checkFlowText(
	"---\nname: t\ndescription: d\ninput: string\nnodes:\n  - id: look\n    agent: scout\n---\n\n## look\nLook.\n",
	"/p/t.md",
	shipped,
).value;
if (!flow) throw new Error("the test flow does not check");

/** A door that resolves any reference and has credentials for none of `without`. */
function door(without: string[], asked: string[]): ModelDoor {
	return {
		resolveModel: (ref) => ({ ok: true, value: { ref: ref ?? "settings/default" } }),
		missingCredentials: async (uses) => {
			const all = [...uses];
			asked.push(...all.map((u) => u.ref));
			return all
				.filter((u) => without.some((p) => u.ref.startsWith(`${p}/`)))
				.map((u) => `no credentials for ${u.ref} (used by ${u.node})`);
		},
	};
}

describe("snapshotModels", () => {
	it("uses the launch's --model, and returns the refusals when its provider has no credentials", async () => {
		const snapshot = snapshotOf(flow, "q", new Map(), {
			cwd: "/p",
			model: "anthropic/claude-sonnet-4-5",
			somebodyThere: false,
		});
		const asked: string[] = [];
		expect(await snapshotModels(door(["anthropic"], asked), snapshot)(flow, snapshot)).toEqual([
			"no credentials for anthropic/claude-sonnet-4-5 (used by look)",
		]);
		expect(asked).toEqual(["anthropic/claude-sonnet-4-5"]);
	});

	it("runs a dry run's resume on the scripted model, and gives the models when credentials are there", async () => {
		const snapshot = snapshotOf(flow, "q", new Map(), {
			cwd: "/p",
			somebodyThere: false,
			script: { file: "s.yaml", text: "turns: {}\n" },
		});
		const models = await snapshotModels(door(["anthropic"], []), snapshot)(flow, snapshot);
		expect(models instanceof Map ? models.get("look")?.ref : models).toBe("scripted");
	});
});
