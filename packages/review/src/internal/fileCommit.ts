/**
 * One commit of the files backend, in phases, each a function over the values the one before gave:
 *
 * - `prepare`: the folders the new files need, and their id records; then every file at once: what it holds now (to
 *   give back on a failure) and its new text written aside to a flushed temporary file; the review state's new text
 *   too, where the commit changes it.
 * - `checkAndJournal`, run while `prepare` writes: the lock is checked to be still this writer's, and every journal
 *   line of the commit is appended in one write, before anything is in place.
 * - `swap`: every file renamed into place (or removed) at once; a failure gives back what landed and the journal its
 *   length.
 * - `cleanUp`: the temporaries that did not land removed, what a refused commit made taken away, and the parse cache
 *   told what each file now holds.
 *
 * The temporaries are a resource (`Effect.acquireUseRelease`): what the phases wrote and made is recorded in `Ref`s as
 * soon as it is there, and `cleanUp` runs whatever ends the phases, so a failure or an interruption after a temporary
 * was written leaves none behind. A failure on the way leaves every file and the state as they were and the journal as
 * long as it was. A writer killed between the journal's append and the renames leaves lines for a change the files do
 * not hold: the next writer, taking its lock, settles them (`journalSettle.ts`).
 */
import { type StorageError, Text, WriteFailed } from "@mneme/core"
import { Clock, Effect, Exit, type FileSystem, type Path, Ref, Result } from "effect"
import { type FileWrite, type JournalLine, type JournalRecord, journalLines, type StateChange } from "../MemoryRoot.ts"
import * as FileCache from "./fileCache.ts"
import { orMissing, readFailed, storageError } from "./files.ts"
import * as Journal from "./journal.ts"
import * as JournalFile from "./journalFile.ts"
import * as Paths from "./paths.ts"
import * as Placement from "./placement.ts"
import * as RootFolders from "./rootFolders.ts"
import type * as RootLock from "./rootLock.ts"
import * as StateFile from "./stateFile.ts"
import type * as StateSeen from "./stateSeen.ts"

/**
 * What a writer has seen under its hold: the agent ids of the folders it read, those folders (relative → absolute:
 * they exist, and are no links), and the text of each file it read (by absolute path).
 */
export interface Seen {
  readonly ids: ReadonlyMap<string, string>
  readonly folders: ReadonlyMap<string, string>
  readonly texts: ReadonlyMap<string, string>
}

/** What a commit works with: writing in the root, its parse cache, and its review state file. */
export interface Services extends RootFolders.Writing {
  readonly cache: FileCache.FileCache
  readonly stateChanged: (
    real: string,
    change: StateChange
  ) => Effect.Effect<StateSeen.StateWrite | undefined, StorageError, FileSystem.FileSystem | Path.Path>
  readonly stateWritten: (write: StateSeen.StateWrite) => Effect.Effect<void>
}

/** One commit: the root's real path, the hold of its lock, and what the writer has seen. */
export interface Commit extends Services {
  readonly real: string
  readonly held: RootLock.Held
  readonly seen: Seen
}

/**
 * A file a commit replaces or removes: where it is (and its inode then), what it held (text or bytes), and its new
 * text written aside.
 */
interface Target {
  readonly write: FileWrite
  readonly absolute: string
  readonly place: Placement.Place
  readonly ino: bigint | undefined
  readonly old: string | Uint8Array | undefined
  readonly temporary: Placement.Aside | undefined
}

/** What the phases have done so far: the targets prepared (in any order), and those put in place. */
interface Progress {
  readonly prepared: ReadonlyArray<Target>
  readonly landed: ReadonlyArray<Target>
}

/** The resource of one commit: its progress, and what it made beside its files. */
interface Temporaries {
  readonly progress: Ref.Ref<Progress>
  readonly made: Ref.Ref<RootFolders.Made>
}

/** What `prepare` gives: the targets in the order of the writes (the state's last), and the state's change. */
interface Prepared {
  readonly targets: ReadonlyArray<Target>
  readonly state: StateSeen.StateWrite | undefined
}

const prepared = (temporaries: Temporaries, target: Target) =>
  Ref.update(temporaries.progress, ({ prepared, landed }) => ({ prepared: [...prepared, target], landed }))

