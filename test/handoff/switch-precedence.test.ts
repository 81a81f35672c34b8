import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readHandoffSettings, resolveSwitch, type SwitchSource, writeSwitch } from "../../src/handoff/index.ts";

let root: string;
let cwd: string;
let agentDir: string;
beforeEach(() => {
	root = mkdtempSync(join(tmpdir(), "pi-flows-switch-"));
	cwd = join(root, "project");
	agentDir = join(root, "agent");
	mkdirSync(cwd);
	mkdirSync(agentDir);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A layer's file content: a JSON value for the key, raw text for a broken file, or nothing. */
type FileSpec = { value: unknown } | { raw: string } | undefined;

function put(path: string, spec: FileSpec) {
	if (!spec) return;
	mkdirSync(join(path, ".."), { recursive: true });
	writeFileSync(path, "raw" in spec ? spec.raw : JSON.stringify({ theme: "dark", enable_handoff: spec.value }));
}

const cases: {
	name: string;
	env?: string;
	project?: FileSpec;
	global?: FileSpec;
	enabled: boolean;
	source: SwitchSource;
	warns?: number;
}[] = [
	{ name: "nothing set: default on", enabled: true, source: "default" },
	{ name: "global off", global: { value: false }, enabled: false, source: "global" },
	{
		name: "project beats global",
		global: { value: false },
		project: { value: true },
		enabled: true,
		source: "project",
	},
	{ name: "env beats project", env: "0", project: { value: true }, enabled: false, source: "env" },
	{ name: "env yes beats project off", env: "yes", project: { value: false }, enabled: true, source: "env" },
	{ name: "text off", project: { value: "off" }, enabled: false, source: "project" },
	{ name: "text ON with spaces", global: { value: " ON " }, enabled: true, source: "global" },
	{ name: "text no", global: { value: "no" }, enabled: false, source: "global" },
	{ name: "JSON number 0", project: { value: 0 }, global: { value: true }, enabled: false, source: "project" },
	{ name: "JSON number 1", global: { value: 1 }, enabled: true, source: "global" },
	{ name: "string 1/0", global: { value: "0" }, enabled: false, source: "global" },
	{
		name: "number 2 is invalid and reported",
		project: { value: 2 },
		global: { value: false },
		enabled: false,
		source: "global",
		warns: 1,
	},
	{ name: "unknown word is reported", project: { value: "maybe" }, enabled: true, source: "default", warns: 1 },
	{
		name: "malformed project JSON is reported",
		project: { raw: '{ "enable_handoff": false' },
		global: { value: false },
		enabled: false,
		source: "global",
		warns: 1,
	},
	{ name: "a JSON array is not settings", global: { raw: "[false]" }, enabled: true, source: "default", warns: 1 },
	{
		name: "unusable env is reported",
		env: "perhaps",
		project: { value: false },
		enabled: false,
		source: "project",
		warns: 1,
	},
	{ name: "empty env is unset", env: "", global: { value: false }, enabled: false, source: "global" },
];

describe("enable_handoff precedence", () => {
	it.each(cases)("$name", async (c) => {
		put(join(cwd, ".pi", "settings.json"), c.project);
		put(join(agentDir, "settings.json"), c.global);
		const env = c.env === undefined ? {} : { HANDOFF_ENABLED: c.env };
		const r = await resolveSwitch({ cwd, agentDir, env, projectTrusted: true });
		expect({ enabled: r.enabled, source: r.source }).toEqual({ enabled: c.enabled, source: c.source });
		expect(r.layers.map((l) => l.source)).toEqual(["env", "project", "global", "default"]);
		expect(r.warnings).toHaveLength(c.warns ?? 0);
	});

	it("writes one key, keeps the others and the indentation, and creates .pi/ for the project", async () => {
		const global = join(agentDir, "settings.json");
		writeFileSync(global, '{\n\t"theme": "dark",\n\t"packages": ["npm:x"]\n}\n');
		expect(await writeSwitch(false, "global", { cwd, agentDir })).toEqual({ ok: true, path: global });
		expect(readFileSync(global, "utf8")).toBe(
			'{\n\t"theme": "dark",\n\t"packages": [\n\t\t"npm:x"\n\t],\n\t"enable_handoff": false\n}\n',
		);
		const project = join(cwd, ".pi", "settings.json");
		expect((await writeSwitch(true, "project", { cwd, agentDir })).ok).toBe(true);
		expect(JSON.parse(readFileSync(project, "utf8"))).toEqual({ enable_handoff: true });
		expect((await resolveSwitch({ cwd, agentDir, env: {}, projectTrusted: true })).source).toBe("project");
	});

	it("does not read the project's layer of an untrusted project, and says so", async () => {
		put(join(cwd, ".pi", "settings.json"), { value: false });
		put(join(agentDir, "settings.json"), undefined);
		const r = await resolveSwitch({ cwd, agentDir, env: {} });
		expect({ enabled: r.enabled, source: r.source }).toEqual({ enabled: true, source: "default" });
		expect(r.layers[1]).toMatchObject({ source: "project", state: "untrusted" });
		expect(r.warnings.join("\n")).toContain("switches the handoff protocol off (`enable_handoff`), which was not read");
	});

	it("refuses to rewrite a settings file that is not valid JSON", async () => {
		const global = join(agentDir, "settings.json");
		writeFileSync(global, '{ "theme": "dark", ');
		const result = await writeSwitch(true, "global", { cwd, agentDir });
		expect(result.ok).toBe(false);
		expect(readFileSync(global, "utf8")).toBe('{ "theme": "dark", ');
	});
});

describe("HANDOFF_* numbers", () => {
	it("uses valid values", () => {
		const s = readHandoffSettings({
			HANDOFF_WATERMARK: "0.75",
			HANDOFF_MAX_RESETS: "0",
			HANDOFF_CHECKPOINT_RESET: "Session",
		});
		expect(s).toEqual({ watermark: 0.75, maxResets: 0, checkpointReset: "session", warnings: [] });
	});

	it.each([
		["HANDOFF_WATERMARK", "sixty"],
		["HANDOFF_WATERMARK", "0"],
		["HANDOFF_WATERMARK", "1.5"],
		["HANDOFF_WATERMARK", "60%"],
		["HANDOFF_WATERMARK", "0x1"],
		["HANDOFF_MAX_RESETS", "ten"],
		["HANDOFF_MAX_RESETS", "-1"],
		["HANDOFF_MAX_RESETS", "2.5"],
		["HANDOFF_CHECKPOINT_RESET", "wipe"],
	])("%s=%s is a warning and the default, never NaN", (name, value) => {
		const s = readHandoffSettings({ [name]: value });
		expect(s.warnings.map((w) => w.name)).toEqual([name]);
		expect({ watermark: s.watermark, maxResets: s.maxResets, checkpointReset: s.checkpointReset }).toEqual({
			watermark: 0.6,
			maxResets: 12,
			checkpointReset: "compact",
		});
	});
});
