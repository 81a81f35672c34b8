/**
 * The run folder's control channel: a question a life waits on is put in the folder; an answer is given
 * once, by whichever side creates the answer file first (the run's own prompt or a watcher), and the
 * other side is told so; a stop asked of a life aborts that life's signal and no other's.
 */
import { mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AskAnswer, AskCard, AskPort } from "../../src/engine/index.ts";
import { folderControl } from "../../src/runs/control.ts";
import { askStop, giveAnswer, putQuestions, readAnswer } from "../../src/runs/index.ts";

const CARD: AskCard = {
	visit: "pick",
	question: "Which colour?",
	options: [{ label: "red" }, { label: "blue" }],
	reads: [],
};

/** A prompt that answers when told, and reports how it was closed. */
function prompt() {
	let answer: ((a: AskAnswer) => void) | undefined;
	let closedWith: unknown;
	const port: AskPort = {
		somebodyThere: true,
		ask: (_card, signal) =>
			new Promise<AskAnswer>((resolve) => {
				answer = resolve;
				signal?.addEventListener("abort", () => {
					closedWith = signal.reason;
					resolve({ kind: "stopped" });
				});
			}),
	};
	return {
		port,
		answer: (a: AskAnswer) => answer?.(a),
		closedWith: () => closedWith,
		asked: () => answer !== undefined,
	};
}

const until = async (check: () => boolean) => {
	while (!check()) await new Promise((r) => setTimeout(r, 10));
};

describe("the control channel", () => {
	let dir: string;
	beforeEach(() => {
		dir = mkdtempSync(join(tmpdir(), "pi-flows-control-"));
	});
	afterEach(() => rmSync(dir, { recursive: true, force: true }));

	it("takes the watcher's answer, closes the prompt saying so, and refuses a second answer", async () => {
		const control = folderControl(dir, 1, 10);
		const p = prompt();
		try {
			const asking = control.ask(p.port)?.ask(CARD);
			await until(() => putQuestions(dir).length === 1);
			expect(putQuestions(dir)[0]).toMatchObject({ life: 1, visit: "pick", pid: process.pid });
			expect(giveAnswer(dir, 1, "pick", { kind: "answer", value: "green" }, "the browser")).toMatchObject({
				ok: false,
			});
			expect(giveAnswer(dir, 1, "pick", { kind: "answer", value: "blue" }, "the browser")).toEqual({ ok: true });
			expect(await asking).toEqual({ kind: "answer", value: "blue" });
			expect((p.closedWith() as Error).message).toBe("answered from the browser: blue");
			const again = giveAnswer(dir, 1, "pick", { kind: "answer", value: "red" }, "the browser");
			expect(again).toMatchObject({ ok: false, error: "already answered from the browser" });
			// The question is no longer put once its ask returned.
			expect(putQuestions(dir)).toEqual([]);
		} finally {
			control.close();
		}
	});

	it("lets the run's own prompt answer first: its answer stands and the watcher is told", async () => {
		const control = folderControl(dir, 1, 10);
		const p = prompt();
		try {
			const asking = control.ask(p.port)?.ask(CARD);
			await until(() => p.asked());
			p.answer({ kind: "answer", value: "red" });
			expect(await asking).toEqual({ kind: "answer", value: "red" });
			expect(readAnswer(dir, 1, "pick")).toMatchObject({ answer: { value: "red" }, by: "the run's own prompt" });
			expect(giveAnswer(dir, 1, "pick", { kind: "answer", value: "blue" }, "the browser")).toMatchObject({
				ok: false,
				error: "already answered from the run's own prompt",
			});
		} finally {
			control.close();
		}
	});

	it("leaves a port with nobody there alone", () => {
		const control = folderControl(dir, 1, 10);
		try {
			const nobody: AskPort = { somebodyThere: false, ask: async () => ({ kind: "nobody" }) };
			expect(control.ask(nobody)).toBe(nobody);
			expect(control.ask(undefined)).toBeUndefined();
		} finally {
			control.close();
		}
	});

	it("aborts a life's signal on its stop, and not on another life's", async () => {
		const one = folderControl(dir, 1, 10);
		const two = folderControl(dir, 2, 10);
		try {
			expect(askStop(dir, 2, "the browser")).toEqual({ ok: true });
			await until(() => two.signal.aborted);
			await new Promise((r) => setTimeout(r, 50));
			expect(one.signal.aborted).toBe(false);
		} finally {
			one.close();
			two.close();
		}
	});

	it("never writes through a control folder that links out of the run folder", () => {
		const outside = mkdtempSync(join(tmpdir(), "pi-flows-outside-"));
		try {
			symlinkSync(outside, join(dir, "control"));
			expect(askStop(dir, 1, "the browser")).toMatchObject({ ok: false });
			expect(readdirSync(outside)).toEqual([]);
		} finally {
			rmSync(outside, { recursive: true, force: true });
		}
	});
});
