import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { contentOf, type Line, rpc, pairSandbox, type Sandbox } from "./helpers/pi-process.ts";

let box: Sandbox;
beforeEach(() => {
	box = pairSandbox('turns:\n  draft:\n    - say: DRAFT TEXT\n  review:\n    - say: "REVIEW SAW: {{task}}"\n');
});
afterEach(() => box.cleanup());

const notes = (lines: Line[]) =>
	lines
		.filter((l) => l.type === "message_end" && (l.message as { customType?: string }).customType === "pi-flows-note")
		.map(contentOf);

describe("/step", () => {
	it("shows what each turn reads and its result, lets the person edit the next input, and keeps it all out of the model's context", async () => {
		const asked: Line[] = [];
		const pi = rpc(box, {
			args: ["--model", "driver/driver"],
			env: { PI_FLOWS_TEST_DRIVER: "[]" },
			onUi: (r) => {
				if (r.method === "select") {
					asked.push(r);
					return { value: asked.length === 1 ? "edit the next input" : "continue" };
				}
				if (r.method === "editor") {
					asked.push(r);
					return { value: `${String(r.prefill)}\nEDITED BY HAND` };
				}
				return undefined;
			},
		});
		try {
			await pi.prompt("/step pair write it --script pair.script.yaml");
			expect(asked.map((r) => `${r.method}: ${r.title}`)).toEqual([
				"select: draft ended. Next?",
				"editor: Edit what review reads",
				"select: review ended. Next?",
			]);
			expect(asked[0].options).toEqual(["continue", "edit the next input", "stop"]);
			expect(String(asked[1].prefill)).toContain("## draft\n\nDRAFT TEXT");
			const shown = notes(pi.lines);
			expect(shown[0]).toMatch(/^▸ \*\*draft\*\* · echo · scripted\/scripted\n\nIt reads:\n\n```\nDo your part/);
			expect(shown[1]).toMatch(/^✓ \*\*draft\*\* · .*\n\nDRAFT TEXT$/);
			expect(shown[2]).toContain("EDITED BY HAND");
			expect(shown[3]).toContain("REVIEW SAW:");
			expect(shown[3]).toContain("EDITED BY HAND");
			expect(shown[4]).toMatch(/^◆ pair\n[\s\S]*\nok · \.pi\/runs\//);
			// The model's next turn sees none of it.
			await pi.prompt("what happened?");
			const answer = await pi.waitFor((l) => l.type === "agent_settled", "the model's turn");
			expect(answer).toBeDefined();
			const reply = pi.lines
				.filter((l) => l.type === "message_end" && (l.message as { role: string }).role === "assistant")
				.at(-1) as Line;
			expect(JSON.stringify(reply)).toContain("NOTE IN CONTEXT: no; RESULT IN CONTEXT: no");
		} finally {
			await pi.close();
		}
	});

	it("stops when the person says stop, and plays one turn for an agent's name", async () => {
		const script = box.write("any.script.yaml", 'turns:\n  "*":\n    - say: ONE TURN OF ECHO\n');
		const pi = rpc(box, {
			env: { PI_FLOWS_TEST_SCRIPT: script },
			onUi: (r) => (r.method === "select" ? { value: "stop" } : undefined),
		});
		try {
			await pi.prompt("/step pair write it --script pair.script.yaml");
			const shown = notes(pi.lines);
			expect(shown.some((n) => n.includes("REVIEW SAW"))).toBe(false);
			expect(shown.at(-1)).toMatch(/stopped by you at review · \.pi\/runs\//);
			await pi.prompt("/step echo say hi --model scripted/scripted");
			const turn = notes(pi.lines).slice(shown.length);
			expect(turn).toEqual([
				expect.stringMatching(/^▸ \*\*echo\*\* · echo · scripted\/scripted\n\nIt reads:\n\n```\nsay hi\n```$/),
				expect.stringMatching(/^✓ \*\*echo\*\* · .*\n\nONE TURN OF ECHO$/),
			]);
		} finally {
			await pi.close();
		}
	});

	it("plays an agent's one turn on a script, and refuses a script whose keys name no such agent", async () => {
		box.write("echo.script.yaml", 'turns:\n  echo:\n    - say: "SCRIPTED ECHO: {{task}}"\n');
		box.write("typo.script.yaml", "turns:\n  ech:\n    - say: never\n");
		const pi = rpc(box);
		try {
			await pi.prompt("/step echo say hi --script echo.script.yaml");
			const turn = notes(pi.lines);
			expect(turn).toEqual([
				expect.stringMatching(/^▸ \*\*echo\*\* · echo · scripted\n\nIt reads:\n\n```\nsay hi\n```$/),
				expect.stringMatching(/^✓ \*\*echo\*\* · .*\n\nSCRIPTED ECHO: say hi$/),
			]);
			await pi.prompt("/step echo say hi --script typo.script.yaml");
			const said = JSON.stringify(pi.lines.slice(-20));
			expect(said).toContain("/step echo: refused");
			expect(said).toContain("script-unknown-node");
			expect(notes(pi.lines)).toHaveLength(2);
		} finally {
			await pi.close();
		}
	});
});
