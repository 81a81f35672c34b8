/**
 * `pi-flows drive TASK.md`: runs the chain driver unattended. Exit 0 complete, 4 blocked (a person must
 * act), 3 a turn ended with no handoff even after its recovery turn, 2 MAX_TURNS reached or bad usage,
 * 130 stopped.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadRoster, nearestProjectDir } from "../agents/index.ts";
import { PROJECT_TRUST } from "../flow/index.ts";
import { faultText } from "../faults/index.ts";
import { drive, type DriveEnd } from "../drive/index.ts";
import { openHost, readScript } from "../pi/index.ts";
import { type Args, flag } from "./args.ts";
import type { Io } from "./io.ts";
import { displayPath } from "./output.ts";
import { formatUsage } from "../runtime/usage.ts";

const EXIT: Record<DriveEnd, number> = { complete: 0, "no-handoff": 3, blocked: 4, "max-turns": 2, stopped: 130 };

/** Runs `drive`. */
export async function driveCommand(args: Args, io: Io): Promise<number> {
	const taskFile = args.positionals[0];
	if (!taskFile) {
		io.stderr("usage: pi-flows drive TASK.md [--agent worker] [--model M] [--script FILE] [--max-turns N] [--log-dir DIR]");
		return 2;
	}
	let task: string;
	try {
		task = readFileSync(resolve(io.cwd, taskFile), "utf8");
	} catch {
		io.stderr(`pi-flows: cannot read ${taskFile}`);
		return 2;
	}
	const maxText = flag(args, "max-turns") ?? io.env.MAX_TURNS;
	const maxTurns = maxText === undefined ? 10 : Number(maxText);
	if (!Number.isInteger(maxTurns) || maxTurns < 1) {
		io.stderr(`pi-flows: MAX_TURNS (or --max-turns) must be a whole number of at least 1, not \`${maxText}\``);
		return 2;
	}
	const agentName = flag(args, "agent") ?? "worker";
	const agent = loadRoster(io.cwd, { project: args.flags.has("project") }, io.env).get(agentName);
	if (!agent || agent.kind !== "agent") {
		// The one rule for project files: an unread project agent is named, with how to trust it.
		const dir = !agent && !args.flags.has("project") ? nearestProjectDir(io.cwd, "agents") : undefined;
		const unread = dir && existsSync(join(dir, `${agentName}.md`)) ? `: it is a project agent (${displayPath(join(dir, `${agentName}.md`), io.cwd)}) and was not read; ${PROJECT_TRUST.replace("project flows", "project agents")}` : "";
		io.stderr(`pi-flows: no usable agent \`${agentName}\`${agent ? ` (${agent.cause})` : unread}`);
		return 2;
	}
	const scriptPath = flag(args, "script");
	const script = scriptPath ? readScript(readFileSync(resolve(io.cwd, scriptPath), "utf8"), scriptPath) : undefined;
	if (script && !script.value) {
		io.stderr(script.faults.map((f) => `${scriptPath}:${f.line}:${f.column}: ${f.code}: ${faultText(f)}`).join("\n"));
		return 2;
	}
	const host = await openHost({ cwd: io.cwd, agentDir: io.agentDir, ...(script?.value ? { script: script.value } : {}) });
	const model = flag(args, "model") ?? (script ? "scripted" : undefined);
	const resolved = host.resolveModel(model ?? agent.model);
	const refused = resolved.ok ? await host.missingCredentials([{ node: agent.name, ref: resolved.value.ref }]) : [resolved.error];
	if (refused.length) {
		for (const e of refused) io.stderr(`pi-flows: ${e}`);
		return 2;
	}
	const logDir = resolve(io.cwd, flag(args, "log-dir") ?? `.pi/drive/${new Date().toISOString().replace(/[:.]/g, "-")}`);
	const controller = new AbortController();
	const stop = () => controller.abort();
	process.once("SIGINT", stop);
	try {
		const out = await drive(task, {
			cwd: io.cwd,
			spawn: host.spawn,
			agent,
			...(model ? { model } : {}),
			maxTurns,
			logDir,
			signal: controller.signal,
			onTurn: (t) => io.stderr(`turn ${t.n} · ${t.outcome}${t.doc ? ` · ${t.doc.status}` : ""}${t.error ? ` · ${t.error}` : ""} · ${formatUsage(t.usage)}`),
		});
		io.stderr(`${out.end} after ${out.turns.length} turn(s) · logs in ${displayPath(logDir, io.cwd)} · ${formatUsage(out.usage)}`);
		const last = out.turns[out.turns.length - 1];
		if (out.end === "blocked" && last?.doc?.blocked) io.stderr(`blocked: ${last.doc.blocked}`);
		return EXIT[out.end];
	} finally {
		process.removeListener("SIGINT", stop);
	}
}
