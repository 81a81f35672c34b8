/**
 * A visit's identity: the one definition of what a visit is asked and can do, part by part, that reuse
 * across runs, cassettes and their explanations read (docs/runs.md, "Reuse"), and the words a run's reuse
 * is told in. Pure: no git, no pi, no evaluator; the evaluator hands it the facts, including the tree git
 * hashed, so a command that only prints (`check`, a report) can load it. With it, a turn's fingerprint
 * (what a model request was asked and answered, masked: turns.ts), which cassettes and the swarm's
 * journal facts keep alike.
 */
export { canonical, digest, digestOf, stable } from "./hash.ts";
export {
	type AgentFacts,
	type AgentShared,
	type AgentPart,
	type AnswerTool,
	agentIdentity,
	askIdentity,
	blockIdentity,
	checkIdentity,
	commitIdentity,
	IDENTITY_VERSION,
	type IdentityShown,
	NO_TREE,
	type ReadPart,
	type SwarmFacts,
	swarmIdentity,
	type VisitIdentity,
} from "./identity.ts";
export { type ChangeContext, changedParts, explainChange, partWords } from "./explain.ts";
export {
	type AnsweredCall,
	type Answer,
	type Asked,
	answerOf,
	askedOf,
	cleanText,
	cwdOf,
	type Found,
	type Turn,
	turnsOf,
} from "./turns.ts";
export { type ReuseRow, type ReuseSummary, reuseLine, reuseSummary, reuseWords } from "./reused.ts";
