/**
 * Claims: a set of work keys members of a swarm take and give back, so that what they divide between them
 * is theirs to divide and still never done twice. Whatever a member holds when it goes is released,
 * because a claim left by a closed member is work nobody will do and nobody can take.
 *
 *   const claims = createClaims({ keys: ["a.ts", "b.ts"] });
 *   claims.take("a.ts", "member#1");   // true
 *   claims.take("a.ts", "member#2");   // false: held
 */

/** Why a claim was given back. */
export type ReleaseCause = "released" | "closed";

/** A claim given back, in order. */
export interface Release {
	key: string;
	holder: string;
	/** `released`: the holder gave it back; `closed`: its holder went (dropped out or the swarm ended). */
	cause: ReleaseCause;
}

/** What a swarm reports about its claims. */
export interface ClaimsReport {
	/** Who held what at the end of the last round, before the members closed. */
	held: { key: string; holder: string }[];
	/** Every release, in order, including those made because a member closed. */
	released: Release[];
}

/** The claim set. */
export interface Claims {
	readonly keys: readonly string[];
	/** Takes `key` for `holder`: true when it was free (or already theirs), false when held or unknown. */
	take(key: string, holder: string): boolean;
	/** Gives `key` back: true when `holder` held it. */
	release(key: string, holder: string): boolean;
	/** Releases everything `holder` held, because it closed; returns the keys. */
	releaseAll(holder: string): string[];
	/** Who holds what now. */
	held(): Map<string, string>;
	/** The keys nobody holds, in key order. */
	free(): string[];
	/** Every release so far, in order. */
	releases(): Release[];
}

/** Creates a claim set over `keys` (duplicates are one key). */
export function createClaims(options: { keys: readonly string[] }): Claims {
	const keys = [...new Set(options.keys)];
	const holders = new Map<string, string>();
	const log: Release[] = [];
	const give = (key: string, holder: string, cause: ReleaseCause) => {
		holders.delete(key);
		log.push({ key, holder, cause });
	};
	return {
		keys,
		take(key, holder) {
			if (!keys.includes(key)) return false;
			const current = holders.get(key);
			if (current !== undefined) return current === holder;
			holders.set(key, holder);
			return true;
		},
		release(key, holder) {
			if (holders.get(key) !== holder) return false;
			give(key, holder, "released");
			return true;
		},
		releaseAll(holder) {
			const mine = keys.filter((k) => holders.get(k) === holder);
			for (const key of mine) give(key, holder, "closed");
			return mine;
		},
		held: () => new Map(keys.filter((k) => holders.has(k)).map((k) => [k, holders.get(k) as string])),
		free: () => keys.filter((k) => !holders.has(k)),
		releases: () => [...log],
	};
}

/** `CLAIM: key` and `RELEASE: key` lines of a member's answer (one key per line, case of the word ignored). */
export function parseClaimLines(output: string): { take: string[]; release: string[] } {
	const take: string[] = [];
	const release: string[] = [];
	for (const line of output.split(/\r?\n/)) {
		const match = /^[ \t]*(?:[-*][ \t]*)?\**(claim|release)\**[ \t]*:[ \t]*`?([^`]+?)`?[ \t]*$/i.exec(line);
		if (!match) continue;
		(match[1].toLowerCase() === "claim" ? take : release).push(match[2].trim());
	}
	return { take, release };
}
