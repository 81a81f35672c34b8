export * from "./check-only.ts";
export * from "./run/index.ts";
