/**
 * The rules only a model's turn can meet, skipped in a dry run and said to be. A dry run has no model: its
 * turns answer from the script or from the output type, so an agent's `mustCallTool` (a turn must use a
 * tool) and a typed turn's `submit` (the answer must come through the tool) can be neither met nor missed
 * there. Failing the walk on them would report the dry run's own stand-in, not the flow; passing them in
 * silence would hide that they were never tried. So a dry subagent is marked, the runner asks the mark
 * before it enforces such a rule, and the dry run prints what it skipped.
 *
 *   markDry(sub, (note) => skipped.push(note));
 *   if (skippedWhenDry(sub, "audit: `auditor`'s mustCallTool")) return record;
 */
import type { Subagent } from "../runtime/index.ts";

/** The mark, a symbol-keyed own property: the wrappers a spawn passes through (`{ ...sub, ask }`) keep it. */
const DRY = Symbol("pi-flows.dry");
type Marked = Subagent & { [DRY]?: (note: string) => void };

/** Marks a dry run's subagent; `say` hears every rule skipped on its turns. */
export function markDry(sub: Subagent, say: (note: string) => void): void {
	(sub as Marked)[DRY] = say;
}

/** True (and the skip said) when `sub` is a dry run's: the rule named by `note` is not enforced. */
export function skippedWhenDry(sub: Subagent, note: string): boolean {
	const say = (sub as Marked)[DRY];
	if (!say) return false;
	say(note);
	return true;
}
