/**
 * A question a run puts in pi, answered from `pi-flows serve`'s page instead: pi itself runs the flow
 * (`pi --mode rpc`, `/run`), its dialog is left open as a person who walked away leaves it, and the answer
 * comes through the server's HTTP action with the token, the cookie and the CSRF check a page sends. The
 * dialog in pi closes, the run goes on with the page's answer, and the journal records that answer once.
 */
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Served, startServer } from "../../src/serve/index.ts";
import { agent } from "./helpers/flows.ts";
import { contentOf, flowResults, type Line, rpc, runFoldersIn, type Sandbox, sandbox } from "./helpers/pi-process.ts";

const PICK = `---
name: pick
description: asks for a colour, then says it
input: string
nodes:
  - id: pick
    ask: Which colour?
    options: [red, green, blue]
  - id: say
    agent: echo
    reads: [pick]
---

## say

Say the colour under \`pick\`.
`;

interface Reply {
	status: number;
	body: string;
	cookie: string;
}

let box: Sandbox;
let served: Served | undefined;
beforeEach(() => {
	box = sandbox();
	box.write("~agent/agents/echo.md", agent("echo"));
	box.write("~agent/flows/pick.md", PICK);
	box.write("pick.script.yaml", 'turns:\n  say:\n    - say: "{{task}}"\n');
});
afterEach(async () => {
	await served?.close();
	served = undefined;
	box.cleanup();
});

describe("a question waiting in pi", () => {
	it("is answered from the page: pi's dialog closes and the run goes on with the page's answer", async () => {
		const dialogs: Line[] = [];
		// Nobody answers in pi: the dialog stays open until something else settles the question.
		const pi = rpc(box, {
			onUi: (r) => {
				if (r.method === "select") dialogs.push(r);
				return undefined;
			},
		});
		try {
			const ran = pi.prompt("/run pick colours --script pick.script.yaml");
			await pi.waitFor((l) => l.type === "extension_ui_request" && l.method === "select", "pi's dialog");
			expect(String(dialogs[0]?.title)).toContain("Which colour?");

			served = await startServer({
				cwd: box.cwd,
				agentDir: box.agentDir,
				env: box.env(),
				home: join(box.cwd, ".pi", "runs"),
				project: false,
			});
			const { port } = served;
			const host = `127.0.0.1:${port}`;
			let cookie = "";
			let csrf = "";
			const call = (path: string, method = "GET", body?: unknown) =>
				new Promise<Reply>((resolve, reject) => {
					const headers: Record<string, string> = { host, cookie };
					if (method === "POST")
						Object.assign(headers, {
							origin: `http://${host}`,
							"content-type": "application/json",
							"x-pi-flows-csrf": csrf,
						});
					const req = request({ host: "127.0.0.1", port, path, method, headers, agent: false }, (res) => {
						let text = "";
						res.on("data", (d: Buffer) => {
							text += d;
						});
						res.on("end", () =>
							resolve({
								status: res.statusCode ?? 0,
								body: text,
								cookie: String(res.headers["set-cookie"] ?? "").split(";")[0] ?? "",
							}),
						);
					});
					req.on("error", reject);
					req.end(body === undefined ? undefined : JSON.stringify(body));
				});
			cookie = (await call(`/?token=${new URL(served.url).searchParams.get("token")}`)).cookie;
			csrf = /name="pi-flows-csrf" content="([^"]+)"/.exec((await call("/")).body)?.[1] ?? "";
			expect(csrf).not.toBe("");

			const [folder] = runFoldersIn(box.cwd);
			const id = folder?.split("/").pop() ?? "";
			const view = JSON.parse((await call(`/api/run/folder/${id}`)).body) as {
				view: { head: { status: string }; questions: { visit: string }[] };
			};
			expect(view.view.head.status).toBe("waiting");
			expect(view.view.questions.map((q) => q.visit)).toEqual(["pick"]);

			// Not an option the question offers: refused, and the question still waits.
			const wrong = await call(`/api/run/folder/${id}/answer`, "POST", {
				life: 1,
				visit: "pick",
				answer: { kind: "answer", value: "purple" },
			});
			expect(wrong.status, wrong.body).toBeGreaterThanOrEqual(400);
			const given = await call(`/api/run/folder/${id}/answer`, "POST", {
				life: 1,
				visit: "pick",
				answer: { kind: "answer", value: "green" },
			});
			expect(JSON.parse(given.body), given.body).toMatchObject({ ok: true });

			await ran;
			const said = contentOf(flowResults(await settled(pi.lines))[0] as Line);
			expect(said).toContain('"answer": "green"');
			expect(said).toMatch(/\nok · \.pi\/runs\//);
			const journal = readFileSync(join(folder ?? "", "journal.jsonl"), "utf8")
				.split("\n")
				.filter(Boolean)
				.map((l) => JSON.parse(l) as { type: string; path?: string; answer?: unknown });
			const answers = journal.filter((e) => e.type === "asked");
			expect(answers).toHaveLength(1);
			expect(answers[0]).toMatchObject({ path: "pick", answer: { kind: "answer", value: "green" } });
			// pi was asked once; its dialog was closed by the page's answer, never answered in pi.
			expect(dialogs).toHaveLength(1);
		} finally {
			await pi.close();
		}
	}, 120_000);
});

/** The lines once the run's result message is among them. */
async function settled(lines: Line[]): Promise<Line[]> {
	for (let i = 0; i < 100 && flowResults(lines).length === 0; i++) await new Promise((r) => setTimeout(r, 100));
	return lines;
}
