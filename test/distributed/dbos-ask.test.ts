/**
 * Questions on the DBOS backend: a real Postgres, a real `pi-flows worker` process, and the client that
 * follows the run in this process with a person there (a scripted asker standing in for the terminal).
 * The worker's `ask` node puts its card in the database, the follower asks the person and writes the
 * answer, the run's output uses it (also through the real CLI on a pseudo-terminal); with nobody following,
 * the node takes its default as in CI; an answer already in the database is returned to a visit that asks
 * again (a worker killed while waiting, taken over by another) without asking anyone.
 */
import { cliBin } from "../helpers/built-cli.ts";
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { loadRoster } from "../../src/agents/index.ts";
import { enqueueRun, followRun } from "../../src/distributed/client.ts";
import { answerQuestions, databaseAsk } from "../../src/distributed/questions.ts";
import { RunStore } from "../../src/distributed/store.ts";
import { migrateDatabase } from "../../src/distributed/worker.ts";
import { type AskCard, type AskPort, scriptedAsk } from "../../src/engine/index.ts";
import { catalogueOptions, checkFlowText } from "../../src/load/index.ts";
import { snapshotOf } from "../../src/runs/index.ts";
import { describePostgres } from "../helpers/postgres.ts";
import { agentFile, type TempProject, tempProject } from "../helpers/project.ts";
import { startWorker as spawnWorker, type WorkerProcess } from "../helpers/workers.ts";
import { flowOf } from "../helpers/run.ts";

const PAINT = flowOf(
	"paint",
	`  - id: plan
    agent: helper
    reads: [input]
  - id: pick
    ask: "Which colour?"
    options: [red, blue]
    default: red
    reads: [plan]
  - id: paint
    agent: helper
    reads: [pick]
`,
	{ plan: "Plan the painting of `input`.", paint: "Paint in the colour under `pick`." },
);

const SCRIPT = `turns:
  plan:
    - say: "the fence needs two coats"
  paint:
    - say: "painting it {{section:pick}}"
`;

/** The CLI processes a test starts on a pseudo-terminal, stopped after it however it ended. */
const children: ChildProcess[] = [];

