/**
 * @mneme/sql — memory in Postgres: the Postgres backend of the storage port (`PostgresRoot`), for hosts whose replicas
 * share one memory.
 */
export * as PostgresRoot from "./PostgresRoot.ts"
