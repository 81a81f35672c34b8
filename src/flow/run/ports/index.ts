/**
 * The run stage's doors to the world: a check port (project scripts run with bash) and a git port
 * (diff, commits on the run's branch, copies). The evaluator reaches both only through these
 * interfaces, so a dry run or a test passes scripted ones.
 */
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
export { type GitFailure, IDENTITY } from "./git-exec.ts";