afterEach(() => {
	for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

/** A `pi-flows worker` process; resolves once it joined the database. */
async function startWorker(project: TempProject, url: string): Promise<WorkerProcess> {
	const worker = spawnWorker(project, ["--database", url]);
	await worker.executor;
	return worker;
}

describePostgres("questions on the DBOS backend", (pg) => {
	let project: TempProject;
	beforeAll(() => {
		project = tempProject();
		project.write(".pi/agents/helper.md", agentFile("helper", "read"));
		project.write(".pi/flows/paint.md", PAINT);
	});
	afterAll(() => project?.cleanup());

	/** The run's snapshot as `pi-flows run --backend dbos` makes it, with or without a person at the terminal. */
	const snapshot = (somebodyThere: boolean) => {
		const sources = { project: true };
		const checked = checkFlowText(
			PAINT,
			join(project.cwd, ".pi/flows/paint.md"),
			loadRoster(project.cwd, sources, project.env),
			catalogueOptions(project.cwd, sources, project.env),
		);
		if (!checked.value) throw new Error(checked.faults.map((f) => f.message).join("\n"));
		return snapshotOf(checked.value, "the fence", new Map(), {
			cwd: project.cwd,
			somebodyThere,
			model: "scripted",
			script: { file: join(project.cwd, "paint.yaml"), text: SCRIPT },
		});
	};

	it("a worker's question is put to the person following the run, and the run's output uses the answer", async () => {
		const url = await pg().database();
		const worker = await startWorker(project, url);
		const store = new RunStore(url, 2);
		try {
			const id = await enqueueRun(store, url, snapshot(true));
			const cards: AskCard[] = [];
			const followed = await followRun(store, id, { ask: scriptedAsk({ pick: "blue" }, cards), pollMs: 50 });
			if ("stoppedFollowing" in followed) throw new Error("stopped following");
			expect(followed.result.ok, `${followed.result.error}\n${worker.log()}`).toBe(true);
			expect(String(followed.result.output)).toContain("blue");
			// Asked once, with the card the worker made: the question, its options and what it reads.
			expect(cards).toHaveLength(1);
			expect(cards[0]).toMatchObject({ visit: "pick", question: "Which colour?", hasDefault: true });
			expect(cards[0]?.options?.map((o) => o.label)).toEqual(["red", "blue"]);
			expect(cards[0]?.reads[0]?.text).toContain("two coats");
			// The journal records the question and its answer as a run folder's does.
			const asked = (await store.entries(id)).filter((e) => e.type === "asked");
			expect(asked).toMatchObject([{ path: "pick", answer: { kind: "answer", value: "blue" } }]);
			const rows = await store.query<{ answer: unknown; answered_at: Date | null }>(
				"SELECT answer, answered_at FROM pi_flows.questions WHERE run_id = $1",
				[id],
			);
			expect(rows.rows).toMatchObject([{ answer: { kind: "answer", value: "blue" } }]);
			expect(rows.rows[0]?.answered_at).toBeInstanceOf(Date);
		} finally {
			await store.close();
		}
	}, 180_000);

	it("`pi-flows run --backend dbos` at a terminal asks the person and prints the run's answer", async () => {
		const url = await pg().database();
		const worker = await startWorker(project, url);
		project.write("paint.yaml", SCRIPT);
		const quote = (a: string) => `'${a.replace(/'/g, "'\\''")}'`;
		const command = [process.execPath, cliBin(), "run", "paint", "the fence"]
			.concat(["--script", "paint.yaml", "--project", "--backend", "dbos", "--database", url])
			.map(quote)
			.join(" ");
		// util-linux's `script` gives the CLI a pseudo-terminal: stdin and stderr are terminals, as a person's are.
		const child = spawn("script", ["-qefc", command, "/dev/null"], {
			cwd: project.cwd,
			env: { ...project.env, TERM: "dumb" },
			stdio: ["pipe", "pipe", "pipe"],
		});
		children.push(child);
		let out = "";
		let answered = false;
		const onData = (d: Buffer) => {
			out += d;
			if (!answered && out.includes("number:")) {
				answered = true;
				child.stdin?.write("2\r");
			}
		};
		child.stdout?.on("data", onData);
		child.stderr?.on("data", onData);
		const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
		expect(code, `${out}\n${worker.log()}`).toBe(0);
		expect(out).toContain("Which colour?");
		expect(out).toContain("two coats");
		// The answer the person typed is what the worker's next turn read and the run printed.
		expect(out).toMatch(/painting it[\s\S]*"answer": "blue"/);
	}, 180_000);

	it("a worker killed while its question waits: the answer given meanwhile is read by the worker that takes over", async () => {
		const url = await pg().database();
		const first = await startWorker(project, url);
		const store = new RunStore(url, 2);
		try {
			const id = await enqueueRun(store, url, snapshot(true));
			const cards: AskCard[] = [];
			let second: { log(): string } | undefined;
			// The person answers only once the worker that asked is dead; then another worker joins.
			const person: AskPort = {
				somebodyThere: true,
				async ask(card) {
					cards.push(card);
					const gone = new Promise((r) => first.child.once("exit", r));
					first.child.kill("SIGKILL");
					await gone;
					second = await startWorker(project, url);
					return { kind: "answer", value: "blue" };
				},
			};
			const followed = await followRun(store, id, { ask: person, pollMs: 50 });
			if ("stoppedFollowing" in followed) throw new Error("stopped following");
			expect(followed.result.ok, `${followed.result.error}\n${first.log()}\n${second?.log()}`).toBe(true);
			expect(String(followed.result.output)).toContain("blue");
			// Asked once: the visit that ran again on the second worker found its question answered.
			expect(cards).toHaveLength(1);
			const rows = await store.query("SELECT path FROM pi_flows.questions WHERE run_id = $1", [id]);
			expect(rows.rows).toEqual([{ path: "pick" }]);
			const asked = (await store.entries(id)).filter((e) => e.type === "asked");
			expect(asked).toMatchObject([{ path: "pick", answer: { kind: "answer", value: "blue" } }]);
		} finally {
			await store.close();
		}
	}, 180_000);

	it("a run started with nobody at the terminal takes the default without writing a question", async () => {
		const url = await pg().database();
		const worker = await startWorker(project, url);
		const store = new RunStore(url, 2);
		try {
			const id = await enqueueRun(store, url, snapshot(false));
			const cards: AskCard[] = [];
			// Even a follower with a person there is not asked: the run was started unattended.
			const followed = await followRun(store, id, { ask: scriptedAsk({ pick: "blue" }, cards), pollMs: 50 });
			if ("stoppedFollowing" in followed) throw new Error("stopped following");
			expect(followed.result.ok, `${followed.result.error}\n${worker.log()}`).toBe(true);
			expect(String(followed.result.output)).toContain("red");
			expect(cards).toEqual([]);
			const rows = await store.query("SELECT 1 FROM pi_flows.questions WHERE run_id = $1", [id]);
			expect(rows.rowCount).toBe(0);
		} finally {
			await store.close();
		}
	}, 180_000);

	it("an answered question is not asked again when its visit runs again; with nobody following it settles", async () => {
		const url = await pg().database();
		await migrateDatabase(url);
		const store = new RunStore(url, 2);
		try {
			// No worker here: the run's row is all this test needs; its queued workflow stays queued.
			const id = await enqueueRun(store, url, snapshot(true));
			const card: AskCard = { visit: "pick", question: "Which colour?", reads: [] };
			const first = databaseAsk(store, id, 1, { pollMs: 20 });
			const asking = first.ask(card);
			const cards: AskCard[] = [];
			// The follower finds the question once the worker wrote it, and answers it.
			let answered = 0;
			while (!answered) answered = await answerQuestions(store, id, scriptedAsk({ pick: "blue" }, cards));
			expect(await asking).toEqual({ kind: "answer", value: "blue" });
			// A worker that takes the visit over asks again: the stored answer comes back, nobody is asked.
			const again = await databaseAsk(store, id, 1, { pollMs: 20, goneAfterMs: 0 }).ask(card);
			expect(again).toEqual({ kind: "answer", value: "blue" });
			expect(await answerQuestions(store, id, scriptedAsk({ pick: "red" }, cards))).toBe(0);
			expect(cards).toHaveLength(1);
			// A question in a life nobody follows any more settles as nobody's, once: the default applies.
			const alone = await databaseAsk(store, id, 2, { pollMs: 20, goneAfterMs: 200 }).ask({
				...card,
				visit: "other",
			});
			expect(alone).toEqual({ kind: "nobody" });
			// A stop ends the wait and leaves the question open.
			const stop = new AbortController();
			const waiting = databaseAsk(store, id, 3, { pollMs: 20 }).ask({ ...card, visit: "late" }, stop.signal);
			stop.abort();
			expect(await waiting).toEqual({ kind: "stopped" });
		} finally {
			await store.close();
		}
	}, 60_000);
});
