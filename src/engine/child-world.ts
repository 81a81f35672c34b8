/**
 * A called flow runs in its caller's world (the same tree, ports, spending and branch) with its own
 * checked flow, input and model keys: only `input` crosses a call.
 */
import type { CheckedFlow } from "../language/check/index.ts";
import type { Value } from "../language/types/index.ts";
import type { World } from "./world.ts";

/** The world a callee runs in. */
export function childWorld(parent: World, flow: CheckedFlow, input: Value, prefix: string): World {
	const child: World = Object.create(parent);
	Object.defineProperties(child, {
		flow: { value: flow },
		input: { value: input },
		prefix: { value: prefix },
		branch: {
			get: () => parent.branch,
			set: (b: string | undefined) => {
				parent.branch = b;
			},
		},
	});
	return child;
}
