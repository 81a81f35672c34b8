export { type FlowFile, readFlow, type Section } from "./read.ts";
