/**
 * A loop at run time: after each iteration `until` is read, then `give-up`, then the cap; `carry.next` is
 * read (and journaled) only when the loop goes on.
 */
import type { LoopNode } from "../../language/ast.ts";
import type { Value } from "../../language/types/index.ts";
import { closeScope, scope } from "../../engine/blocks.ts";
import { evaluate } from "../../engine/evaluate.ts";
import { entryValue, type Frame, lookupIn, type VisitRecord } from "../../engine/frames.ts";
import type { VisitEnd } from "../../engine/kind.ts";
import { createLedger } from "../../engine/ledger.ts";
import { valueAt } from "../../engine/turn.ts";
import { childFailure, runSequence } from "../../engine/walk.ts";
import type { World } from "../../engine/world.ts";

/** A loop: after each iteration read `until`, then `give-up`, then the cap; `carry.next` only when going on. */
export async function runLoop(
	world: World,
	node: LoopNode,
	frame: Frame,
	visit: string,
	signal: AbortSignal,
): Promise<VisitEnd> {
	const ledger = node.ledger ? createLedger() : undefined;
	const max = node.max?.value ?? 1;
	let previous: Map<string, VisitRecord> | undefined;
	let carry: Value | undefined;
	if (node.carry) {
		const first = valueAt(node.carry.first, frame, world);
		if (!first.ok)
			return {
				record: { ok: false, error: { kind: "condition", message: `\`carry.first\` cannot be read: ${first.reason}` } },
			};
		carry = first.value;
	}
	const memory = scope(node.id.value, visit);
	try {
		for (let i = 1; i <= max; i++) {
			const iteration = `${visit}#${i}`;
			const inner: Frame = {
				parent: frame,
				records: new Map(),
				prefix: iteration,
				block: {
					id: node.id.value,
					kind: "loop",
					memory,
					...(previous ? { previous } : {}),
					...(carry !== undefined ? { carry } : {}),
					...(ledger ? { ledger } : {}),
				},
			};
			const end = await runSequence(world, node.body, inner, signal);
			const last: Record<string, Value> = {};
			for (const n of node.body) {
				const r = inner.records.get(n.id.value);
				if (r) last[n.id.value] = entryValue(r);
			}
			const result = (converged: boolean, stop: string): Value => ({ converged, stop, iterations: i, last });
			if (!end.ok)
				return {
					record: { ...childFailure(end, iteration), ...(ledger ? { ledger } : {}) },
					...(end.failedAt ? { failedAt: end.failedAt } : {}),
				};
			const lookup = lookupIn(inner, world);
			const until = node.until ? evaluate(node.until.expr, lookup) : { ok: true as const, value: false };
			if (!until.ok)
				return {
					record: { ok: false, error: { kind: "condition", message: `\`loop\` cannot be evaluated: ${until.reason}` } },
				};
			if (until.value === true)
				return { record: { ok: true, output: result(true, "until"), ...(ledger ? { ledger } : {}) } };
			const giveUp = node.giveUp ? evaluate(node.giveUp.expr, lookup) : { ok: true as const, value: false };
			if (!giveUp.ok)
				return {
					record: {
						ok: false,
						error: { kind: "condition", message: `\`give-up\` cannot be evaluated: ${giveUp.reason}` },
					},
				};
			const stop = giveUp.value === true ? "give-up" : i === max ? "cap" : undefined;
			if (stop) {
				const output = result(false, stop);
				const why = stop === "cap" ? `reached \`max: ${max}\` without its condition` : "gave up";
				// Reaching a cap is not success; `on-fail: continue` keeps the value and goes on.
				if (node.onFail) return { record: { ok: true, output, ...(ledger ? { ledger } : {}) } };
				return {
					record: { ok: false, output, error: { kind: "unconverged", message: why }, ...(ledger ? { ledger } : {}) },
				};
			}
			if (node.carry) {
				const next = valueAt(node.carry.next, inner, world);
				if (!next.ok)
					return {
						record: {
							ok: false,
							error: { kind: "condition", message: `\`carry.next\` cannot be read: ${next.reason}` },
						},
					};
				carry = next.value;
				world.recorder.carried(iteration, carry);
			}
			previous = inner.records;
		}
		return { record: { ok: false, error: { kind: "unconverged", message: "no iteration ran" } } };
	} finally {
		await closeScope(memory);
	}
}
