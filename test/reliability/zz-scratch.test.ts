import { describe, expect, it } from "vitest";
import { loadRoster } from "../../src/agents/index.ts";
import { catalogueOptions, checkFlowText, resolveModels } from "../../src/flow/index.ts";
import { fileJournal, resumeRun, runsHome, startRun, type JournalWriter } from "../../src/runs/index.ts";
import { scriptedHost } from "../helpers/host.ts";
import { tempProject } from "../helpers/project.ts";
import { flowOf, runInline } from "../helpers/run.ts";

const N = 20;
const ids = Array.from({ length: N }, (_, i) => `n${i + 1}`);
const nodes = ids.map((id, i) => `  - id: ${id}\n    agent: scout\n${i ? `    reads: [${ids[i - 1]}]\n` : ""}`).join("");
const text = flowOf("twenty", nodes, Object.fromEntries(ids.map((id) => [id, `Step ${id}.`])));
const script = (bad?: { at: number; step: string }) => `turns:\n${ids.map((id, i) => `  ${id}:\n    - ${bad && bad.at === i + 1 ? bad.step : `say: "${i ? `{{section:${ids[i - 1]}}}>` : ""}${id}"`}\n`).join("")}`;

describe("scratch", () => {
	it("fail at 7", async () => {
		const p = tempProject();
		const t0 = performance.now();
		const r = await runInline(p, "twenty", text, script({ at: 7, step: "fail: injected" }));
		console.log(performance.now() - t0, r.result.ok, r.result.error, r.result.errorKind, r.result.failedAt, r.open, r.calls);
		const t1 = performance.now();
		const ok = await runInline(p, "twenty", text, script());
		console.log(performance.now() - t1, ok.result.ok, ok.result.output, ok.open);
		const t2 = performance.now();
		const h = await runInline(p, "twenty", text, script({ at: 3, step: "hang: true" }), "x", { idleTimeoutMs: 200 });
		console.log(performance.now() - t2, h.result.ok, h.result.error, h.result.errorKind, h.open);
		p.cleanup();
	});
	it("journal", async () => {
		const p = tempProject();
		const file = p.write(".pi/flows/twenty.md", text);
		const sources = { project: true };
		const c = checkFlowText(text, file, loadRoster(p.cwd, sources, p.env), catalogueOptions(p.cwd, sources, p.env));
		const host = await scriptedHost(p, script());
		const models = resolveModels(c.value!, host.resolveModel, "scripted");
		if (!models.ok) throw new Error();
		let count = 0;
		const journal = (path: string): JournalWriter => {
			const real = fileJournal(path);
			return { append(e, d) { if (++count > 10) throw new Error("ENOSPC: no space left on device (injected)"); real.append(e, d); }, close: () => real.close() };
		};
		try {
			const out = await startRun(c.value!, "go", { runsHome: runsHome(p.cwd), spawn: host.spawn, models: models.models, cwd: p.cwd, scripts: new Map(), somebodyThere: true, retryBackoffMs: 0, journal });
			console.log("resolved", JSON.stringify(out).slice(0, 400));
		} catch (e) { console.log("rejected", String(e)); }
		console.log("open", host.open(), host.scripted?.calls());
		p.cleanup();
	});
});
