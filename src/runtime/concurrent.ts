/**
 * Bounded concurrency that keeps order: a fan-out reports in the order of its tasks, not of completion,
 * so the n-th answer can always be matched to the n-th question.
 */

/**
 * Runs `fn` over `items` with at most `concurrency` calls in flight, and returns the results in the order
 * of `items`. Once `signal` aborts nothing new starts; the calls already started are awaited (whoever
 * starts, finishes) and the promise then rejects with the signal's reason if any item never ran. A
 * rejecting `fn` stops new starts the same way and its error is rethrown: combinators pass functions that
 * return failures as values, so neither path is theirs.
 */
export async function mapConcurrent<T, R>(
	items: readonly T[],
	concurrency: number,
	fn: (item: T, index: number) => Promise<R>,
	signal?: AbortSignal,
): Promise<R[]> {
	if (!Number.isInteger(concurrency) || concurrency < 1) {
		throw new RangeError(`pi-flows: concurrency must be a whole number of at least 1, not ${concurrency}`);
	}
	const results = new Array<R>(items.length);
	let next = 0;
	let failure: { error: unknown } | undefined;
	const worker = async () => {
		while (next < items.length && !failure && !signal?.aborted) {
			const index = next++;
			try {
				results[index] = await fn(items[index], index);
			} catch (error) {
				failure ??= { error };
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
	if (failure) throw failure.error;
	if (next < items.length && signal?.aborted) throw signal.reason;
	return results;
}
