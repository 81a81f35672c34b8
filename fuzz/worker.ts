/**
 * A fuzz worker: runs the shards it is sent and answers each with its outcome. Loading the targets once
 * per worker (the agent roster, the grammars) is what makes small shards cheap.
 */
import { parentPort } from "node:worker_threads";
import { runTarget } from "./harness.ts";
import { TARGETS } from "./targets.ts";

/** One shard of one target. */
export interface Task {
	id: number;
	target: string;
	cases: number;
	seed: number;
}

const port = parentPort;
if (!port) throw new Error("fuzz/worker.ts runs as a worker thread of fuzz/run.ts");
port.on("message", (task: Task) => {
	const target = TARGETS.find((t) => t.name === task.target);
	if (!target) throw new Error(`no fuzz target ${task.target}`);
	port.postMessage({ id: task.id, outcome: runTarget(target, { cases: task.cases, seed: task.seed }) });
});
