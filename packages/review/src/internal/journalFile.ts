/**
 * Appending to the journal of a memory root (`journal.jsonl`) for one change: opened once (never through a link), the
 * change's lines written on a fresh line (after a torn last line, if any) and flushed, and given back its length when
 * the change fails. See `journal.ts` for the lines themselves and `journalSettle.ts` for a change its writer did not
 * finish.
 */
import { type StorageError, WriteFailed } from "@mneme/core"
import { Effect, FileSystem, Option, Path, Scope } from "effect"
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

/**
 * Runs `change` with the journal to append to: `append` opens it (the first time), writes the lines on a fresh line
 * and flushes them, so a journal that cannot be appended stops the change before it is made if `change` appends
 * before it changes anything; `undo` gives the journal its length back. A journal the opening created is removed
 * again when the change fails and leaves it empty.
 */
export const withJournal = <A>(
  looker: Paths.Looker,
  real: string,
  change: (journal: Journal) => Effect.Effect<A, StorageError, FileSystem.FileSystem | Path.Path>
) =>
  Effect.scoped(
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const run = <B, E>(self: Effect.Effect<B, E, Path.Path>) => Effect.provideService(self, Path.Path, path)
      const scope = yield* Effect.scope
      /** The journal as opened: its handle, its length then, whether it ended mid-line, and whether it was new. */
      let opened:
        | { readonly handle: FileSystem.File; readonly size: number; readonly torn: boolean; readonly made: string }
        | undefined
      const open = Effect.gen(function* () {
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
          handle
            .readAlloc(1, { position: BigInt(size - 1) })
            .pipe(Effect.mapError(readFailed(JournalLines.journalName)))
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
        opened = { handle, size, torn, made: journal.info === undefined ? journal.absolute : "" }
        return opened
      })
      const undo = Effect.suspend(() =>
        opened === undefined ? Effect.void : Effect.ignore(opened.handle.truncate(opened.size))
      )
      const append = (text: string) =>
        Effect.gen(function* () {
          const journal = opened ?? (yield* run(open))
          yield* journal.handle.writeAll(encodeText(journal.torn ? "\n" + text : text)).pipe(
            Effect.andThen(journal.handle.sync),
            Effect.onError(() => undo),
            Effect.mapError(writeFailed(JournalLines.journalName))
          )
        })
      const removeIfNewAndEmpty = Effect.suspend(() =>
        opened === undefined || opened.made === ""
          ? Effect.void
          : Effect.ignore(
              Effect.flatMap(fs.lstat(opened.made), (info) =>
                info.type === "File" && Number(info.size) === 0 ? fs.remove(opened!.made) : Effect.void
              )
            )
      )
      return yield* change({
        open: Effect.suspend(() => (opened === undefined ? Effect.asVoid(run(open)) : Effect.void)),
        append,
        undo
      }).pipe(Effect.onError(() => removeIfNewAndEmpty))
    })
  )
