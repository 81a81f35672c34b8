/** The live view's door, for the extension's other parts. */
export { clock, summariseTools, tokens } from "./format.ts";
export { openLiveView } from "./widget.ts";
