import { describe, expect, it } from "vitest";
import { ByteTail, headText } from "../../../src/engine/ports/cut.ts";

describe("cutting output on a character boundary", () => {
	it("keeps a head that ends before a split character, with the known size", () => {
		const bytes = Buffer.from("ab€cd"); // € is 3 bytes: a b [e2 82 ac] c d
		expect(headText(bytes, 3, "diff")).toBe("ab\n[… diff cut at 2 of 7 bytes]\n");
		expect(headText(bytes, 5, "diff")).toBe("ab€\n[… diff cut at 5 of 7 bytes]\n");
		expect(headText(bytes, 7, "diff")).toBe("ab€cd");
		expect(headText(bytes, 7, "diff", true)).toBe("ab€cd\n[… diff cut at 7 of more than 7 bytes]\n");
	});

	it("keeps a tail that starts after a split character, counting every byte cut", () => {
		const tail = new ByteTail(4);
		for (const part of ["ab", "€", "cd"]) tail.push(Buffer.from(part));
		expect(tail.total).toBe(7);
		// The last 4 bytes are [82 ac] c d: the two continuation bytes go, so 5 of 7 were cut.
		expect(tail.text()).toBe("[… 5 bytes cut]\ncd");
		const whole = new ByteTail(10);
		whole.push(Buffer.from("ab€"));
		expect(whole.text()).toBe("ab€");
	});

	it("holds a bounded amount however much is pushed", () => {
		const tail = new ByteTail(100);
		for (let i = 0; i < 10_000; i++) tail.push(Buffer.from(`${i % 10}`.repeat(10)));
		expect(tail.total).toBe(100_000);
		const last = Array.from({ length: 10 }, (_, d) => `${d}`.repeat(10)).join("");
		expect(tail.text()).toBe(`[… 99900 bytes cut]\n${last}`);
	});
});
