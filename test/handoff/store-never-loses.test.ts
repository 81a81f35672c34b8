import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
	type FileOperations,
	type HandoffDocument,
	readHandoff,
	renderHandoff,
	writeHandoff,
} from "../../src/handoff/index.ts";

const doc = (summary: string, status: HandoffDocument["status"] = "in-progress"): HandoffDocument => ({
	status,
	summary,
	decisions: [],
	artifacts: [],
	writtenAt: "2025-03-04T05:06:07.000Z",
	by: "checkpoint",
});

function codeError(code: string): Error {
	return Object.assign(new Error(code), { code });
}

/** An in-memory disk whose operations can be made to fail. */
function memoryDisk(fail: Partial<Record<keyof FileOperations, string>> = {}) {
	const files = new Map<string, string>();
	const ops: FileOperations = {
		readFile: async (path) => {
			if (fail.readFile) throw codeError(fail.readFile);
			const text = files.get(path);
			if (text === undefined) throw codeError("ENOENT");
			return text;
		},
		writeFileAtomic: async (path, data) => {
			if (fail.writeFileAtomic) throw codeError(fail.writeFileAtomic);
			files.set(path, data);
		},
		writeFileExclusive: async (path, data) => {
			if (fail.writeFileExclusive) throw codeError(fail.writeFileExclusive);
			if (files.has(path)) throw codeError("EEXIST");
			files.set(path, data);
		},
		mkdir: async () => {
			if (fail.mkdir) throw codeError(fail.mkdir);
		},
	};
	return { files, ops, fail };
}

describe("HANDOFF.md store", () => {
	it("keeps every replaced document, with a suffix when names collide", async () => {
		const { files, ops } = memoryDisk();
		expect(await writeHandoff("/p", doc("one"), ops)).toMatchObject({ ok: true, path: "/p/HANDOFF.md" });
		expect((await writeHandoff("/p", doc("two"), ops)).ok && [...files.keys()]).toContain(
			"/p/.pi/handoffs/2025-03-04T05-06-07.000Z-in-progress.md",
		);
		const third = await writeHandoff("/p", doc("three"), ops);
		expect(third.ok && third.archivedTo).toBe("/p/.pi/handoffs/2025-03-04T05-06-07.000Z-in-progress-1.md");
		expect(files.get("/p/.pi/handoffs/2025-03-04T05-06-07.000Z-in-progress.md")).toBe(renderHandoff(doc("one")));
		expect(files.get("/p/.pi/handoffs/2025-03-04T05-06-07.000Z-in-progress-1.md")).toBe(renderHandoff(doc("two")));
		// Writing the same document again archives nothing: nothing would be lost.
		const same = await writeHandoff("/p", doc("three"), ops);
		expect(same.ok && same.archivedTo).toBeUndefined();
	});

	it("overwrites nothing when the old document cannot be kept", async () => {
		const disk = memoryDisk();
		await writeHandoff("/p", doc("precious"), disk.ops);
		disk.fail.writeFileExclusive = "EACCES";
		const result = await writeHandoff("/p", doc("newer"), disk.ops);
		expect(result).toMatchObject({ ok: false, reason: "archive-failed" });
		expect(disk.files.get("/p/HANDOFF.md")).toBe(renderHandoff(doc("precious")));
		disk.fail.writeFileExclusive = undefined;
		disk.fail.readFile = "EIO";
		expect(await writeHandoff("/p", doc("newer"), disk.ops)).toMatchObject({ ok: false, reason: "archive-failed" });
		expect(disk.files.get("/p/HANDOFF.md")).toBe(renderHandoff(doc("precious")));
	});

	it("reports a failed write as a value", async () => {
		const { ops } = memoryDisk({ writeFileAtomic: "ENOSPC" });
		expect(await writeHandoff("/p", doc("x"), ops)).toMatchObject({ ok: false, reason: "write-failed" });
	});

	it("serialises writes that race, so each replaced document is kept once", async () => {
		const { files, ops } = memoryDisk();
		await writeHandoff("/p", doc("zero"), ops);
		const results = await Promise.all([writeHandoff("/p", doc("a"), ops), writeHandoff("/p", doc("b"), ops)]);
		expect(results.every((r) => r.ok)).toBe(true);
		const kept = [...files.entries()].filter(([path]) => path.includes("/.pi/handoffs/")).map(([, text]) => text);
		expect(kept.sort()).toEqual([renderHandoff(doc("a")), renderHandoff(doc("zero"))].sort());
		expect(files.get("/p/HANDOFF.md")).toBe(renderHandoff(doc("b")));
	});

	it("reads a value or a reason, never throws", async () => {
		const disk = memoryDisk();
		expect(await readHandoff("/p", disk.ops)).toMatchObject({ ok: false, reason: "missing" });
		disk.files.set("/p/HANDOFF.md", "## Status\nunsure\n");
		const invalid = await readHandoff("/p", disk.ops);
		expect(invalid).toMatchObject({ ok: false, reason: "invalid" });
		expect(invalid.problems.map((p) => p.code)).toContain("bad-status");
		disk.fail.readFile = "EACCES";
		expect(await readHandoff("/p", disk.ops)).toMatchObject({ ok: false, reason: "unreadable" });
		const throwsSync: FileOperations = {
			...disk.ops,
			readFile: () => {
				throw new Error("boom");
			},
		};
		expect(await readHandoff("/p", throwsSync)).toMatchObject({ ok: false, reason: "unreadable" });
	});

	it("on the local disk, leaves only the document and its archive behind", async () => {
		const cwd = mkdtempSync(join(tmpdir(), "pi-flows-store-"));
		try {
			await writeHandoff(cwd, doc("one"));
			await writeHandoff(cwd, doc("two", "done"));
			expect(readdirSync(cwd).sort()).toEqual([".pi", "HANDOFF.md"]);
			expect(readdirSync(join(cwd, ".pi", "handoffs"))).toEqual(["2025-03-04T05-06-07.000Z-in-progress.md"]);
			expect(readFileSync(join(cwd, "HANDOFF.md"), "utf8")).toBe(renderHandoff(doc("two", "done")));
			expect(await readHandoff(cwd)).toMatchObject({ ok: true, doc: doc("two", "done") });
		} finally {
			rmSync(cwd, { recursive: true, force: true });
		}
	});
});