/** A file of the commit: resolved, what it holds read (unless the writer read it), its new text written aside. */
const targetOf = Effect.fnUntraced(function* (commit: Commit, temporaries: Temporaries, write: FileWrite) {
  const { looker, real, seen, fs, path } = commit
  const { absolute, info } = yield* Paths.resolve(looker, real, write.file, seen.folders.get(path.dirname(write.file)))
  if (info !== undefined && info.type !== "File") {
    return yield* storageError(new WriteFailed({ file: write.file, detail: "it is a folder, not a file" }))
  }
  // What this writer read of the file is what the change replaces (a change made on disk since would be replaced as
  // well); a file it did not read is read now.
  const read = seen.texts.get(absolute)
  const old =
    info === undefined
      ? undefined
      : read !== undefined
        ? read
        : yield* orMissing(fs.readFile(absolute)).pipe(Effect.mapError(readFailed(write.file)))
  const place: Placement.Place = { looker, real, file: write.file, absolute }
  const temporary =
    write.content === undefined
      ? undefined
      : yield* Placement.writeAside(place, write.content, yield* commit.temporarySuffix)
  const target: Target = { write, absolute, place, ino: info?.ino, old, temporary }
  yield* prepared(temporaries, target)
  return target
})

/** The state file, after the memory files: its new text written aside as theirs are, where it changes. */
const stateTargetOf = Effect.fnUntraced(function* (
  commit: Commit,
  temporaries: Temporaries,
  change: StateChange | undefined
) {
  if (change === undefined) return { target: undefined, state: undefined }
  const state = yield* commit.stateChanged(commit.real, change)
  if (state === undefined) return { target: undefined, state }
  const write = { file: StateFile.stateName, content: state.text }
  const place: Placement.Place = {
    looker: commit.looker,
    real: commit.real,
    file: write.file,
    absolute: state.absolute
  }
  const temporary = yield* Placement.writeAside(place, state.text, yield* commit.temporarySuffix)
  const target: Target = { write, absolute: state.absolute, place, ino: undefined, old: state.old, temporary }
  yield* prepared(temporaries, target)
  return { target, state }
})

/**
 * The folders the new files need that this writer has not read, and their id records, one folder at a time; then
 * every file at once, and the state.
 */
const prepare = Effect.fnUntraced(function* (
  commit: Commit,
  temporaries: Temporaries,
  writes: ReadonlyArray<FileWrite>,
  change: StateChange | undefined
) {
  const needed = writes.flatMap((write) => (write.content === undefined ? [] : [commit.path.dirname(write.file)]))
  for (const folder of new Set(needed)) {
    if (!commit.seen.folders.has(folder)) yield* RootFolders.makeFolders(commit, commit.real, folder, temporaries.made)
    const agentId = commit.seen.ids.get(folder)
    if (agentId !== undefined && Paths.recordsId(agentId)) {
      const recorded = yield* RootFolders.recordId(commit, commit.real, folder, agentId)
      if (recorded !== undefined) yield* RootFolders.madeFile(temporaries.made, recorded)
    }
  }
  const [targets, stateTarget] = yield* Effect.all(
    [
      Effect.forEach(writes, (write) => targetOf(commit, temporaries, write), { concurrency: "unbounded" }),
      stateTargetOf(commit, temporaries, change)
    ],
    { concurrency: "unbounded" }
  )
  const result: Prepared = {
    targets: stateTarget.target === undefined ? targets : [...targets, stateTarget.target],
    state: stateTarget.state
  }
  return result
})

/**
 * The lock checked to be still this writer's, and the journal's lines appended (the journal opened while the lock is
 * checked): nothing is appended unless the lock is still this writer's.
 */
const checkAndJournal = (held: RootLock.Held, journal: JournalFile.Journal, lines: ReadonlyArray<JournalLine>) =>
  lines.length === 0
    ? held.check
    : Effect.andThen(
        Effect.all([held.check, journal.open], { concurrency: 2 }),
        Effect.flatMap(Journal.encode(lines), journal.append)
      )

/**
 * Gives every target back what it held (best effort: this runs when a commit fails midway), never through a link
 * swapped in meanwhile.
 */
const restore = (commit: Commit, targets: ReadonlyArray<Target>) =>
  Effect.forEach(
    targets,
    (target) =>
      Effect.ignore(
        target.old === undefined
          ? Effect.flatMap(commit.removedSuffix, (suffix) =>
              Placement.remove(target.place, target.temporary?.ino, suffix)
            )
          : Effect.flatMap(commit.temporarySuffix, (suffix) => Placement.write(target.place, target.old!, suffix))
      ),
    { discard: true }
  )

/**
 * Every file put in place at once, each rename or removal let finish (what landed is known, to give back), then the
 * first failure in the order given fails the commit, after what landed is given back and the journal its length. Each
 * is checked to stay inside the root.
 */
