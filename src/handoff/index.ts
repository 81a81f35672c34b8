/**
 * The handoff protocol's pure core: the document and its Markdown, HANDOFF.md on disk, the switch, the
 * settings, the watermark decision and the texts that carry a document into a fresh context. Nothing
 * here imports pi, so the interactive extension, the in-flow runner and the driver share it.
 */
export {
	HANDOFF_FORMAT,
	HANDOFF_STATUSES,
	type HandoffAuthor,
	type HandoffDocument,
	type HandoffProblem,
	type HandoffProblemCode,
	type HandoffStatus,
	isChainEnd,
	type ParsedHandoff,
	parseHandoff,
	renderHandoff,
} from "./document.ts";
export { DEFAULT_POLICY, type HandoffPolicy, type ResolvedPolicy, resolveHandoffPolicy } from "./policy.ts";
export { type HandoffPurpose, handoffAsContext, kickoffText, type ResetOutcome, resumeText } from "./context.ts";
export {
	HANDOFF_DEFAULTS,
	type HandoffSettings,
	RESET_MODES,
	type ResetMode,
	readHandoffSettings,
	type SettingsEnv,
	type SettingWarning,
} from "./settings.ts";
export {
	type FileOperations,
	handoffArchiveDir,
	handoffPath,
	localFileOperations,
	PROJECT_CONFIG_DIR,
	type ReadHandoffResult,
	readHandoff,
	type WriteHandoffResult,
	writeHandoff,
} from "./store.ts";
export {
	parseSwitchValue,
	resolveSwitch,
	SWITCH_ENV,
	SWITCH_KEY,
	type SwitchLayer,
	type SwitchPlaces,
	type SwitchResolution,
	type SwitchScope,
	type SwitchSource,
	switchPaths,
	type WriteSwitchResult,
	writeSwitch,
} from "./switch.ts";
export {
	type DirectiveOptions,
	decideWatermark,
	landThePlaneDirective,
	type WatermarkDecision,
	type WatermarkInput,
} from "./watermark.ts";
export {
	CHECKPOINT_PARAMETERS,
	checkpointContract,
	checkpointStatus,
	documentFromArguments,
	FINISH_CONTRACT,
	FINISH_PARAMETERS,
	HANDOFF_RESULTS,
	HANDOFF_TOOL_NAMES,
	type HandoffToolArguments,
	type HandoffToolContract,
	type HandoffToolName,
} from "./tools.ts";
