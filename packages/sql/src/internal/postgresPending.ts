/**
 * The entries waiting for a person (`MemoryPending`, issue 28) of a memory root in Postgres: rows of the `pending`
 * table of the root's schema (see `migrations.ts`), each with its scope's folder as the files backend names it and
 * the entry as JSON (so any text is kept: Postgres text cannot hold U+0000), in the order they were held. The same
 * rules as the files backend's `pending.json`: at most `pendingMax` per scope, the oldest dropped with a warning; a
 * text already waiting is not held twice; every change made as the root's one writer (in its transaction, holding
 * its lock) with its journal lines, `hold`, `approve` or `reject`, written in the same transaction: both, or neither.
 */
import type { PgClient } from "@effect/sql-pg"
import { MemoryConfig, type MemoryScope, ReadFailed, StorageError, WriteFailed } from "@mneme/core"
import { MemoryPending, type MemoryRoot, RootLayout } from "@mneme/review"
import { Array as Arr, Effect, Option, Schema } from "effect"
import { SqlError } from "effect/sql"

type Held = MemoryPending.Held

const decodeEntry = Schema.decodeUnknownOption(Schema.fromJsonString(MemoryPending.Held))

/** A row of the `pending` table as selected. */
interface Row {
  readonly seq: string
  readonly entry: string
}

/** What Postgres said, in words: the server's message where there is one. */
const describe = (error: SqlError.SqlError): string => {
  const cause: unknown = "cause" in error.reason ? error.reason.cause : undefined
  return cause instanceof Error && cause.message !== "" ? cause.message : error.message
}

/**
 * The pending entries of the root `root` in the schema `schema`, over the client given: read outside the writer,
 * changed as the root's one writer.
 */
export const make = Effect.fnUntraced(function* (
  sql: PgClient.PgClient,
  schema: string,
  root: MemoryRoot.MemoryRoot["Service"]
) {
  const settings = yield* MemoryConfig.MemoryConfig
  const table = sql(`${schema}.pending`)
  const shown = `${schema}.pending`
  const failed = (reason: ReadFailed | WriteFailed) => new StorageError({ reason })

  /** The scope's rows, oldest first, with their entries; a row that holds no entry fails, naming the table. */
  const rowsOf = (dir: string) =>
    sql<Row>`SELECT seq::text AS seq, entry FROM ${table} WHERE scope = ${dir} ORDER BY seq`.pipe(
      Effect.mapError((error) => failed(new ReadFailed({ file: shown, detail: describe(error) }))),
      Effect.flatMap((rows) =>
        Effect.forEach(rows, (row) =>
          Option.match(decodeEntry(row.entry), {
            onNone: () =>
              Effect.fail(
                failed(
                  new ReadFailed({
                    file: shown,
                    detail: `row ${row.seq} of ${dir} is not an entry waiting for a person`
                  })
                )
              ),
            onSome: (entry) => Effect.succeed({ seq: row.seq, entry })
          })
        )
      )
    )

  /**
   * Changes the scope's rows as the root's one writer: `plan` is given its entries as they are under the lock, and
   * says which rows go, which entries are added and what is journaled; all in the writer's transaction.
   */
  const change = <A>(
    scope: MemoryScope.MemoryScope,
    plan: (entries: ReadonlyArray<Held>, dir: string) => MemoryPending.Change<A>
  ) =>
    root.write((writer) =>
      Effect.gen(function* () {
        const dir = RootLayout.scopeDir(RootLayout.hash, scope)
        const rows = yield* rowsOf(dir)
        const { gone, added, records, result } = plan(
          rows.map((row) => row.entry),
          dir
        )
        const seqs = rows.filter((row) => gone.includes(row.entry)).map((row) => row.seq)
        if (seqs.length > 0) yield* sql`DELETE FROM ${table} WHERE seq IN ${sql.in(seqs)}`
        if (Arr.isReadonlyArrayNonEmpty(added)) {
          yield* sql`INSERT INTO ${table} ${sql.insert(
            Arr.map(added, (entry) => ({ scope: dir, entry: JSON.stringify(entry) }))
          )}`
        }
        yield* writer.commit([], records)
        return result
      }).pipe(
        Effect.catchIf(SqlError.isSqlError, (error) =>
          Effect.fail(failed(new WriteFailed({ file: shown, detail: describe(error) })))
        )
      )
    )

  return MemoryPending.MemoryPending.of({
    list: (scope) =>
      Effect.map(rowsOf(RootLayout.scopeDir(RootLayout.hash, scope)), (rows) => rows.map((row) => row.entry)).pipe(
        Effect.withSpan("MemoryPending.list")
      ),
    hold: (scope, held, actor) =>
      change(scope, (entries, dir) =>
        MemoryPending.holdChange(entries, held, { max: settings.pendingMax, dir, actor })
      ).pipe(
        Effect.tap((dropped) => MemoryPending.warnDropped(scope, dropped, settings.pendingMax)),
        Effect.withSpan("MemoryPending.hold")
      ),
    remove: (scope, taken, decision) =>
      change(scope, (entries, dir) => MemoryPending.removeChange(entries, taken, decision, dir)).pipe(
        Effect.withSpan("MemoryPending.remove")
      ),
    restore: (scope, restored) =>
      change(scope, (entries) => MemoryPending.restoreChange(entries, restored)).pipe(
        Effect.withSpan("MemoryPending.restore")
      )
  })
})
