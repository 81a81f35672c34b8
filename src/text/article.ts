/**
 * "a" or "an" before a word, for messages built from a kind or a type (`an agent node`, `an ask node`,
 * `a map node`). One place, so no message says "a agent".
 */

/** `word` with its indefinite article: `an agent`, `a loop`. By the first letter, which fits every kind we name. */
export function withArticle(word: string): string {
	return `${/^[aeiou]/i.test(word) ? "an" : "a"} ${word}`;
}
