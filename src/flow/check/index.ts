export { type CheckContext, checkFlow } from "./check.ts";
export type { CheckedFlow } from "./checked.ts";
