/**
 * Cassettes: a finished run's model turns kept beside its flow as a file safe to commit, and replayed as a
 * flow test through pi's real agent loop (tools really execute), with what each request is asked compared
 * with the recording and every difference named by visit, turn and part (docs/scripted-model.md).
 * A visit is the identity `src/identity` defines, the one reuse across runs reads too.
 */
export { CASSETTE_VERSION, type Cassette, type CassetteVisit, readCassette, writeCassette } from "./format.ts";
export { replayModels } from "./models.ts";
export {
	conversations,
	type Recorded,
	type RecordedTest,
	recordRun,
	reusedFrom,
	type RunToRecord,
	type TranscriptOf,
} from "./record.ts";
export {
	type CheckAnswer,
	cassettePlayer,
	compare,
	type Difference,
	differenceLine,
	type Player,
	type RecordedCheck,
	REPLAY_MODES,
	type ReplayMode,
	withoutNetwork,
} from "./replay.ts";
export {
	type Answer,
	type Asked,
	askedOf,
	answerOf,
	cleanText,
	type Found,
	type Turn,
	turnsOf,
} from "../identity/index.ts";
export { cassetteFiles, NAME, testText } from "./files.ts";