const swap = (commit: Commit, temporaries: Temporaries, journal: JournalFile.Journal, targets: ReadonlyArray<Target>) =>
  Effect.forEach(
    targets,
    (target) =>
      (target.temporary === undefined
        ? target.old === undefined
          ? Effect.void
          : Effect.flatMap(commit.removedSuffix, (suffix) => Placement.remove(target.place, target.ino, suffix))
        : Placement.put(target.place, target.temporary)
      ).pipe(
        Effect.andThen(
          Ref.update(temporaries.progress, ({ prepared, landed }) => ({ prepared, landed: [...landed, target] }))
        ),
        Effect.result
      ),
    { concurrency: "unbounded" }
  ).pipe(
    Effect.flatMap((results) => {
      const failed = results.find(Result.isFailure)
      return failed === undefined ? Effect.void : Effect.fail(failed.failure)
    }),
    Effect.onError(() =>
      Effect.andThen(
        Effect.flatMap(Ref.get(temporaries.progress), ({ landed }) => restore(commit, landed)),
        journal.undo
      )
    )
  )

/**
 * Whatever ended the phases: the temporaries that did not land removed; on a failure, the folders and id records the
 * commit made taken away (after their temporaries); and a file written keeps the parse its writer gave (its text is
 * read again, and parsed only if it changed), any other file the commit touched is dropped from the cache.
 */
const cleanUp = (commit: Commit, temporaries: Temporaries, exit: Exit.Exit<unknown, unknown>) =>
  Effect.gen(function* () {
    const { prepared, landed } = yield* Ref.get(temporaries.progress)
    for (const target of prepared) {
      if (target.temporary !== undefined && !landed.includes(target)) {
        yield* Effect.ignore(commit.fs.remove(target.temporary.temporary, { force: true }))
      }
    }
    if (Exit.isFailure(exit)) yield* RootFolders.unmake(commit, temporaries.made)
    for (const { absolute, write } of prepared) {
      const { content, parsed } = write
      if (Exit.isSuccess(exit) && content !== undefined && parsed !== undefined) {
        commit.cache.set(absolute, {
          ...FileCache.noStamp,
          readAt: 0,
          text: content,
          parsed,
          chars: Text.length(content)
        })
      } else commit.cache.drop(absolute)
    }
  })

/**
 * Makes one change (`BackendWriter.commit`): the phases, in a journal opened for it, with the temporaries as a
 * resource. A commit that failed while a link stood on the path of one of its files failed because of that link (its
 * steps run at once, so the step that met the link first may have failed for want of what the link hid): it is
 * refused as every write through a link is, naming the link.
 */
export const run = Effect.fnUntraced(function* (
  commit: Commit,
  writes: ReadonlyArray<FileWrite>,
  records: ReadonlyArray<JournalRecord>,
  change: StateChange | undefined
) {
  if (writes.length === 0 && records.length === 0 && change === undefined) return
  const lines = yield* journalLines(records, yield* Clock.currentTimeMillis)
  yield* JournalFile.withJournal(commit.looker, commit.real, (journal) =>
    Effect.acquireUseRelease(
      Effect.all({
        progress: Ref.make<Progress>({ prepared: [], landed: [] }),
        made: Ref.make(RootFolders.nothingMade)
      }),
      (temporaries) =>
        Effect.gen(function* () {
          // The journal is opened first: its appending, and the flush that ends it, wait behind no temporary file.
          const [, { targets, state }] = yield* Effect.all(
            [checkAndJournal(commit.held, journal, lines), prepare(commit, temporaries, writes, change)],
            { concurrency: 2 }
          ).pipe(Effect.onError(() => journal.undo))
          yield* swap(commit, temporaries, journal, targets)
          if (state !== undefined) yield* commit.stateWritten(state)
        }),
      (temporaries, exit) => cleanUp(commit, temporaries, exit)
    )
  ).pipe(
    Effect.catchTag("StorageError", (error) =>
      error.reason._tag === "OutsideRoot"
        ? Effect.fail(error)
        : Effect.flatMap(
            Effect.forEach(writes, (write) => Effect.result(Paths.resolve(commit.looker, commit.real, write.file))),
            (checks) => {
              const link = checks.find(
                (check) => Result.isFailure(check) && check.failure.reason._tag === "OutsideRoot"
              )
              return Effect.fail(link !== undefined && Result.isFailure(link) ? link.failure : error)
            }
          )
    )
  )
})
