// A session's later tools are not in pi's registry until a turn offers them (src/pi/late-tools.ts), and
// once registered they are callable like any of its tools. test/pi/subagent-tools.test.ts holds what the
// model is declared, request by request; this holds what pi has registered.
import { join } from "node:path";
import { createAgentSession, ModelRuntime } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sessionDefaults, staticResources } from "../../src/pi/host.ts";
import { createScriptedModel, readScript, SCRIPTED_MODEL, SCRIPTED_PROVIDER } from "../../src/pi/index.ts";
import { lateTools } from "../../src/pi/late-tools.ts";
import type { ToolSpec } from "../../src/runtime/index.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

async function openSession(script: string, make: () => ToolSpec[]) {
	const runtime = await ModelRuntime.create({
		authPath: join(project.agentDir, "auth.json"),
		modelsPath: join(project.agentDir, "models.json"),
		refreshOnCreate: false,
	});
	const read = readScript(script, "inline.yaml");
	if (!read.value) throw new Error("bad script");
	const scripted = createScriptedModel(read.value);
	runtime.registerNativeProvider(scripted.provider);
	const model = runtime.getModel(SCRIPTED_PROVIDER, SCRIPTED_MODEL);
	if (!model) throw new Error("no scripted model");
	const late = lateTools(make);
	const { session } = await createAgentSession({
		cwd: project.cwd,
		agentDir: project.agentDir,
		modelRuntime: runtime,
		model,
		thinkingLevel: "off",
		resourceLoader: staticResources("You land planes.", [], late),
		noTools: "builtin",
		...sessionDefaults(project.cwd),
	});
	return { session, late };
}

describe("later tools", () => {
	it("are made and registered only when a turn offers them, inactive, and then run when the model calls them", async () => {
		const ran: unknown[] = [];
		let made = 0;
		const finish: ToolSpec = {
			name: "finish",
			label: "finish",
			description: "Lands the work.",
			parameters: { type: "object", properties: { note: { type: "string" } } },
			execute: async (args) => {
				ran.push(args);
				return { text: "landed" };
			},
		};
		const { session, late } = await openSession(
			'turns:\n  "*":\n    - call: finish\n      args: { note: heron }\n    - say: done\n',
			() => {
				made++;
				return [finish];
			},
		);
		try {
			expect(session.getAllTools().map((t) => t.name)).not.toContain("finish");
			expect(made).toBe(0);
			late.register();
			late.register();
			expect(made).toBe(1);
			expect(session.getAllTools().filter((t) => t.name === "finish")).toHaveLength(1);
			expect(session.getActiveToolNames()).not.toContain("finish");
			session.setActiveToolsByName([...session.getActiveToolNames(), "finish"]);
			await session.prompt("land it", { expandPromptTemplates: false });
			expect(ran).toEqual([{ note: "heron" }]);
			expect(session.getLastAssistantText()).toBe("done");
		} finally {
			session.dispose();
		}
	});
});
