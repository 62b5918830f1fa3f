/**
 * Appending to the journal of a memory root (`journal.jsonl`) for one change: opened once (never through a link), the
 * change's lines written on a fresh line (after a torn last line, if any) and flushed, and given back its length when
 * the change fails. See `journal.ts` for the lines themselves and `journalSettle.ts` for a change its writer did not
 * finish.
 */
import { type StorageError, WriteFailed } from "@mneme/core"
import { Effect, Exit, FileSystem, Option, Path, Scope, SynchronizedRef } from "effect"
import { encodeText, readFailed, storageError, writeFailed } from "./files.ts"
import * as JournalLines from "./journal.ts"
import * as Paths from "./paths.ts"

/** The journal as a change sees it. */
export interface Journal {
  /** Opens the journal, if not open yet (`append` does too). */
  readonly open: Effect.Effect<void, StorageError>
  /** Appends the journal's lines, encoded (`Journal.encode`). */
  readonly append: (text: string) => Effect.Effect<void, StorageError>
  /** Gives the journal the length it had when opened. */
  readonly undo: Effect.Effect<void>
}

/** The journal as opened: its handle, its length then, whether it ended mid-line, and the path it was made at, if new. */
interface Opened {
  readonly handle: FileSystem.File
  readonly size: number
  readonly torn: boolean
  readonly made: string | undefined
}

/**
 * The journal of the root whose real path is `real`, for one change, as a resource of the current scope: `append`
 * opens it (the first time, into that scope), writes the lines on a fresh line and flushes them, so a journal that
 * cannot be appended stops the change before it is made if the change appends before it changes anything; `undo`
 * gives the journal its length back. A journal the opening created is removed again when the scope closes on a
 * failure and leaves it empty. Whether and how it was opened is held in a `SynchronizedRef`, so it is opened once.
 */
export const make = Effect.fnUntraced(function* (looker: Paths.Looker, real: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const scope = yield* Effect.scope
  const openedRef = yield* SynchronizedRef.make<Opened | undefined>(undefined)

  // Added before the handle is opened into the scope, so it runs once the handle is closed.
  yield* Effect.addFinalizer((exit) =>
    Exit.isSuccess(exit)
      ? Effect.void
      : Effect.flatMap(SynchronizedRef.get(openedRef), (opened) =>
          opened?.made === undefined
            ? Effect.void
            : Effect.ignore(
                Effect.flatMap(fs.lstat(opened.made), (info) =>
                  info.type === "File" && Number(info.size) === 0 ? fs.remove(opened.made!) : Effect.void
                )
              )
        )
  )

  const openNow = Effect.gen(function* () {
    const journal = yield* Paths.resolve(looker, real, JournalLines.journalName)
    if (journal.info !== undefined && journal.info.type !== "File") {
      return yield* storageError(
        new WriteFailed({ file: JournalLines.journalName, detail: "it is a folder, not a file" })
      )
    }
    const handle = yield* fs
      .open(journal.absolute, { flag: "a+" })
      .pipe(Scope.provide(scope), Effect.mapError(writeFailed(JournalLines.journalName)))
    const lastByteAt = (size: number) =>
      handle.readAlloc(1, { position: BigInt(size - 1) }).pipe(Effect.mapError(readFailed(JournalLines.journalName)))
    // The last byte where the stat before opening says it is, read while the opened file's size is asked; read
    // again where that size is another.
    const statSize = journal.info?.size ?? 0
    const [info, statLastByte] = yield* Effect.all(
      [
        handle.stat.pipe(Effect.mapError(writeFailed(JournalLines.journalName))),
        statSize === 0 ? Effect.succeed(undefined) : lastByteAt(statSize)
      ],
      { concurrency: 2 }
    )
    const size = Number(info.size)
    const lastByte = size === 0 ? undefined : size === statSize ? statLastByte : yield* lastByteAt(size)
    const torn = lastByte !== undefined && Option.getOrUndefined(lastByte)?.[0] !== 0x0a
    const opened: Opened = { handle, size, torn, made: journal.info === undefined ? journal.absolute : undefined }
    return opened
  }).pipe(Effect.provideService(Path.Path, path))

  /** The journal, opened the first time it is asked for. */
  const opened: Effect.Effect<Opened, StorageError> = SynchronizedRef.modifyEffect(openedRef, (was) =>
    was !== undefined ? Effect.succeed([was, was] as const) : Effect.map(openNow, (now) => [now, now] as const)
  )

  const undo = Effect.flatMap(SynchronizedRef.get(openedRef), (was) =>
    was === undefined ? Effect.void : Effect.ignore(was.handle.truncate(was.size))
  )

  const append = (text: string) =>
    Effect.flatMap(opened, (journal) =>
      journal.handle.writeAll(encodeText(journal.torn ? "\n" + text : text)).pipe(
        Effect.andThen(journal.handle.sync),
        Effect.onError(() => undo),
        Effect.mapError(writeFailed(JournalLines.journalName))
      )
    )

  const journal: Journal = { open: Effect.asVoid(opened), append, undo }
  return journal
})

/** Runs `change` with the journal of the root whose real path is `real` (see `make`), closed when it ends. */
export const withJournal = <A>(
  looker: Paths.Looker,
  real: string,
  change: (journal: Journal) => Effect.Effect<A, StorageError, FileSystem.FileSystem | Path.Path>
) => Effect.scoped(Effect.flatMap(make(looker, real), change))
