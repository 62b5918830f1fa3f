/**
 * The Postgres backend of the storage port `MemoryRoot`: a memory root as a schema of a Postgres database, for hosts
 * whose replicas share one memory. A host composes `Memory.layerOver(PostgresRoot.layer({ url }))` where it would
 * compose `Memory.layer({ root })`; nothing above the port changes.
 *
 * Memory files are rows (their scope's folder, topic, agent, Markdown text and version), the journal and the review
 * state are tables, all in the root's schema (`mneme` by default), made and migrated by the layer with effect's
 * `Migrator`; a schema a newer mneme migrated further is refused (`NewerFormat`). The text is parsed by the same
 * parser as the files', so every rule of memory holds unchanged. The entries a review holds for a person
 * (`MemoryPending`) are a table of the schema too, provided beside the root. One writer per root across every
 * process: each change is one transaction holding the root's advisory lock, and its files and journal lines are
 * written together or not at all. A writer waits for the lock up to `lock.wait` (10 s by default), and then fails with `Busy`; a writer whose
 * process freezes while it holds the lock loses it after `lock.idle` (30 s by default).
 */
import { PgClient } from "@effect/sql-pg"
import { RootUnusable, StorageError } from "@mneme/core"
import { MemoryPending, MemoryRoot } from "@mneme/review"
import { Context, type Duration, Effect, Layer, Redacted } from "effect"
import { hostname } from "node:os"
import * as Pending from "./internal/postgresPending.ts"
import * as Impl from "./internal/postgresRoot.ts"

/** The writer lock's timing. */
export interface LockOptions {
  /** How long a writer waits for the root's lock before it fails with `Busy` (default 10 seconds). */
  readonly wait?: Duration.Input | undefined
  /**
   * How long a writer's transaction may sit idle, its process frozen or stopped while it holds the root's lock, before
   * Postgres ends its session and so lets the lock go, taking back what it wrote (default 30 seconds).
   */
  readonly idle?: Duration.Input | undefined
}

/** The root's schema and the writer lock's timing, over a client the host gives. */
export interface RootOptions {
  /** The schema the root's tables are in (default `mneme`): 1-63 of `[a-z0-9_]`, not starting with a digit. */
  readonly schema?: string | undefined
  readonly lock?: LockOptions | undefined
}

/** The database (a URL, or the client's own options), the root's schema and the writer lock's timing. */
export interface Options extends RootOptions {
  /** The database as a URL: `postgres://user:password@host:5432/database`. */
  readonly url?: string | Redacted.Redacted | undefined
  /** The client's options (host, port, database, username, password, pool…), over the URL's. */
  readonly client?: PgClient.PgPoolConfig | undefined
}

/** The schema of a root that names none. */
export const defaultSchema = "mneme"

/** How the root is named to people: the database without its password, and the schema. */
const rootName = (config: PgClient.PgClientConfig, schema: string): string => {
  const url = config.url === undefined ? undefined : Redacted.value(config.url)
  const parsed = url !== undefined && URL.canParse(url) ? new URL(url) : undefined
  if (parsed !== undefined) parsed.password = ""
  const database =
    parsed?.href ??
    `postgres://${config.username ?? ""}${config.username === undefined ? "" : "@"}${config.host ?? "localhost"}:${
      config.port ?? 5432
    }/${config.database ?? ""}`
  return `${database} (schema ${schema})`
}

/**
 * The storage port in the schema `options.schema` of the database the `PgClient` given connects to, and beside it the
 * entries waiting for a person (`MemoryPending`), kept in the same schema.
 */
export const layerWith = (
  options: RootOptions = {}
): Layer.Layer<MemoryRoot.MemoryRoot | MemoryPending.MemoryPending, StorageError, PgClient.PgClient> =>
  Layer.effectContext(
    Effect.gen(function* () {
      const client = yield* PgClient.PgClient
      const schema = options.schema ?? defaultSchema
      const root = yield* Impl.make(client, {
        schema,
        root: rootName(client.config, schema),
        wait: options.lock?.wait ?? "10 seconds",
        idle: options.lock?.idle ?? "30 seconds"
      })
      const pending = yield* Pending.make(client, schema, root)
      return Context.make(MemoryRoot.MemoryRoot, root).pipe(Context.add(MemoryPending.MemoryPending, pending))
    })
  )

/**
 * The storage port in the schema `options.schema` of the database `options.url` (or `options.client`), over a pool of
 * its own; a database that cannot be reached fails the layer with `RootUnusable`.
 */
export const layer = (
  options: Options
): Layer.Layer<MemoryRoot.MemoryRoot | MemoryPending.MemoryPending, StorageError> => {
  const config: PgClient.PgPoolConfig = {
    applicationName: `mneme ${process.pid}@${hostname()}`,
    ...(options.url === undefined
      ? {}
      : { url: typeof options.url === "string" ? Redacted.make(options.url) : options.url }),
    ...options.client
  }
  const root = rootName(config, options.schema ?? defaultSchema)
  const client = PgClient.make(config).pipe(
    Effect.mapError((error) => new StorageError({ reason: new RootUnusable({ root, detail: Impl.describe(error) }) }))
  )
  return layerWith(options).pipe(Layer.provide(PgClient.layerFrom(client)))
}
