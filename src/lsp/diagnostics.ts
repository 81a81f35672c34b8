/**
 * Faults as LSP diagnostics, one to one (style rule 8). Our lines and columns are 1-based and LSP's are
 * 0-based; both count columns in UTF-16 code units, so the conversion is a subtraction, never a re-count.
 *
 *   fault   { code: "unknown-agent", line: 7, column: 12, endLine: 7, endColumn: 17, hint: "…" }
 *   becomes { range: 6:11–6:16, code: "unknown-agent", source: "pi-flows", message: "… …" }
 */
import { pathToFileURL } from "node:url";
import {
	type Diagnostic,
	DiagnosticSeverity,
	type DiagnosticRelatedInformation,
	type Position,
} from "vscode-languageserver/node";
import { type Fault, faultText } from "../faults/index.ts";

/** The `source` every diagnostic carries, so an editor can tell ours from a YAML or Markdown server's. */
const SOURCE = "pi-flows";

function position(line: number, column: number): Position {
	return { line: Math.max(0, line - 1), character: Math.max(0, column - 1) };
}

/** The URI of a file a fault (or a definition) names: LSP speaks URIs, our faults speak paths. */
export function uriOf(file: string): string {
	return pathToFileURL(file).href;
}

/** One fault as an LSP diagnostic; every fault stops a flow from running, so every one is an error. A note
 * (an agent's kept keys) is information: it never stops a run. */
export function toDiagnostic(f: Fault, kind: "fault" | "note" = "fault"): Diagnostic {
	const related: DiagnosticRelatedInformation[] = (f.related ?? []).map((r) => {
		const at = position(r.line, r.column);
		return { location: { uri: uriOf(r.file), range: { start: at, end: at } }, message: r.message };
	});
	return {
		range: { start: position(f.line, f.column), end: position(f.endLine, f.endColumn) },
		severity: kind === "note" ? DiagnosticSeverity.Information : DiagnosticSeverity.Error,
		code: f.code,
		source: SOURCE,
		message: faultText(f),
		...(related.length ? { relatedInformation: related } : {}),
	};
}
