/**
 * The distributed backend's database layer: a Postgres URL read, connected and migrated, with every failure a
 * value naming what to fix and no password ever in a message. The DBOS run backend stands on it.
 */
export {
	classifyDatabaseError,
	DATABASE_URL_ENV,
	type Database,
	type DatabaseFailure,
	DatabaseFault,
	type DatabaseFaultCode,
	type DatabaseResult,
	type DatabaseTarget,
	DEFAULT_CONNECT_TIMEOUT_MS,
	databaseFailure,
	describeTarget,
	formatDatabaseFailure,
	type OpenOptions,
	openDatabase,
	parseDatabaseUrl,
	resolveDatabaseUrl,
} from "./database.ts";
export { MASK, redact, redactError, redactUrl, rememberSecret } from "../secrets/index.ts";
export {
	checkSchema,
	DBOS_SCHEMA_VERSION,
	MIGRATION_LOCK_KEY,
	MIGRATIONS,
	migrate,
	packageVersion,
	type PrepareOptions,
	prepareDatabase,
	releaseMigrationLock,
	SCHEMA,
	SCHEMA_VERSION,
	takeMigrationLock,
	type SchemaOptions,
	type SchemaState,
} from "./schema.ts";
