/** The live view's door, for the extension's other parts. */
export { openLiveView } from "./widget.ts";
