/**
 * The kinds' third door, beside the language and run tables: the journal facts a kind keeps about a visit,
 * for the stages that read a journal back (a cassette's recorder). A reader takes a fact's key and shape
 * from here, never from the kind's run half, which carries the evaluator.
 *
 *   memberTurnsOf("member scout[1]#2", value) → { label: "scout[1]#2", name: "scout[1]", round: 2, kept }
 */
export { CHECK_SCRIPT } from "./check/facts.ts";
export { byMember, keepMemberTurns, MEMBER_TURNS, type MemberTurns, memberTurnsOf } from "./swarm/facts.ts";
