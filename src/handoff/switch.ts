/**
 * The `enable_handoff` switch. pi gives extensions no settings API for their own keys, so the layers are
 * read here: env `HANDOFF_ENABLED` > project `.pi/settings.json` > global `<agentDir>/settings.json` >
 * default true. Every layer is reported, so `/handoff status` can say which one won and why the others
 * did not; a broken file or value is a warning, never silently skipped.
 *
 *   await resolveSwitch({ cwd, agentDir, env: { HANDOFF_ENABLED: "off" } })
 *   → { enabled: false, source: "env", layers: [env set false, project absent, global absent, default true], warnings: [] }
 */
import { dirname, join } from "node:path";
import { untrustedSetting } from "../trust/index.ts";
import type { SettingsEnv } from "./settings.ts";
import { attempt, type FileOperations, localFileOperations, PROJECT_CONFIG_DIR, readText } from "./store.ts";

/** The settings key, shared with the upstream protocol so existing settings files keep working. */
export const SWITCH_KEY = "enable_handoff";

/** The variable that overrides every file for one process. */
export const SWITCH_ENV = "HANDOFF_ENABLED";

/** Where a value can come from, highest priority first. */
export type SwitchSource = "env" | "project" | "global" | "default";

/** Where a `/handoff on|off` writes. */
export type SwitchScope = "project" | "global";

/** One layer as it was found. */
export interface SwitchLayer {
	source: SwitchSource;
	/** The variable name or file path. */
	where: string;
	/** `set`: holds a usable value; `absent`: nothing there; `invalid`: a value that is not a switch; `malformed`: the file is not a JSON object; `unreadable`: I/O failed. */
	state: "set" | "absent" | "invalid" | "malformed" | "unreadable" | "untrusted";
	value?: boolean;
	/** The value as written (JSON), when there is one. */
	raw?: string;
	/** Why the layer could not be used. */
	message?: string;
}

/** The switch's value, the layer it came from, and every layer on the way. */
export interface SwitchResolution {
	enabled: boolean;
	source: SwitchSource;
	layers: SwitchLayer[];
	/** One line per layer that held something unusable. */
	warnings: string[];
}

/** Where to look: the project, pi's agent dir (the caller resolves `PI_CODING_AGENT_DIR`) and the environment. */
export interface SwitchPlaces {
	cwd: string;
	agentDir: string;
	env: SettingsEnv;
	/**
	 * Whether the project's `.pi/settings.json` counts: it is repository content, and a clone that switched
	 * the protocol off would take every turn's `finish` and watermark away. Default: false (named, not read).
	 */
	projectTrusted?: boolean;
}

/** The two settings files. */
export function switchPaths(places: Pick<SwitchPlaces, "cwd" | "agentDir">): Record<SwitchScope, string> {
	return {
		project: join(places.cwd, PROJECT_CONFIG_DIR, "settings.json"),
		global: join(places.agentDir, "settings.json"),
	};
}

const TRUE_WORDS = new Set(["true", "on", "yes", "1"]);
const FALSE_WORDS = new Set(["false", "off", "no", "0"]);

/** Reads a hand-edited value: booleans, the numbers 1 and 0, and true/false, on/off, yes/no, 1/0 as text. */
export function parseSwitchValue(value: unknown): boolean | undefined {
	if (typeof value === "boolean") return value;
	if (value === 1 || value === 0) return value === 1;
	if (typeof value !== "string") return undefined;
	const word = value.trim().toLowerCase();
	return TRUE_WORDS.has(word) ? true : FALSE_WORDS.has(word) ? false : undefined;
}

/** Resolves the switch; never throws. */
export async function resolveSwitch(
	places: SwitchPlaces,
	ops: FileOperations = localFileOperations,
): Promise<SwitchResolution> {
	const paths = switchPaths(places);
	const layers: SwitchLayer[] = [
		envLayer(places.env[SWITCH_ENV]),
		untrustedLayer(await fileLayer("project", paths.project, ops), places.projectTrusted ?? false),
		await fileLayer("global", paths.global, ops),
		{ source: "default", where: "built-in default", state: "set", value: true },
	];
	const winner = layers.find((l) => l.state === "set" && l.value !== undefined) ?? layers[3];
	const warnings = layers.flatMap((l) => (l.message && l.state !== "absent" ? [`${l.where}: ${l.message}`] : []));
	return { enabled: winner.value ?? true, source: winner.source, layers, warnings };
}

