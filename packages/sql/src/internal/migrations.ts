/**
 * The tables of a memory root in Postgres, all in the root's own schema, made by effect's `Migrator`:
 *
 * - `memory_files`: one row per memory file, keyed by its scope's folder as the files backend names it (`team`,
 *   `agents/<folder>`, `archive/<folder>-<time>`) and its topic (`''` for MEMORY.md), with the agent's id, the Markdown
 *   text, and a version counted up by every write;
 * - `journal`: one row per journal line, in the order they were written (`seq`), with the line's own format version
 *   (a purge's line with the count of `entries` it removed, a line a purge erased the texts of marked `purged`);
 * - `review_state`: the review state, one row per key of each of its records (`cursors`, `failures`, `lastReviews`…),
 *   its value as JSON;
 * - `pending`: one row per entry waiting for a person (issue 28), in the order they were held (`seq`), with its
 *   scope's folder and the entry as JSON text (`MemoryPending.Held`).
 *
 * The migrations done are recorded in `mneme_migrations`; their latest id is the schema's format version, and a schema
 * a newer mneme migrated further is refused (`NewerFormat`) rather than written in a shape this release does not know.
 */
import { Effect } from "effect"
import { Migrator, SqlClient } from "effect/sql"

/** The table recording the migrations done, in the root's schema. */
export const migrationsTable = "mneme_migrations"

/** The migrations of a root whose schema is `schema`, by `<id>_<name>`. */
const migrations = (schema: string) => ({
  "1_memory": Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const table = (name: string) => sql(`${schema}.${name}`)
    yield* sql`CREATE TABLE ${table("memory_files")} (
      scope text NOT NULL,
      topic text NOT NULL,
      agent text,
      content text NOT NULL,
      version integer NOT NULL,
      PRIMARY KEY (scope, topic)
    )`
    yield* sql`CREATE TABLE ${table("journal")} (
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      version integer NOT NULL,
      id text,
      time double precision NOT NULL,
      op text NOT NULL,
      scope text NOT NULL,
      file text NOT NULL,
      actor text NOT NULL,
      auto boolean,
      before text,
      after text,
      undoes text
    )`
    yield* sql`CREATE INDEX ${sql("journal_by_scope")} ON ${table("journal")} (scope, seq)`
    yield* sql`CREATE TABLE ${table("review_state")} (
      part text NOT NULL,
      key text NOT NULL,
      value jsonb NOT NULL,
      PRIMARY KEY (part, key)
    )`
  }),
  // A purge's line counts the entries it removed; a line whose texts a purge erased is marked so.
  "2_purge": Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`ALTER TABLE ${sql(`${schema}.journal`)} ADD COLUMN entries integer, ADD COLUMN purged boolean`
  }),
  // The entries waiting for a person, per scope.
  "3_pending": Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE ${sql(`${schema}.pending`)} (
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      scope text NOT NULL,
      entry text NOT NULL
    )`
    yield* sql`CREATE INDEX ${sql("pending_by_scope")} ON ${sql(`${schema}.pending`)} (scope, seq)`
  })
})

/** The format version this release migrates a schema to: its latest migration's id. */
export const formatVersion = 3

const run = Migrator.make({})

/**
 * Makes the schema `schema` and its tables where missing (one process at a time: the caller holds the root's lock),
 * and gives the schema's format version: this release's, or a newer one's, which the caller refuses.
 */
export const migrate = Effect.fnUntraced(function* (schema: string) {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE SCHEMA IF NOT EXISTS ${sql(schema)}`
  yield* run({ loader: Migrator.fromRecord(migrations(schema)), table: `${schema}.${migrationsTable}` })
  const [latest] = yield* sql<{ readonly version: number | null }>`SELECT max(migration_id) AS version FROM ${sql(
    `${schema}.${migrationsTable}`
  )}`
  return latest?.version ?? 0
})
