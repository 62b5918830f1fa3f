/**
 * The review state of a Postgres root: a row per entry (`reviewRows.ts`), looked up and changed by key, row by row; a
 * change is made in the writer's transaction, refused with `StaleCursor` when a cursor it expects has moved.
 */
import { ReadFailed } from "@mneme/core"
import { MemoryRoot } from "@mneme/review"
import type { PgClient } from "@effect/sql-pg"
import { Array as Arr, Effect } from "effect"
import { SqlError, type Statement } from "effect/sql"
import { readFailed, storageError, writeFailed } from "./postgresRows.ts"
import * as ReviewRows from "./reviewRows.ts"

/** Reading and changing the review state kept in `stateTable` of the schema `schema`. */
export const make = (sql: PgClient.PgClient, schema: string, stateTable: Statement.Identifier) => {
  const stateShown = `${schema}.review_state`

  const readState = sql<ReviewRows.Row>`SELECT part, key, value FROM ${stateTable}`.pipe(
    Effect.mapError(readFailed(stateShown)),
    Effect.flatMap((rows) =>
      ReviewRows.stateOf(rows).pipe(
        Effect.mapError((error) => storageError(new ReadFailed({ file: stateShown, detail: error.message })))
      )
    ),
    Effect.withSpan("MemoryRoot.readState")
  )

  /** The rows of the entries `keys` (each looked up by its primary key), as a state holding only those. */
  const readStateOf = (keys: MemoryRoot.StateKeys) => {
    const wanted = Object.entries(keys).flatMap(([part, names]) =>
      names.length === 0 ? [] : [sql`(part = ${part} AND key IN ${sql.in(names)})`]
    )
    const rows =
      wanted.length === 0
        ? Effect.succeed<ReadonlyArray<ReviewRows.Row>>([])
        : sql<ReviewRows.Row>`SELECT part, key, value FROM ${stateTable} WHERE ${sql.or(wanted)}`
    return rows.pipe(
      Effect.mapError(readFailed(stateShown)),
      Effect.flatMap((rows) =>
        ReviewRows.stateOf(rows).pipe(
          Effect.mapError((error) => storageError(new ReadFailed({ file: stateShown, detail: error.message })))
        )
      ),
      Effect.withSpan("MemoryRoot.readStateOf")
    )
  }

  /**
   * Changes the review state by `change` under the writer's lock: the rows it changes, in the writer's transaction; a
   * change of a few keys reads only theirs. Refused with `StaleCursor`, writing nothing, when a cursor it expects has
   * moved.
   */
  const changeState = (change: MemoryRoot.StateChange) =>
    Effect.gen(function* () {
      const state = yield* change.keys === undefined ? readState : readStateOf(change.keys)
      const stale = MemoryRoot.staleCursor(change, state)
      if (stale !== undefined) return yield* storageError(stale)
      const next = change(state)
      if (next === state) return
      const { deleted, written } = ReviewRows.changes(state, next)
      for (const row of deleted) {
        yield* sql`DELETE FROM ${stateTable} WHERE part = ${row.part} AND key = ${row.key}`
      }
      if (Arr.isReadonlyArrayNonEmpty(written)) {
        yield* sql`INSERT INTO ${stateTable} ${sql.insert(
          Arr.map(written, (row) => ({ part: row.part, key: row.key, value: sql.json(row.value) }))
        )} ON CONFLICT (part, key) DO UPDATE SET value = EXCLUDED.value`
      }
    }).pipe(Effect.catchIf(SqlError.isSqlError, writeFailed(stateShown)))

  return { readState, readStateOf, changeState }
}
