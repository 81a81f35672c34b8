/**
 * Tests on a real Postgres: {@link describePostgres} gives a `describe` block a throwaway cluster of its own
 * (see pg-cluster.ts for how it is made), or skips it on a machine without Postgres, saying how to run it.
 */
import { afterAll, beforeAll, describe } from "vitest";
import { findPostgres, type Postgres, serverUser, startPostgres } from "./pg-cluster.ts";

export {
	findPostgres,
	POSTGRES_HINT,
	type Postgres,
	type PostgresBinaries,
	type StartOptions,
	startPostgres,
} from "./pg-cluster.ts";

let warned = false;

/**
 * A `describe` block with a cluster of its own, started before its tests and deleted after. Without Postgres
 * the block is skipped and its title says how to run it; with `PI_FLOWS_REQUIRE_POSTGRES=1` (CI) a missing
 * Postgres fails instead, so CI cannot pass by skipping.
 */
export function describePostgres(name: string, fn: (pg: () => Postgres) => void): void {
	const found = findPostgres();
	const who = "skip" in found ? found : serverUser();
	if ("skip" in who) {
		if (process.env.PI_FLOWS_REQUIRE_POSTGRES === "1") {
			describe(name, () => {
				beforeAll(() => {
					throw new Error(`PI_FLOWS_REQUIRE_POSTGRES=1 but ${who.skip}`);
				});
				fn(() => {
					throw new Error("no Postgres");
				});
			});
			return;
		}
		if (!warned) {
			warned = true;
			console.warn(`Postgres tests skipped: ${who.skip}`);
		}
		describe.skip(`${name} [skipped: ${who.skip}]`, () => {
			fn(() => {
				throw new Error("no Postgres");
			});
		});
		return;
	}
	describe(name, () => {
		let pg: Postgres | undefined;
		beforeAll(async () => {
			const started = await startPostgres();
			if ("skip" in started) throw new Error(started.skip);
			pg = started;
		}, 120_000);
		afterAll(async () => {
			await pg?.stop();
		}, 60_000);
		fn(() => {
			if (!pg) throw new Error("Postgres did not start (see beforeAll)");
			return pg;
		});
	});
}
