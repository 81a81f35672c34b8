/** The machine a bench ran on, for the record next to its figures. */
import { cpus, loadavg, totalmem } from "node:os";

export interface Machine {
	cpu: string;
	cores: number;
	memoryGb: number;
	node: string;
	platform: string;
	date: string;
	/** The 1-minute load average when the bench started (a busy shared machine shows here). */
	load: number;
}

export function machine(): Machine {
	const list = cpus();
	return {
		cpu: list[0]?.model.trim() || "unknown cpu",
		cores: list.length,
		memoryGb: Math.round(totalmem() / 2 ** 30),
		node: process.version,
		platform: `${process.platform}-${process.arch}`,
		date: new Date().toISOString().slice(0, 10),
		load: loadavg()[0],
	};
}

export function describeMachine(m: Machine): string {
	return `${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB, ${m.platform}, node ${m.node}, ${m.date}, load average ${m.load.toFixed(1)} at the start`;
}