/** The project's layer as the trust rule leaves it: a value of an untrusted project is named, not used. */
function untrustedLayer(layer: SwitchLayer, trusted: boolean): SwitchLayer {
	if (trusted || layer.state !== "set") return layer;
	const what = `switches the handoff protocol ${layer.value ? "on" : "off"} (\`${SWITCH_KEY}\`)`;
	const { value: _value, ...rest } = layer;
	return { ...rest, state: "untrusted", message: untrustedSetting("", what).trimStart() };
}

function envLayer(raw: string | undefined): SwitchLayer {
	const where = SWITCH_ENV;
	if (raw === undefined || raw.trim() === "") return { source: "env", where, state: "absent" };
	const value = parseSwitchValue(raw);
	if (value === undefined) {
		return {
			source: "env",
			where,
			state: "invalid",
			raw: JSON.stringify(raw),
			message: `${JSON.stringify(raw)} is not true/false, on/off, yes/no or 1/0; ignored.`,
		};
	}
	return { source: "env", where, state: "set", value, raw: JSON.stringify(raw) };
}

async function fileLayer(source: "project" | "global", path: string, ops: FileOperations): Promise<SwitchLayer> {
	const read = await readSettingsObject(path, ops);
	if (!read.ok) return { source, where: path, state: read.state, message: read.message };
	if (!(SWITCH_KEY in read.object)) return { source, where: path, state: "absent" };
	const rawValue = read.object[SWITCH_KEY];
	const raw = JSON.stringify(rawValue);
	const value = parseSwitchValue(rawValue);
	if (value === undefined) {
		return {
			source,
			where: path,
			state: "invalid",
			raw,
			message: `"${SWITCH_KEY}": ${raw} is not true/false, on/off, yes/no or 1/0; ignored.`,
		};
	}
	return { source, where: path, state: "set", value, raw };
}

type SettingsRead =
	| { ok: true; object: Record<string, unknown>; text?: string }
	| { ok: false; state: "absent" | "malformed" | "unreadable"; message: string };

async function readSettingsObject(path: string, ops: FileOperations): Promise<SettingsRead> {
	const read = await readText(path, ops);
	if (!read.ok) {
		return read.missing
			? { ok: false, state: "absent", message: "no such file" }
			: { ok: false, state: "unreadable", message: read.message };
	}
	if (read.text.trim() === "") return { ok: true, object: {}, text: read.text };
	let parsed: unknown;
	try {
		parsed = JSON.parse(read.text);
	} catch (error) {
		return {
			ok: false,
			state: "malformed",
			message: `not valid JSON (${error instanceof Error ? error.message : String(error)}); ignored.`,
		};
	}
	if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
		return { ok: false, state: "malformed", message: "not a JSON object; ignored." };
	}
	return { ok: true, object: parsed as Record<string, unknown>, text: read.text };
}

/** The file written, or why nothing was. */
export type WriteSwitchResult = { ok: true; path: string } | { ok: false; path: string; message: string };

/**
 * Sets the key in one settings file, keeping every other key and the file's indentation. A file that is
 * not valid JSON is refused rather than replaced: its other settings would be lost.
 */
export async function writeSwitch(
	value: boolean,
	scope: SwitchScope,
	places: Pick<SwitchPlaces, "cwd" | "agentDir">,
	ops: FileOperations = localFileOperations,
): Promise<WriteSwitchResult> {
	const path = switchPaths(places)[scope];
	const read = await readSettingsObject(path, ops);
	if (!read.ok && read.state !== "absent") {
		return {
			ok: false,
			path,
			message: `${path} is ${read.state === "malformed" ? read.message.replace(/; ignored\.$/, "") : `unreadable: ${read.message}`}; fix it first, it was not changed.`,
		};
	}
	const object = read.ok ? read.object : {};
	object[SWITCH_KEY] = value;
	const indent = (read.ok && read.text && /^([ \t]+)"/m.exec(read.text)?.[1]) || 2;
	const made = await attempt(() => ops.mkdir(dirname(path)));
	if (!made.ok) return { ok: false, path, message: `Cannot create ${dirname(path)}: ${made.message}` };
	const written = await attempt(() => ops.writeFileAtomic(path, `${JSON.stringify(object, null, indent)}\n`));
	return written.ok ? { ok: true, path } : { ok: false, path, message: `Cannot write ${path}: ${written.message}` };
}
