/**
 * What each node kind leaves behind, as types: the checker reads addresses and conditions against these,
 * and the evaluator produces values of exactly these shapes.
 */
import { FAILURE_KINDS } from "../../runtime/index.ts";
import type { AskNode } from "../ast.ts";
import {
	BOOLEAN,
	enumOf,
	FREE_STRING,
	field,
	listOf,
	NUMBER,
	objectOf,
	STRING,
	TEXT,
	type Type,
} from "../types/index.ts";

/** `x.error`: why a node failed. */
export const ERROR_TYPE = objectOf([field("kind", enumOf(FAILURE_KINDS)), field("message", STRING)]);

/** A verdict node's output. */
export const VERDICT_TYPE = objectOf([field("approved", BOOLEAN), field("remarks", STRING, true)]);

/** An obligation of a ledger, as `<id>.ledger` reads it. */
export const OBLIGATIONS_TYPE = listOf(objectOf([field("id", STRING), field("text", STRING)]));

/** A check's output. */
export const CHECK_TYPE = objectOf([field("passed", BOOLEAN), field("report", STRING)]);

/** A commit's output. */
export const COMMIT_TYPE = objectOf([
	field("committed", BOOLEAN),
	field("sha", STRING, true),
	field("branch", STRING),
	field("left_out", listOf(STRING), true),
]);

/** A handoff document as later nodes read it (`<node>.handoff.status`, ...). */
export const HANDOFF_TYPE = objectOf([
	field("status", enumOf(["done", "partial", "blocked", "in-progress"])),
	field("summary", STRING),
	field("decisions", listOf(STRING)),
	field("artifacts", listOf(STRING)),
	field("next_task", STRING, true),
	field("blocked", STRING, true),
]);

/** A swarm's output. */
export const SWARM_TYPE = objectOf([
	field("converged", BOOLEAN),
	field("rounds", NUMBER),
	field("posts", listOf(objectOf([field("member", STRING), field("text", STRING)]))),
	field("held", listOf(STRING)),
	field("released", listOf(STRING)),
]);

/** How a loop stopped. */
export const STOP_TYPE = enumOf(["until", "give-up", "cap"]);

/** An entry of a block's output: how one branch, item or body node ended. */
export function entryType(output: Type | undefined, extra: ReturnType<typeof field>[] = []): Type {
	return objectOf([
		field("ok", BOOLEAN),
		...(output ? [field("output", output, true)] : []),
		field("error", ERROR_TYPE, true),
		...extra,
	]);
}

/** `landed` and `refused` of a branch that worked in a copy. */
export const COPY_FIELDS = [field("landed", BOOLEAN), field("refused", listOf(STRING), true)];

/** The output type of an ask node, from its form. */
export function askType(node: AskNode): Type {
	if (node.confirm) return objectOf([field("yes", BOOLEAN)]);
	if (node.options) {
		const labels = node.options.map((o) => o.label.value);
		return objectOf([
			field("answered", BOOLEAN),
			field("answer", labels.length >= 2 ? enumOf(labels) : STRING, true),
			field("custom", BOOLEAN, true),
		]);
	}
	if (node.questionFrom)
		return objectOf([field("answered", BOOLEAN), field("answer", FREE_STRING, true), field("custom", BOOLEAN, true)]);
	return STRING;
}

/** The output type of an agent node. */
export function agentType(output: Type | undefined, verdict: boolean): Type {
	if (verdict) return VERDICT_TYPE;
	return output ?? TEXT;
}
