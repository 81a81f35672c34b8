export { fileJournal, type JournalEntry, type JournalWriter, readJournal } from "./journal.ts";
export { acquireLock, type LockInfo, type LockOutcome, lockHolder } from "./lock.ts";
export { decidedByFlow, FINAL_KINDS, journalState, type JournalState } from "./replay.ts";
export { listRunFolders, newRunFolder, runsHome } from "./run-folder.ts";
export {
	fromSnapshot,
	type InDoubt,
	type Refusal,
	type ResumeOptions,
	resumeRun,
	type RunOutcome,
	snapshotModels,
	type StartOptions,
	startRun,
} from "./lives.ts";
export { readSnapshot, type Snapshot, snapshotOf, writeSnapshot } from "./snapshot.ts";
export { type UsageFile, usageOf, writeUsage } from "./usage-file.ts";
export { type Forecast, forecastOf, type NodeForecast, showForecast } from "./forecast.ts";
export { newestResumable, newestSealed, type SealedRun, sealedRun } from "./resumable.ts";
export { RUN_GITIGNORE } from "./run-folder.ts";
export {
	journalSealer,
	type JournalSealer,
	mac,
	RUN_SEAL,
	runKey,
	runKeyPath,
	same,
	SEAL_FILE,
	type SealKind,
	sealSnapshot,
	trimJournal,
	verifyRun,
} from "./seal.ts";
export { APPEND_NO_LINK, writeAtomic } from "./files.ts";
export { runEndEntry } from "./lives.ts";
export { lifeTraces } from "./life-traces.ts";
export { readEntry } from "./read-entry.ts";
export {
	answerFits,
	answerWords,
	askStop,
	CONTROL_DIR,
	type GivenAnswer,
	giveAnswer,
	type GiveOutcome,
	putQuestions,
	type PutQuestion,
	readAnswer,
	stopAsked,
} from "./control.ts";
export { describeInDoubt, type InDoubtVisit, inDoubtChanges, putBack } from "./in-doubt.ts";
export { MAX_TROUBLE_WORDS, troublesIn, type TroubleWords } from "./tool-troubles.ts";
