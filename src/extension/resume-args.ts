/**
 * `/run resume`'s words read as `pi-flows resume` reads its command line: a run folder (optional) and the
 * flags they share, `--in-doubt rerun|stop`, `--take-lock`, `--runs-dir DIR` and `--timeout D`, anywhere
 * on the line. A flag of the CLI's that pi has no use for (`--json`, `--backend`, `--database`, the budget
 * and retry flags) is refused by name, rather than read as a run folder.
 *
 *   readResumeLine("--in-doubt rerun .pi/runs/x")  → { ok: true, value: { run: ".pi/runs/x", inDoubt: "rerun" } }
 */
import { durationFlagError, parseDuration } from "../language/syntax/index.ts";

/** What `/run resume` was asked. */
export interface ResumeLine {
	run?: string;
	inDoubt?: "rerun" | "stop";
	takeLock?: boolean;
	runsDir?: string;
	timeoutMs?: number;
}

/** The CLI's resume flags this command does not take, and where to use them. */
const CLI_ONLY = [
	"--json",
	"--backend",
	"--database",
	"--budget-tokens",
	"--budget-cost",
	"--budget-turns",
	"--retries",
	"--retry-wait",
];

/** Reads the words after `/run resume`, or says in one sentence what is wrong with them. */
export function readResumeLine(text: string): { ok: true; value: ResumeLine } | { ok: false; error: string } {
	const words = text.trim().split(/\s+/).filter(Boolean);
	const value: ResumeLine = {};
	const rest: string[] = [];
	for (let i = 0; i < words.length; i++) {
		const w = words[i];
		const next = words[i + 1];
		if (w === "--take-lock") value.takeLock = true;
		else if (w === "--in-doubt") {
			if (next !== "rerun" && next !== "stop") return { ok: false, error: "`--in-doubt` takes `rerun` or `stop`" };
			value.inDoubt = next;
			i++;
		} else if (w === "--runs-dir" || w === "--timeout") {
			if (next === undefined || next.startsWith("--")) return { ok: false, error: `\`${w}\` needs a value` };
			if (w === "--runs-dir") value.runsDir = next;
			else {
				const ms = parseDuration(next);
				if (ms === undefined)
					return {
						ok: false,
						error: durationFlagError("--timeout", next) ?? `\`--timeout ${next}\` is not a duration`,
					};
				value.timeoutMs = ms;
			}
			i++;
		} else if (CLI_ONLY.includes(w)) {
			return {
				ok: false,
				error: `\`${w}\` is for \`pi-flows resume\` on the command line; /run resume takes --in-doubt, --take-lock, --runs-dir and --timeout`,
			};
		} else if (w.startsWith("--")) {
			return {
				ok: false,
				error: `unknown flag \`${w}\`; /run resume takes --in-doubt, --take-lock, --runs-dir and --timeout`,
			};
		} else rest.push(w);
	}
	if (rest.length > 1) return { ok: false, error: `one run folder at most, not \`${rest.join(" ")}\`` };
	if (rest[0]) value.run = rest[0];
	return { ok: true, value };
}
