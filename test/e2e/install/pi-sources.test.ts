/**
 * Issue 33, point 1: pi-flows loads from every place pi loads a package, with the real `pi` CLI, offline:
 * the packed tarball (`pi install npm:pi-flows@file:<tarball>`: the name first, so pi knows where npm put
 * it), a `git:` source (a snapshot of this tree served over loopback HTTP, git's "dumb" protocol: pi's
 * `git:` takes hosts, not file paths or file URLs), a local path and `pi -e <checkout>` (this checkout,
 * after `npm install`). Everywhere pi loads the one entry `pi.extensions` names, `extension.ts`; it runs the
 * build (`dist/extension.js`) from the tarball, which ships no sources, and the sources
 * (`src/extension/index.ts`, through pi's jiti) everywhere else, even where a build was left in `dist/`.
 * `npm:pi-flows` from the registry is pi-install.test.ts's case (the same install, listed by name).
 */
import { execFile, execFileSync } from "node:child_process";
import {
	cpSync,
	createReadStream,
	existsSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	statSync,
	writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join, normalize } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, node, pack, piCli, repo, scratch } from "../../helpers/packed.ts";
import { commandsFrom, OUR_COMMANDS, piRpc } from "../../helpers/pi-rpc.ts";

const box = scratch("pi-sources");
let tarball: string;
let server: Server;
let gitUrl: string;

/** This tree as a contributor has it (tracked and new files, not ignored ones), committed to a bare repo. */
function serveSnapshot(): Promise<string> {
	const work = join(box.dir, "snapshot");
	const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
		cwd: repo,
		encoding: "utf8",
	})
		.split("\0")
		.filter((f) => f && existsSync(join(repo, f)));
	for (const f of files) {
		mkdirSync(dirname(join(work, f)), { recursive: true });
		cpSync(join(repo, f), join(work, f));
	}
	const git = (cwd: string, ...args: string[]) =>
		execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, stdio: "ignore" });
	git(work, "init", "-q");
	git(work, "add", "-A");
	git(work, "commit", "-qm", "snapshot");
	const served = join(box.dir, "served");
	mkdirSync(join(served, "me"), { recursive: true });
	git(box.dir, "clone", "-q", "--bare", work, join(served, "me/pi-flows.git"));
	git(join(served, "me/pi-flows.git"), "update-server-info");
	server = createServer((req, res) => {
		const file = join(served, normalize(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname)));
		if (!file.startsWith(served) || !statSync(file, { throwIfNoEntry: false })?.isFile()) {
			res.writeHead(404).end();
			return;
		}
		res.writeHead(200);
		createReadStream(file).pipe(res);
	});
	return new Promise((ready) =>
		server.listen(0, "127.0.0.1", () => ready(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
	);
}

beforeAll(async () => {
	tarball = pack(join(box.dir, "pack"));
	gitUrl = `git:${await serveSnapshot()}/me/pi-flows.git`;
}, 300_000);
afterAll(async () => {
	// git's dumb-protocol client may leave keep-alive connections open, which `close` alone waits out.
	server?.closeAllConnections();
	await new Promise((done) => (server ? server.close(done) : done(undefined)));
	// Four installs' worth of packages to delete.
	box.cleanup();
}, 120_000);

/** A fresh agent folder and project for one way of loading; `npm_config_offline` keeps npm on its cache. */
function place(name: string) {
	const agentDir = join(box.dir, name, "agent");
	const project = join(box.dir, name, "project");
	mkdirSync(agentDir, { recursive: true });
	mkdirSync(project, { recursive: true });
	const env = cleanEnv({ PI_CODING_AGENT_DIR: agentDir, npm_config_offline: "true" });
	// Not spawnSync: the git server answers from this process's event loop.
	const install = async (source: string) => {
		const out = await promisify(execFile)(node, [piCli, "install", source], { cwd: project, env, timeout: 240_000 });
		expect(out.stdout).toContain(`Installed ${source}`);
	};
	return { agentDir, project, env, install };
}

/** pi started there registers our commands once, from `root`'s entry, and `/run explore` ends ok. */
async function loadsAndRuns(at: ReturnType<typeof place>, root: string, args: string[] = []) {
	const pi = piRpc(at.project, at.env, args);
	try {
		const ours = await commandsFrom(pi, root);
		expect(ours.names).toEqual(OUR_COMMANDS);
		expect(ours.files).toEqual([join(root, "extension.ts")]);
		expect(pi.lines.filter((l) => l.type === "extension_error")).toEqual([]);
		expect(pi.stderr()).not.toMatch(/Failed to load extension/);
		const script = join(root, "flows/explore.script.yaml");
		const run = await pi.request({ type: "prompt", message: `/run explore "What is pi-flows?" --script ${script}` });
		expect(run.success, JSON.stringify(run)).toBe(true);
		const runs = join(at.project, ".pi/runs");
		const [folder] = readdirSync(runs);
		const result = JSON.parse(readFileSync(join(runs, folder, "result.json"), "utf8")) as { ok: boolean };
		expect(result.ok, pi.stderr()).toBe(true);
	} finally {
		await pi.close();
	}
}

describe("pi-flows loads wherever pi loads a package", () => {
	it("from the packed tarball, installed as npm:pi-flows@file:<tarball>: the build", async () => {
		const at = place("tarball");
		await at.install(`npm:pi-flows@file:${tarball}`);
		const root = join(at.agentDir, "npm/node_modules/pi-flows");
		// No sources beside the entry: what registered is the build.
		expect(existsSync(join(root, "src"))).toBe(false);
		expect(existsSync(join(root, "dist/extension.js"))).toBe(true);
		await loadsAndRuns(at, root);
	}, 300_000);

	it("from a git: source: the sources, with only the runtime dependencies pi's git install brings, also with a build left in dist/", async () => {
		const at = place("git");
		await at.install(gitUrl);
		const root = join(at.agentDir, "git/127.0.0.1/me/pi-flows");
		expect(existsSync(join(root, "node_modules/yaml")), "npm install --omit=dev ran").toBe(true);
		await loadsAndRuns(at, root);
		// The same clone once a build has been left in its dist/, one that would register a command of its own:
		// it still registers once, from its sources, and the build's command is nowhere.
		const unpacked = join(box.dir, "unpacked");
		mkdirSync(unpacked, { recursive: true });
		execFileSync("tar", ["-xzf", tarball, "-C", unpacked]);
		cpSync(join(unpacked, "package/dist"), join(root, "dist"), { recursive: true });
		writeFileSync(
			join(root, "dist/extension.js"),
			'export default function (pi) { pi.registerCommand("stale-build", { handler: async () => {} }); }\n',
		);
		const pi = piRpc(at.project, at.env);
		try {
			expect(await commandsFrom(pi, root)).toEqual({ names: OUR_COMMANDS, files: [join(root, "extension.ts")] });
			expect(pi.lines.filter((l) => l.type === "extension_error")).toEqual([]);
		} finally {
			await pi.close();
		}
	}, 300_000);

	it("from a local path: a checkout after npm install", async () => {
		const at = place("local");
		await at.install(repo);
		await loadsAndRuns(at, repo);
	}, 300_000);

	it("with pi -e <checkout>", async () => {
		await loadsAndRuns(place("dash-e"), repo, ["-e", repo]);
	}, 300_000);
});
