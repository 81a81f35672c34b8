/**
 * The flow language's door: read, build, check, render, types and the syntax layer, without the evaluator.
 * The language server and `pi-flows check` come in here, so a static judgement loads neither the evaluator
 * nor pi (test/language/check-only-entry.test.ts walks what this file reaches and holds it to that).
 */
export * from "./ast.ts";
export { buildFlow } from "./build/index.ts";
export * from "./check/index.ts";
export type { GraphKit, LanguageKinds } from "./kind.ts";
export { type FlowFile, readFlow, type Section } from "./read/index.ts";
export * from "./types/index.ts";
export { frontmatterSchema } from "./schema.ts";
