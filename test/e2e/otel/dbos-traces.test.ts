/**
 * A run on the DBOS backend, two `pi-flows worker` processes sharing its map, each exporting with the
 * standard environment to a receiver in this test: one trace, whichever worker ran a visit. The map's
 * span travels with each item, so every item's span hangs under it from the worker that ran the item, and
 * the coordinator, which replays the items' ends to walk on, draws none of them twice.
 */
import { afterEach, expect, it } from "vitest";
import { RunStore } from "../../../src/distributed/store.ts";
import { describePostgres } from "../../helpers/postgres.ts";
import { drawTree, type ReceivedSpan, type Receiver, startReceiver } from "../../helpers/otlp.ts";
import { agentFile, tempProject } from "../../helpers/project.ts";
import { startWorker } from "../../helpers/workers.ts";
import { fanFlow, journalRows, runFan } from "../../distributed/fan.ts";

const ITEMS = 6;
const CONSUMER = 5;
const CALLER_TRACE = "0af7651916cd43dd8448eb211c80319c";
const CALLER_SPAN = "b7ad6b7169203331";

let receiver: Receiver | undefined;
afterEach(async () => {
	await receiver?.close();
	receiver = undefined;
});

const SCRIPT = `turns:
  work:
    - say: "done with {{section:item|lines:1}}"
      delay: 400
  sum:
    - say: "all done"
`;

describePostgres("traces on the DBOS backend", (pg) => {
	it("two workers, one trace: each item's span under the map's, from the worker that ran it", async () => {
		receiver = await startReceiver();
		const url = await pg().database();
		const project = tempProject();
		const store = new RunStore(url, 2);
		try {
			project.write(".pi/agents/helper.md", agentFile("helper", "read"));
			project.write(".pi/flows/fan.md", fanFlow(ITEMS));
			project.write("s.yaml", SCRIPT);
			const env = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: "fan-workers" };
			const workers = [1, 2].map(() =>
				startWorker(project, ["--database", url, "--project", "--slots", "2", "--dead-after-ms", "4000"], env),
			);
			await Promise.all(workers.map((w) => w.executor));
			// The person's own span (a CI job's) wraps the command: the run, on whichever worker, is inside it.
			const ran = await runFan(project, url, "s.yaml", { TRACEPARENT: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` });
			expect(ran.status, `${ran.stderr}\n${workers.map((w) => w.log()).join("\n")}`).toBe(0);
			// A worker leaving (SIGTERM) exports what it traced before it exits.
			await Promise.all(
				workers.map(
					(w) =>
						new Promise<void>((resolve) => {
							w.child.once("exit", () => resolve());
							w.child.kill("SIGTERM");
						}),
				),
			);
			const spans = receiver.spans;
			const tree = drawTree(spans);
			expect(new Set(spans.map((s) => s.traceId)).size, tree).toBe(1);
			for (const s of spans) expect(s.resource["service.name"]).toBe("fan-workers");

			expect(spans[0]?.traceId).toBe(CALLER_TRACE);
			const roots = spans.filter((s) => s.parentSpanId === CALLER_SPAN);
			expect(
				roots.map((s) => s.name),
				tree,
			).toEqual(["invoke_workflow fan"]);
			const root = roots[0] as ReceivedSpan;
			expect(root.attributes).toMatchObject({ "pi_flows.run.backend": "dbos", "pi_flows.run.life": 1 });
			const map = spans.find((s) => s.name === "map items") as ReceivedSpan;
			expect(map.parentSpanId, tree).toBe(root.spanId);

			const items = spans.filter((s) => s.name.startsWith("map_item "));
			expect(items.map((s) => s.attributes["pi_flows.map.item"]).sort(), tree).toEqual([1, 2, 3, 4, 5, 6]);
			for (const item of items) {
				expect(item.parentSpanId).toBe(map.spanId);
				expect(item.kind).toBe(CONSUMER);
				const n = item.attributes["pi_flows.map.item"];
				const visits = spans.filter((s) => s.parentSpanId === item.spanId);
				expect(
					visits.map((s) => [s.name, s.attributes["pi_flows.visit.path"]]),
					tree,
				).toEqual([["invoke_agent helper", `items[${n}]/work`]]);
				const visit = visits[0] as ReceivedSpan;
				expect(visit.resource["process.pid"]).toBe(item.resource["process.pid"]);
				expect(spans.filter((s) => s.parentSpanId === visit.spanId).map((s) => s.name)).toEqual(["chat scripted"]);
			}
			// The map was shared: items ran in both workers' processes, the coordinator's among them or not.
			expect(new Set(items.map((s) => s.resource["process.pid"])).size, tree).toBe(2);
			// Each item's visit is drawn once, by its worker: the coordinator's replay of its end draws nothing.
			expect(spans.filter((s) => s.name === "invoke_agent helper").length).toBe(ITEMS + 1);
			const sum = spans.find((s) => s.attributes["pi_flows.visit.path"] === "sum" && s.name === "invoke_agent helper");
			expect(sum?.parentSpanId).toBe(root.spanId);

			// The database's journal keeps the life's root, as a run folder's does.
			const life = (await journalRows(store)).find((r) => r.type === "life_start")?.entry;
			expect(life?.type === "life_start" && life.trace).toBe(`00-${root.traceId}-${root.spanId}-01`);
		} finally {
			await store.close();
			project.cleanup();
		}
	}, 180_000);
});
