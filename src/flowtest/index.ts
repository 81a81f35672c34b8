export { type Expectations, type FlowTest, readFlowTest } from "./spec.ts";
export { compare, runFlowTest, type TestOutcome } from "./run-test.ts";
export { type StarterOptions, starterScript } from "./starter.ts";
