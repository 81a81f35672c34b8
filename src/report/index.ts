/**
 * `pi-flows report`: one self-contained HTML page per run folder. {@link readRun} does the reading and
 * {@link reportHtml} the rest, as a pure function of what was read, so the page can be tested from data
 * and made again at any time from the same folder.
 */
export { clip, cost, esc, ms, shown, tokens } from "./format.ts";
export { graphSvg, STATE_WORDS } from "./graph.ts";
export { type LifeSpan, type NodeState, type NodeSummary, type RunModel, runModel, type VisitSpan } from "./model.ts";
export { faultsHtml, handoffsHtml, questionsHtml } from "./notes.ts";
export { REPORT_CSS, reportHtml } from "./page.ts";
export { type RecordedEvent, type ResultFile, readRun, type RunData } from "./read.ts";
export { journalTroubles, readTroubles, type ToolTrouble } from "./troubles.ts";
export { livesTable, usageTable, visitsTable } from "./tables.ts";
export { type Lane, lanesOf, parallelAddresses, strandOf, timelineSvg } from "./timeline.ts";
