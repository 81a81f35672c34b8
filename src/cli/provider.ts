/**
 * `pi-flows provider [script.yaml]`: serves the scripted provider (OpenAI chat-completions and Anthropic
 * messages) on 127.0.0.1 until interrupted, and writes the `models.json` that points pi at it, so a user
 * can run their own flows through pi's real provider code against the faults real providers have. With
 * `--agent-dir`, its providers are added to that folder's `models.json`, every other provider kept.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { readProviderScript, startProviderServer, type ProviderServerOptions } from "../provider/index.ts";
import { type Args, flag } from "./args.ts";
import type { Io } from "./io.ts";
import { mergeModelsFile } from "./models-file.ts";

/** Runs the command; resolves when the server stops. */
export async function providerCommand(args: Args, io: Io, stop?: AbortSignal): Promise<number> {
	let options: ProviderServerOptions = {};
	const file = args.positionals[0];
	if (file) {
		let text: string;
		try {
			text = readFileSync(resolve(io.cwd, file), "utf8");
		} catch (error) {
			io.stderr(`pi-flows provider: cannot read ${file}: ${(error as Error).message}`);
			return 2;
		}
		const read = readProviderScript(text);
		if (!read.ok) {
			io.stderr(`pi-flows provider: ${file}: ${read.error}`);
			return 2;
		}
		options = read.value;
	}
	const server = await startProviderServer(options);
	const models = server.modelsJson({ name: flag(args, "name") ?? "wire" });
	const dir = flag(args, "agent-dir");
	let written = "";
	if (dir) {
		const merged = mergeModelsFile(resolve(io.cwd, dir), models);
		if (!merged.ok) {
			await server.close();
			io.stderr(`pi-flows provider: ${merged.error}`);
			return 2;
		}
		const kept = merged.kept.length ? `, keeping ${merged.kept.join(", ")}` : "";
		const copy = merged.backup ? `; the old file is ${merged.backup}` : "";
		written = `; ${merged.added.join(", ")} added to ${merged.path}${kept}${copy}`;
	}
	io.stdout(JSON.stringify({ url: server.url, models }));
	io.stderr(
		`pi-flows provider: serving ${server.url} (models ${Object.keys(models.providers as object)
			.map((p) => `${p}/wire-1`)
			.join(", ")})${written}; Ctrl-C stops`,
	);
	await new Promise<void>((done) => {
		const end = () => done();
		stop?.addEventListener("abort", end, { once: true });
		process.once("SIGINT", end);
		process.once("SIGTERM", end);
	});
	const billed = server.billed();
	io.stderr(
		`pi-flows provider: ${server.requests.length} request(s), billed ↑${billed.input} in ↓${billed.output} out, cache read ${billed.cacheRead}, cache write ${billed.cacheWrite}`,
	);
	await server.close();
	return 0;
}
