/**
 * The one writer of a Postgres root: every change is one transaction that first takes the root's advisory lock
 * (`pg_advisory_xact_lock`, held until the transaction ends, let go by Postgres when a writer's connection dies), and
 * in the process one writer at a time waits for it. A lock busy for longer than `wait` fails with `Busy`, naming its
 * holder; a transaction idle for longer than `idle` (its process frozen) is ended by Postgres, and the lock with it.
 */
import { Busy, StorageError } from "@mneme/core"
import type { PgClient } from "@effect/sql-pg"
import { Clock, Duration, Effect, Result, Semaphore } from "effect"
import { SqlError } from "effect/sql"
import { storageError, writeFailed } from "./postgresRows.ts"

/** Where the lock is and how long it is waited for; `idle` as Postgres takes it (`<n>ms`). */
export interface LockOptions {
  readonly root: string
  readonly lockName: string
  readonly wait: Duration.Duration
  readonly idle: string
}

/** The writer's lock of a root over `sql`: `locked` runs a body holding it, `hold` too, a failure of Postgres a failed write. */
export const make = Effect.fnUntraced(function* (sql: PgClient.PgClient, options: LockOptions) {
  const { root, lockName, wait, idle } = options
  const lockShown = `${root}: advisory lock ${JSON.stringify(lockName)}`
  const semaphore = yield* Semaphore.make(1)

  /** Who holds the root's lock now, as far as Postgres tells (a client naming itself `mneme <pid>@<host>`). */
  const holder = sql<{ readonly name: string; readonly since: number | null }>`
    SELECT a.application_name AS name, extract(epoch FROM a.xact_start)::float8 * 1000 AS since
    FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
    WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
      AND l.classid = ((hashtextextended(${lockName}, 0) >> 32) & 4294967295)::oid
      AND l.objid = (hashtextextended(${lockName}, 0) & 4294967295)::oid`.pipe(
    Effect.map(([row]) => {
      const named = row === undefined ? null : /^mneme (\d{1,10})@(.{1,200})$/.exec(row.name)
      return named === null || row?.since == null
        ? undefined
        : { pid: Number(named[1]), host: named[2]!, since: Math.round(row.since) }
    }),
    Effect.orElseSucceed(() => undefined)
  )

  /**
   * Takes the root's lock for the rest of the transaction, waiting at most `wait`; `Busy` past that (its holder is
   * looked up once the transaction has ended, see `named`). A transaction left idle for `idle` (its process frozen) is
   * ended by Postgres, and the lock with it, so a frozen writer does not stop every other.
   */
  const lock = Effect.gen(function* () {
    const start = yield* Clock.currentTimeMillis
    yield* sql`SELECT set_config('lock_timeout', ${`${Math.max(1, Math.round(Duration.toMillis(wait)))}ms`}, true),
      set_config('idle_in_transaction_session_timeout', ${idle}, true)`
    const taken = yield* Effect.result(sql`SELECT pg_advisory_xact_lock(hashtextextended(${lockName}, 0))`)
    if (Result.isFailure(taken)) {
      if (taken.failure.reason._tag !== "LockTimeoutError") return yield* taken.failure
      const waited = (yield* Clock.currentTimeMillis) - start
      return yield* storageError(new Busy({ lock: lockShown, waited }))
    }
    yield* sql`SELECT set_config('lock_timeout', '0', true)`
  })

  /** A `Busy` with the lock's holder, where Postgres can tell it (asked outside the writer's aborted transaction). */
  const named = <A, E, R>(self: Effect.Effect<A, E | StorageError, R>): Effect.Effect<A, E | StorageError, R> =>
    Effect.catch(self, (error) => {
      const busy = error instanceof StorageError && error.reason._tag === "Busy" ? error.reason : undefined
      return busy === undefined
        ? Effect.fail(error)
        : Effect.flatMap(holder, (by) =>
            Effect.fail(
              storageError(by === undefined ? busy : new Busy({ lock: busy.lock, waited: busy.waited, holder: by }))
            )
          )
    })

  /**
   * Runs `body` in one transaction holding the root's lock, one such writer at a time in this process, not interrupted
   * midway; a failure of the body takes back everything it wrote. A failure of Postgres itself is `onSqlError`'s.
   */
  const locked = <A, E, R>(
    body: Effect.Effect<A, E, R>,
    onSqlError: (error: SqlError.SqlError) => StorageError
  ): Effect.Effect<A, Exclude<E, SqlError.SqlError> | StorageError, R> =>
    named(
      semaphore
        .withPermit(Effect.uninterruptible(sql.withTransaction(Effect.andThen(lock, body))))
        .pipe(
          Effect.catch((error) =>
            Effect.fail(
              SqlError.isSqlError(error) ? onSqlError(error) : (error as Exclude<E, SqlError.SqlError> | StorageError)
            )
          )
        )
    )

  /** `locked`, a failure of Postgres being a failed write. */
  const hold = <A, E, R>(body: Effect.Effect<A, E, R>) => locked(body, writeFailed(root))

  return { locked, hold }
})
