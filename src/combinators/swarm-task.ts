/**
 * What a swarm member is told each round. Members are HANDED what is new on the board rather than asked
 * to fetch it, because a run showed that once something arbitrates, members stop reading it altogether.
 * With no board and no claims, round one is the goal and nothing else: a one-round swarm is a fan-out.
 */
import type { Claims } from "./claims.ts";

/** One message on the board: what a member said in a round. */
export interface Post {
	round: number;
	/** The member's id, its name on the board. */
	member: string;
	agent: string;
	text: string;
}

/** Everything one member's task is written from. */
export interface MemberBriefing {
	goal: string;
	round: number;
	rounds: number;
	/** This member's id. */
	self: string;
	/** Every member's id. */
	roster: readonly string[];
	board: boolean;
	claims?: Claims;
	/** Posts by others the member has not been handed yet. */
	news: readonly Post[];
	/** What became of its claim lines last round. */
	notes: readonly string[];
}

function claimsSection(b: MemberBriefing, claims: Claims): string {
	const mine = [...claims.held()].filter(([, holder]) => holder === b.self).map(([key]) => key);
	const free = claims.free();
	const lines = [
		"## Claims",
		"",
		`You hold: ${mine.length ? mine.join(", ") : "nothing"}.`,
		`Free: ${free.length ? free.join(", ") : "nothing"}.`,
	];
	if (b.notes.length) lines.push("", ...b.notes.map((n) => `- ${n}`));
	return lines.join("\n");
}

function boardSection(b: MemberBriefing): string {
	if (b.news.length === 0) return "## New on the board\n\nNothing new.";
	return `## New on the board\n\n${b.news.map((p) => `### ${p.member} (round ${p.round})\n\n${p.text}`).join("\n\n")}`;
}

/** The member's task for this round. */
export function memberTask(b: MemberBriefing): string {
	const parts: string[] = [];
	if (b.round === 1) {
		parts.push(b.goal);
		if (!b.board && !b.claims) return b.goal;
		const rules = [
			"## The swarm",
			"",
			`You are ${b.self}, one of ${b.roster.length} members (${b.roster.join(", ")}) working on this goal over ${b.rounds} round(s). Nobody divides the work: you do, between you.`,
		];
		if (b.board)
			rules.push("Whatever you answer is posted to the board; each round you are handed what the others posted.");
		if (b.claims) {
			rules.push(
				"Work is divided by claims. Take a key with a line `CLAIM: <key>` and give one back with `RELEASE: <key>`. Claims are settled at the end of each round, in member order, first come first served, and you are told next round what you hold. Work only on what you hold.",
			);
		}
		parts.push(rules.join("\n"));
	} else {
		parts.push(`Round ${b.round} of ${b.rounds}. Carry on with the goal, building on what you have done.`);
		if (b.board) parts.push(boardSection(b));
	}
	if (b.claims) parts.push(claimsSection(b, b.claims));
	return parts.join("\n\n");
}
