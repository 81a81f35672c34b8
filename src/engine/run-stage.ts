/**
 * The run stage: what a checked flow needs from this project and this terminal, judged before anything
 * spawns. Check scripts exist inside the repository (their content is read here, once, and that is what
 * runs); a flow that commits, copies or reads `diff` is in a git repository; and when nobody is there to
 * answer, no reachable question lacks a default.
 */
import { readFileSync } from "node:fs";
import { type Fault, fault, sortFaults } from "../faults/index.ts";
import { allNodes, type FlowNode } from "../language/ast.ts";
import type { CheckedFlow } from "../language/check/index.ts";
import { type GitPort, scriptPath } from "./ports/index.ts";

/** What the run stage needs to know about the terminal and the project. */
export interface RunStageOptions {
	cwd: string;
	/** Whether a person can answer questions. */
	somebodyThere: boolean;
	git?: GitPort;
}

/** What a run may start with: the scripts' contents and the repository root, or every reason it may not. */
export type RunStage = { ok: true; scripts: Map<string, string>; root: string } | { ok: false; faults: Fault[] };

/** Judges a checked flow against the project and the terminal. */
export async function prepareRun(flow: CheckedFlow, options: RunStageOptions): Promise<RunStage> {
	const faults: Fault[] = [];
	const scripts = new Map<string, string>();
	const root = (options.git ? await options.git.root(options.cwd) : undefined) ?? options.cwd;
	const seen = new Set<CheckedFlow>();
	const reported = new Set<string>();
	let needsGit: { flow: CheckedFlow; node: FlowNode; why: string } | undefined;
	const visit = (f: CheckedFlow) => {
		if (seen.has(f)) return;
		seen.add(f);
		for (const node of allNodes(f.nodes)) {
			if (node.kind === "check" && node.script) {
				const where = scriptPath(root, node.script.value);
				// One missing script is one mistake, however many nodes run it (combo reports it once).
				if (!where.ok && reported.has(node.script.value)) {
					// Already reported at its first use.
				} else if (!where.ok) {
					reported.add(node.script.value);
					faults.push(
						fault(
							where.reason === "outside" ? "check-script-outside" : "check-script-missing",
							f.file,
							node.script.range,
							`${node.path}.check`,
							where.message,
						),
					);
				} else if (!scripts.has(node.script.value) && !reported.has(node.script.value)) {
					try {
						scripts.set(node.script.value, readFileSync(where.path, "utf8"));
					} catch (error) {
						reported.add(node.script.value);
						faults.push(
							fault(
								"check-script-missing",
								f.file,
								node.script.range,
								`${node.path}.check`,
								`${node.script.value} cannot be read: ${(error as Error).message}`,
							),
						);
					}
				}
			}
			const git =
				node.kind === "commit"
					? "commits"
					: (node.kind === "parallel" || node.kind === "map") && node.copies?.value
						? "works in copies"
						: readsDiff(node)
							? "reads `diff`"
							: undefined;
			if (git && !needsGit) needsGit = { flow: f, node, why: git };
			if (node.kind === "ask" && !options.somebodyThere && node.fallback === undefined && !node.enough) {
				faults.push(
					fault(
						"unattended-ask",
						f.file,
						node.id.range,
						node.path,
						`nobody is there to answer \`${node.id.value}\`, and it has neither \`default:\` nor \`enough:\``,
					),
				);
			}
			if (node.kind === "flow") {
				const callee = f.callees.get(node.id.value);
				if (callee) visit(callee);
			}
		}
	};
	visit(flow);
	if (needsGit) {
		const inRepo = options.git ? (await options.git.root(options.cwd)) !== undefined : false;
		if (!inRepo) {
			const { flow: f, node, why } = needsGit;
			faults.push(
				fault(
					"not-a-repository",
					f.file,
					node.id.range,
					node.path,
					`\`${node.id.value}\` ${why}, and ${options.cwd} is not in a git repository`,
				),
			);
		}
	}
	return faults.length ? { ok: false, faults: sortFaults(faults) } : { ok: true, scripts, root };
}

function readsDiff(node: FlowNode): boolean {
	return (
		(node.kind === "agent" || node.kind === "ask" || node.kind === "swarm") && node.reads.some((r) => r.root === "diff")
	);
}
