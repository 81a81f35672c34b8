/**
 * One tool call following a run, for at most the server's wait: it reports progress per visit when the
 * client sent a progress token (and a beat while a long visit is quiet, so a host's idle watchdog stays
 * fed), and ends with the first of: the run's end (the report), a question for this call's client (an
 * `input_required` result carrying a form; the client answers and calls again with the answer, or on a
 * 2025-era connection the SDK puts the form to it as `elicitation/create`), the wait's end (a handle), or
 * the call cancelled (the run stopped the way Ctrl-C stops it, and its report once it has landed).
 */
import type { LiveRun, Question } from "./live-run.ts";
import { liveReport, type RunReport } from "./results.ts";

/** What a call can do, read from its client's capabilities and the request. */
export interface CallView {
	canElicit: boolean;
	/** Sends one progress notification; absent when the client sent no progress token. */
	progress?: (message: string) => void;
	signal: AbortSignal;
}

/** How a call ends. */
export type Attended = { kind: "report"; report: RunReport } | { kind: "question"; question: Question };

/** How often a quiet run still reports progress (Claude Code resets its idle watchdog on each one). */
const BEAT_MS = 15_000;

/** Follows `run` for at most `waitMs`. */
export function attend(run: LiveRun, call: CallView, waitMs: number, cwd: string): Promise<Attended> {
	return new Promise<Attended>((resolve) => {
		let settled = false;
		const cleanups: (() => void)[] = [];
		const finish = (a: Attended) => {
			if (settled) return;
			settled = true;
			for (const c of cleanups) c();
			resolve(a);
		};
		const report = () => finish({ kind: "report", report: liveReport(run, cwd) });
		void run.done.then(report, report);
		const timer = setTimeout(report, waitMs);
		cleanups.push(() => clearTimeout(timer));
		const onAbort = () => {
			// The client gave up on this call: the run stops as at Ctrl-C; the report waits for its landing.
			run.stop();
			clearTimeout(timer);
		};
		if (call.signal.aborted) onAbort();
		else {
			call.signal.addEventListener("abort", onAbort, { once: true });
			cleanups.push(() => call.signal.removeEventListener("abort", onAbort));
		}
		if (call.progress) {
			const say = call.progress;
			// The handle first: a host that loses this call can still follow the run by it.
			const p = run.progress();
			say(`${run.flow}: run ${run.id} under way${p.last ? `; at ${p.last}` : ""}`);
			const beat = setInterval(() => {
				const now = run.progress();
				say(`${run.flow}: ${now.ended} visit(s) ended${now.last ? `; at ${now.last}` : ""}`);
			}, BEAT_MS);
			cleanups.push(() => clearInterval(beat));
		}
		const detach = run.attach({
			canElicit: call.canElicit,
			onQuestion: (question) => finish({ kind: "question", question }),
			onEvent: (event) => {
				if (!call.progress) return;
				if (event.type === "node_start") call.progress(`▶ ${event.path}`);
				else if (event.type === "node_end") call.progress(`${event.ok ? "✓" : "✗"} ${event.path}`);
			},
		});
		// A question already waiting is handed over inside `attach`, before its detach could be kept.
		if (settled) detach();
		else cleanups.push(detach);
	});
}
