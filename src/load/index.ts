/**
 * The loader's door: a flow file (or text) read, built and checked whole, its `chain:` expanded and its
 * callees found in the catalogue of a working folder.
 */
export { catalogueOptions, checkFlowFile, checkFlowText, type Judged, type LoadOptions } from "./load.ts";
export { type FlowEntry, findFlow, flowNameOf, listFlows, PROJECT_TRUST, unreadProjectFlows } from "./find.ts";
