// What a subagent's session declares to its model, request by request (src/pi/subagent.ts, `toolSelection`):
// exactly the tools its turn names and its own tools; a tool offered later (the spawn's `laterTools`) is
// declared only once a watermark offers it; no other built-in tool, whatever pi's defaults or the settings say.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openHost, readScript } from "../../src/pi/index.ts";
import type { Result, ToolSpec } from "../../src/runtime/index.ts";
import { probeAgent } from "../helpers/host.ts";
import { type TempProject, tempProject } from "../helpers/project.ts";

let project: TempProject;
beforeEach(() => {
	project = tempProject();
});
afterEach(() => project.cleanup());

const tool = (name: string): ToolSpec => ({
	name,
	label: name,
	description: `The ${name} tool.`,
	parameters: { type: "object", properties: {} },
	execute: async () => ({ text: `${name} ran` }),
});

/** The tools declared to the model in each request of the turn, in the order pi declared them. */
function declaredPerRequest(r: Result): string[][] {
	const declared: string[] = [];
	const perRequest: string[][] = [];
	for (const m of r.messages as { role?: string; toolsAdded?: { name: string }[] }[]) {
		if (m.role === "system") declared.push(...(m.toolsAdded ?? []).map((t) => t.name));
		if (m.role === "assistant") perRequest.push([...declared]);
	}
	return perRequest;
}

/** A turn of a subagent with `tools`, its own `customTools`, and `later` offered at the watermark. */
async function turn(
	script: string,
	tools: string[],
	customTools: ToolSpec[],
	threshold?: number,
	later: ToolSpec[] = [tool("later")],
	sessionDir?: string,
): Promise<Result> {
	const host = await openHost({
		cwd: project.cwd,
		agentDir: project.agentDir,
		script: readScript(script, "s.yaml").value,
	});
	const sub = await host.spawn({
		agent: probeAgent(tools),
		model: "scripted",
		cwd: project.cwd,
		customTools,
		laterTools: () => later,
		...(sessionDir ? { sessionDir } : {}),
	});
	try {
		return await sub.ask("go", {
			label: "probe",
			...(threshold !== undefined ? { watermark: { threshold, directive: "Land the plane.", offer: ["later"] } } : {}),
		});
	} finally {
		await sub.close();
	}
}

describe("a subagent's tools", () => {
	it("are what the turn names and its own tools, not the later one, even where settings name defaults", async () => {
		writeFileSync(join(project.agentDir, "settings.json"), JSON.stringify({ defaultTools: ["bash", "write"] }));
		const r = await turn('turns:\n  "*":\n    - say: ok\n', ["read", "grep"], [tool("now")]);
		expect(r.ok).toBe(true);
		expect(declaredPerRequest(r).map((d) => [...d].sort())).toEqual([["grep", "now", "read"]]);
	});

	it("with no tools named, are only its own", async () => {
		const r = await turn('turns:\n  "*":\n    - say: ok\n', [], [tool("now")]);
		expect(r.ok).toBe(true);
		expect(declaredPerRequest(r)).toEqual([["now"]]);
	});

	it("gain the later tool once the watermark offers it, for the next request", async () => {
		const script = 'turns:\n  "*":\n    - call: now\n    - call: later\n    - say: done\n';
		const r = await turn(script, ["read"], [tool("now")], 0);
		expect(r.ok).toBe(true);
		const requests = declaredPerRequest(r).map((d) => [...d].sort());
		expect(requests[0]).toEqual(["now", "read"]);
		expect(requests[1]).toEqual(["later", "now", "read"]);
	});

	it("gain the later tool at the watermark in a session kept in a folder too, where it is registered from the start", async () => {
		const script = 'turns:\n  "*":\n    - call: now\n    - call: later\n    - say: done\n';
		const r = await turn(script, ["read"], [tool("now")], 0, [tool("later")], join(project.cwd, "session"));
		expect(r.ok).toBe(true);
		const requests = declaredPerRequest(r).map((d) => [...d].sort());
		expect(requests[0]).toEqual(["now", "read"]);
		expect(requests[1]).toEqual(["later", "now", "read"]);
	});

	it("gain the later tool when what a tool returned, not the answer's own count, crosses the watermark", async () => {
		// The first request is small; the file its `read` returns fills a third of the window.
		writeFileSync(join(project.cwd, "big.txt"), `${"heron ".repeat(1500)}\n`);
		writeFileSync(join(project.cwd, "small.txt"), "heron\n");
		const script = (file: string) =>
			`contextWindow: 8000\nturns:\n  "*":\n    - call: read\n      args: { path: ${file} }\n    - say: done\n`;
		const big = await turn(script("big.txt"), ["read"], [], 0.3);
		expect(big.ok).toBe(true);
		expect(declaredPerRequest(big).map((d) => [...d].sort())).toEqual([["read"], ["later", "read"]]);
		const small = await turn(script("small.txt"), ["read"], [], 0.3);
		expect(small.ok).toBe(true);
		expect(declaredPerRequest(small)).toEqual([["read"], ["read"]]);
	});
});
