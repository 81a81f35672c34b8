/**
 * The run stage's doors to the world: a check port (project scripts run with bash), a git port (diff,
 * commits on the run's branch, copies), an ask port (questions to the person running the flow) and a clock. The
 * evaluator reaches them only through these interfaces, so a dry run or a test passes scripted ones.
 */
export { abortableSleep, type Clock, instantClock, SYSTEM_CLOCK } from "./clock.ts";
export { type AskAnswer, type AskCard, type AskPort, NOBODY, scriptedAsk } from "./ask.ts";
export {
	type BashCheckOptions,
	type CheckOutcome,
	type CheckPort,
	type CheckRequest,
	createBashCheck,
	DEFAULT_GRACE_MS,
	REPORT_BYTES,
	type ScriptPath,
	scriptPath,
} from "./bash-check.ts";
export { createGitPort, DIFF_BYTES, type DiffOutcome, type GitPort, type OpenCopyOutcome } from "./git.ts";
export { type CommitOutcome, type CommitRequest, RUN_BRANCH_PREFIX, slugify } from "./git-commit.ts";
export { COPY_BRANCH_PREFIX, type Copy, type LandResult } from "./git-copies.ts";
export { type ChangeOutcome, MAX_RECORDED_PATCH, type TreeOutcome } from "./git-tree.ts";
export { type GitFailure, IDENTITY } from "./git-exec.ts";
export {
	dirtyIn,
	fileInTree,
	KEPT_REF_PREFIX,
	pathsBetween,
	type RestoreOutcome,
	restoreTree,
	snapshotTree,
	type TreeSnapshot,
} from "./git-tree.ts";
