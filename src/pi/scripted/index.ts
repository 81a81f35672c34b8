export {
	bindScriptedTurn,
	createScriptedModel,
	unbindScriptedTurn,
	fill,
	SCRIPTED_MODEL,
	SCRIPTED_PROVIDER,
	type ScriptedModel,
} from "./provider.ts";
export {
	checkScriptKeys,
	readScript,
	type Script,
	type ScriptCall,
	type ScriptRequest,
	type ScriptStep,
	stepsFor,
} from "../../script/index.ts";
