/**
 * @mneme/sql — for hosts whose replicas share one memory: the Postgres backend of the storage port (`PostgresRoot`),
 * and the memory review on effect/cluster (`ClusterReview`).
 */
export * as PostgresRoot from "./PostgresRoot.ts"
export * as ClusterReview from "./ClusterReview.ts"
