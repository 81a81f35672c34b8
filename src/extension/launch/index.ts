/** The extension's launch door: how `/run`, `/step` and the `subagent` tool prepare and start a run. */
export { answerOf } from "./answer.ts";
export { launch, type Launched, shown } from "./launch.ts";
export { faultLines, prepareChain, prepareLaunch, readScriptFile } from "./prepare.ts";
