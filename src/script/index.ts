/**
 * The scripted model's script as data: read from YAML with positions, checked against the addresses a flow
 * may play, looked up per visit, its answer templates filled. Pure reading, no pi: a dry run (src/flow) and
 * the scripted provider (src/pi) both play a script, so it lives below both.
 */
export {
	checkScriptKeys,
	fillTemplate,
	readScript,
	type Script,
	type ScriptCall,
	type ScriptPrice,
	type ScriptRequest,
	type ScriptStep,
	stepsFor,
	type TemplateTurn,
} from "./script.ts";
export { fillArgs } from "./fill-args.ts";
