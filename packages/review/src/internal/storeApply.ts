/**
 * A batch of changes as the memory store makes it: the date its entries are written with, the topics of each scope it
 * needs read, planned by `MemoryEdit` against the files the writer reads, and committed with its journal lines in one go.
 */
import { type BadTopic, type Denied, type MemoryConfig, MemoryEdit, MemoryScope, type StorageError } from "@mneme/core"
import { Clock, DateTime, Effect, Option, Ref, Result } from "effect"
import type { Writer } from "../MemoryRoot.ts"

/**
 * How `apply` journals its batch: `journalAs: "consolidate"` journals every line with that op, so the batch is one
 * change an undo reverts whole (a consolidation pass).
 */
export interface ApplyOptions {
  readonly journalAs?: "consolidate" | undefined
}

/** The zone `added` dates are written in: `timeZone`, or UTC with one warning when it is not a known zone. */
const zoneOf = Effect.fnUntraced(function* (timeZone: string) {
  const zone = DateTime.zoneMakeNamed(timeZone)
  if (Option.isNone(zone)) {
    yield* Effect.logWarning(`mneme: unknown time zone ${JSON.stringify(timeZone)}; dates are written in UTC`)
  }
  return Option.getOrUndefined(zone)
})

/**
 * Today's date in the zone `settings` name. The zone is looked up for the first date written, not when this is made: a
 * command that only reads never pays for it; the date is worked out again only when the clock's second has moved since
 * the last (no zone moves midnight within a second), since working it out in a zone costs tens of microseconds.
 */
export const today = (settings: Pick<MemoryConfig.Settings, "timeZone">): Effect.Effect<Effect.Effect<string>> =>
  Effect.gen(function* () {
    const zone = yield* Effect.cached(Effect.suspend(() => zoneOf(settings.timeZone)))
    const dated = yield* Ref.make<{ readonly second: number; readonly date: string } | undefined>(undefined)
    return Effect.gen(function* () {
      const millis = yield* Clock.currentTimeMillis
      const second = Math.floor(millis / 1000)
      const last = yield* Ref.get(dated)
      if (last?.second === second) return last.date
      const now = DateTime.makeUnsafe(millis)
      const inZone = yield* zone
      const date = DateTime.formatIsoDate(inZone === undefined ? now : DateTime.setZone(now, inZone))
      yield* Ref.set(dated, { second, date })
      return date
    })
  })

/**
 * A planned batch, unless a change's storage failed (a topic file that could not be read), which fails it whole; the
 * other results are each change's own.
 */
export const settled = (batch: MemoryEdit.Batch) => {
  const failed = batch.results.find(
    (result): result is Result.Failure<MemoryEdit.Outcome, StorageError> =>
      Result.isFailure(result) && result.failure._tag === "StorageError"
  )
  return failed === undefined
    ? Effect.succeed({
        draft: batch.draft,
        results: batch.results as ReadonlyArray<Result.Result<MemoryEdit.Outcome, MemoryEdit.ChangeError>>
      })
    : Effect.fail(failed.failure)
}

/**
 * The topics of a scope a batch's changes need read: those they name, where every one of them is a replace or a remove
 * (which acts on its own file, and on MEMORY.md's index); `undefined` (the whole scope) where one adds (which looks for
 * the same fact in every file, and counts the topics).
 */
const filesOf = (
  changes: ReadonlyArray<MemoryEdit.Prepared>,
  scope: MemoryScope.MemoryScope
): ReadonlyArray<string> | undefined => {
  const topics = new Set<string>()
  for (const { change, topic } of changes) {
    if (!MemoryScope.equals(change.scope, scope)) continue
    if (change.op === "add") return undefined
    if (topic !== undefined) topics.add(topic)
  }
  return [...topics]
}

/**
 * Plans the changes `prepared` against the files of their scopes `writer` reads (each scope once, only the topics it
 * needs), and commits what they change with its journal lines, each line's op `journalAs` where given; each change's
 * own result.
 */
export const applyWith = Effect.fnUntraced(function* (
  writer: Writer,
  prepared: ReadonlyArray<Result.Result<MemoryEdit.Prepared, Denied | BadTopic>>,
  options?: ApplyOptions
) {
  const ready = prepared.flatMap((change) => (Result.isSuccess(change) ? [change.success] : []))
  const scopes = ready.map((change) => change.change.scope)
  const distinct = scopes.filter((scope, i) => scopes.findIndex((other) => MemoryScope.equals(other, scope)) === i)
  const read = yield* Effect.forEach(distinct, (scope) => writer.read(scope, filesOf(ready, scope)), {
    concurrency: "unbounded"
  })
  const { draft, results } = yield* settled(MemoryEdit.planAll(MemoryEdit.start(read), prepared))
  if (draft.writes.length > 0) {
    const journalAs = options?.journalAs
    yield* writer.commit(
      draft.writes,
      journalAs === undefined ? draft.journal : draft.journal.map((record) => ({ ...record, op: journalAs }))
    )
  }
  return results
})
