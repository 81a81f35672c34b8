/**
 * The journal facts a swarm keeps: each member's turn of each round, as a cassette keeps a turn (what the
 * model answered, digests of what it was asked, never a tool result), under the key `member <name>#<round>`
 * (`member scout[1]#2`). A swarm's members share its visit, so their conversations are told apart here, by
 * the name the scripted model plays them under; `pi-flows record` reads them back from either backend.
 *
 *   keepMemberTurns(world, "survey", "survey/scout[1]#2", messages, cwd)
 *     → fact { path: "survey", key: "member scout[1]#2", value: { turns: [...], found: [] } }
 */
import { cwdOf, type Found, type Turn, turnsOf } from "../../identity/index.ts";
import type { Value } from "../../language/types/index.ts";
import type { World } from "../../engine/world.ts";

/** The prefix of a member's fact key. */
export const MEMBER_TURNS = "member ";

/** One member's turn of one round, as journaled. */
export interface MemberTurns {
	turns: Turn[];
	/** Secret-shaped values masked while the turns were read, and where. */
	found: Found[];
}

/**
 * Journals the requests of one member's turn (`label` is the turn's full label, `<visit>/<name>#<round>`).
 * A later round's messages carry no system message, so the folder the member runs in comes from its first
 * (`cwd`, kept by the caller) and is written `<cwd>` alike.
 */
export function keepMemberTurns(
	world: World,
	visit: string,
	label: string | undefined,
	messages: readonly unknown[],
	cwd: string | undefined,
): void {
	if (!label?.startsWith(`${visit}/`) || !messages.length) return;
	const found: Found[] = [];
	const turns = turnsOf(messages, (f) => found.push(f), cwd ?? cwdOf(messages));
	world.recorder.fact?.(visit, `${MEMBER_TURNS}${label.slice(visit.length + 1)}`, { turns, found } as unknown as Value);
}

/** A member fact read back: the member's name and round, its turns; undefined for any other fact. */
export function memberTurnsOf(
	key: string,
	value: unknown,
): { label: string; name: string; round: number; kept: MemberTurns } | undefined {
	if (!key.startsWith(MEMBER_TURNS)) return undefined;
	const label = key.slice(MEMBER_TURNS.length);
	const hash = label.lastIndexOf("#");
	const round = Number(label.slice(hash + 1));
	const kept = value as Partial<MemberTurns> | null;
	if (hash <= 0 || !Number.isInteger(round) || !Array.isArray(kept?.turns)) return undefined;
	return {
		label,
		name: label.slice(0, hash),
		round,
		kept: { turns: kept.turns, found: Array.isArray(kept.found) ? kept.found : [] },
	};
}

/** Member labels in the order a person reads them: by member (`scout[2]` before `scout[10]`), then round. */
export function byMember(a: string, b: string): number {
	return a.localeCompare(b, "en", { numeric: true });
}
