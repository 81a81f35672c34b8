/**
 * The DBOS system-schema version pi-flows refuses to go past is the one the DBOS it ships writes: bump
 * DBOS_SCHEMA_VERSION with DBOS, or a database a current worker migrated would be refused as "newer".
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { expect, it } from "vitest";
import { DBOS_SCHEMA_VERSION } from "../../src/distributed/index.ts";

it("DBOS_SCHEMA_VERSION is the installed DBOS's migration count", () => {
	const require = createRequire(import.meta.url);
	// Not in the package's exports: reached by path from its entry point (dist/src/index.js).
	const migrations = join(dirname(require.resolve("@dbos-inc/dbos-sdk")), "sysdb_migrations/internal/migrations.js");
	const { allMigrations } = require(migrations) as {
		allMigrations: (schema?: string) => unknown[];
	};
	expect(allMigrations("dbos").length).toBe(DBOS_SCHEMA_VERSION);
});
