/**
 * `offerBoth`: a workflow that adds a tool of its own beside whatever its caller offered composes the two
 * here, whichever shape either was written in. Tools are offered either as a list or as a function of the
 * `parentId` the subagent is about to get (which is what has a delegating tool's children measured under
 * it), and neither side should have to know which shape the other chose.
 *
 *   customTools: offerBoth(callerTools, (parentId) => [delegateTool({ agents, parentId, cwd, spawn })])
 */

/** Tools offered to a subagent: a list, or a function of the id it is about to be given. */
export type ToolOffer<T> = readonly T[] | ((parentId: string) => readonly T[]);

/** One offer holding both: the first's tools, then the second's, each asked with the same `parentId`. */
export function offerBoth<T>(
	first: ToolOffer<T> | undefined,
	second: ToolOffer<T> | undefined,
): (parentId: string) => T[] {
	const take = (offer: ToolOffer<T> | undefined, parentId: string): readonly T[] =>
		offer === undefined ? [] : typeof offer === "function" ? offer(parentId) : offer;
	return (parentId) => [...take(first, parentId), ...take(second, parentId)];
}
