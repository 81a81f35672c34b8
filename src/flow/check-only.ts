/**
 * The flow language without the evaluator: read, build, check, types and the catalogue. The language
 * server and `pi-flows check` come in here, so a static judgement loads neither the evaluator nor pi
 * (test/language/check-only-entry.test.ts walks what this file reaches and holds it to that).
 */
export * from "./ast.ts";
export { buildFlow } from "./build/index.ts";
export { type FlowEntry, findFlow, listFlows, PROJECT_TRUST, unreadProjectFlows } from "./find.ts";
export * from "./check/index.ts";
export { hasSection, KINDS, kindOf, NODE_KINDS } from "./kinds/index.ts";
export { type FlowFile, readFlow, type Section } from "./read/index.ts";
export * from "./types/index.ts";
export { flowNameOf } from "./find.ts";
export { frontmatterSchema } from "./schema.ts";
