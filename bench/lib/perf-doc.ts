/**
 * docs/performance.md is shared: each bench owns one `## <Name>` section and replaces only that one,
 * leaving the rest of the file (other benches' sections, the title) as it found it.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";

/** Replaces the section under `## heading` (up to the next `## ` heading), or appends it. */
export function replaceSection(file: string, heading: string, body: string): void {
	const title = `## ${heading}`;
	const section = `${title}\n\n${body.trim()}\n`;
	if (!existsSync(file)) {
		writeFileSync(file, `# Performance\n\n${section}`);
		return;
	}
	const lines = readFileSync(file, "utf8").split("\n");
	const start = lines.findIndex((l) => l.trimEnd() === title);
	let next: string;
	if (start < 0) {
		next = `${lines.join("\n").trimEnd()}\n\n${section}`;
	} else {
		let end = lines.findIndex((l, i) => i > start && /^## /.test(l));
		if (end < 0) end = lines.length;
		const before = lines.slice(0, start).join("\n").trimEnd();
		const after = lines.slice(end).join("\n").trim();
		next = `${before ? `${before}\n\n` : ""}${section}${after ? `\n${after}\n` : ""}`;
	}
	writeFileSync(file, next);
}
