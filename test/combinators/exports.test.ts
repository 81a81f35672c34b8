import { describe, expect, it } from "vitest";
import * as combinators from "../../src/combinators/index.ts";

describe("the combinators' public door", () => {
	it("exports the eight combinators and delegateTool as plain functions, no classes", () => {
		for (const name of [
			"chain",
			"fanOut",
			"loop",
			"reduce",
			"route",
			"orchestrate",
			"interview",
			"swarm",
			"delegateTool",
		] as const) {
			const fn = combinators[name] as unknown;
			expect(typeof fn, name).toBe("function");
			expect(Function.prototype.toString.call(fn).startsWith("class"), name).toBe(false);
		}
		for (const name of ["createPool", "createTrail", "createClaims", "mapConcurrent", "offerBoth"] as const) {
			expect(typeof combinators[name], name).toBe("function");
		}
	});

	it("offerBoth composes a list and a function of parentId, in either order", () => {
		const seen: string[] = [];
		const own = (parentId: string) => {
			seen.push(parentId);
			return [`board for ${parentId}`];
		};
		expect(combinators.offerBoth(["read"], own)("member#2")).toEqual(["read", "board for member#2"]);
		expect(combinators.offerBoth(own, undefined)("member#3")).toEqual(["board for member#3"]);
		expect(combinators.offerBoth(undefined, ["a"])("x")).toEqual(["a"]);
		expect(seen).toEqual(["member#2", "member#3"]);
	});
});
