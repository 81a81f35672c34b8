/**
 * The models a replay asks for: each node's model as the flow names it now, under the recorded run's
 * `--model` when it had one, resolved by no provider (none needs to be configured, none is reached). The
 * visit's identity then carries the model as asked, so a node whose model changed since the recording is
 * named (`model changed (wire/wire-1 → wire/wire-2)`), while every turn is answered from the cassette.
 */
import { type NodeModel, resolveModels } from "../engine/index.ts";
import type { CheckedFlow } from "../language/index.ts";
import type { Cassette } from "./format.ts";

/** pi's thinking levels, as a `:level` suffix of a model reference writes them. */
const LEVELS = new Set(["off", "minimal", "low", "medium", "high", "xhigh"]);

/** Every node's model for a replay of `cassette`, or the nodes whose model cannot be named. */
export function replayModels(
	flow: CheckedFlow,
	cassette: Cassette,
): { ok: true; models: Map<string, NodeModel> } | { ok: false; errors: string[] } {
	// A node that named no model took pi's settings when recorded: the model it was then is what it asks.
	const settled = [...cassette.visits.values()].find((v) => v.identity?.shown?.model)?.identity?.shown?.model;
	const resolved = resolveModels(
		flow,
		(ref) => {
			const text = ref?.trim() || settled;
			if (!text) return { ok: false, error: "no model: the flow names none and the cassette recorded none" };
			const colon = text.lastIndexOf(":");
			const level = colon > 0 ? text.slice(colon + 1) : "";
			return LEVELS.has(level)
				? { ok: true, value: { ref: text.slice(0, colon), thinking: level } }
				: { ok: true, value: { ref: text } };
		},
		cassette.model,
	);
	return resolved.ok ? resolved : { ok: false, errors: resolved.errors };
}
