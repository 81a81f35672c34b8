/**
 * A visit's identity: the one definition of what a visit is asked and can do, part by part, that reuse
 * across runs, cassettes and their explanations read (docs/runs.md, "Reuse"). Pure: no git, no pi; the
 * evaluator hands it the facts, including the tree git hashed.
 */
export { canonical, digest, digestOf } from "./hash.ts";
export {
	type AgentFacts,
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
