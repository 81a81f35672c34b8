export { type HostOptions, openHost, type PiHost, type ResolvedModel } from "./host.ts";
export * from "./scripted/index.ts";
export { piUsage, toPiTool } from "./tools.ts";
