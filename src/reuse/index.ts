/**
 * Reuse across runs (docs/runs.md, "Reuse"): an earlier run read as the visits a new run may take instead
 * of playing them, which run to read (`--reuse last`, a run folder, a database run), and the plan of a run
 * with reuse at zero model calls. The walk's side (identities, decisions, changes written again) is in the
 * evaluator; the identity itself in `src/identity`.
 */
export { findRun, type Opened, type ReadRun, readRun, reuseFromFolder } from "./folder.ts";
export { type EarlierVisit, earlierVisits, reuseSource, type SourceOptions, spentBy } from "./source.ts";
export {
	type PlanOptions,
	planReuse,
	type ReusePlan,
	type ReusePlanRow,
	showReusePlan,
	summaryLine,
} from "./plan.ts";
export { readRerunFrom, visitAddresses, visitAddressOf } from "./rerun.ts";
