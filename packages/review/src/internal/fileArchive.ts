/**
 * Archiving an agent's folder in the files backend (`MemoryRoot.archive`), under the lock: the folder (its own, or the
 * earlier naming's while only that exists) moved whole to `archive/<folder>-<time>` (a name no archive has yet), the
 * move journaled first; the archive folder is made only once the journal is open, and taken away again, with the
 * journal's line, if the move is refused.
 */
import { NotFound } from "@mneme/core"
import { Clock, Effect, Ref } from "effect"
import { type Actor, archiveBase, archiveRecord, journalLines } from "../MemoryRoot.ts"
import { storageError, writeFailed } from "./files.ts"
import * as Journal from "./journal.ts"
import * as JournalFile from "./journalFile.ts"
import * as Paths from "./paths.ts"
import * as RootFolders from "./rootFolders.ts"
import type * as RootLock from "./rootLock.ts"

/** Moves the folder `from` (of the scope whose folder is `dir`) under `archive/`; gives the archive folder. */
export const archive = Effect.fnUntraced(function* (
  writing: RootFolders.Writing,
  real: string,
  held: RootLock.Held,
  from: string,
  dir: string,
  actor: Actor
) {
  const { looker, fs } = writing
  const located = yield* Paths.resolve(looker, real, from)
  if (located.info === undefined) {
    return yield* storageError(new NotFound({ path: dir, detail: "there is no memory folder to archive" }))
  }
  const now = yield* Clock.currentTimeMillis
  const base = archiveBase(from, now)
  let to = base
  for (let n = 2; (yield* Paths.resolve(looker, real, to)).info !== undefined; n++) to = `${base}-${n}`
  const target = yield* Paths.resolve(looker, real, to)
  const lines = yield* journalLines([archiveRecord(from, to, actor)], now)
  const made = yield* Ref.make(RootFolders.nothingMade)
  yield* held.check
  yield* JournalFile.withJournal(looker, real, (journal) =>
    Effect.gen(function* () {
      yield* RootFolders.makeFolders(writing, real, "archive", made)
      yield* journal.append(yield* Journal.encode(lines))
      yield* fs.rename(located.absolute, target.absolute).pipe(
        Effect.mapError(writeFailed(from)),
        Effect.onError(() => journal.undo)
      )
    }).pipe(Effect.onError(() => RootFolders.unmake(writing, made)))
  )
  return to
})
