/**
 * The files backend of the storage port (`FileRoot.layer`): a memory root as a folder (docs/spec.md 1). See `paths.ts` for
 * where things live and how links are refused, `rootLock.ts` for the single writer, `journal.ts` and `journalFile.ts`
 * for the journal, `scopeRead.ts` for reading a scope, `placement.ts` for putting a file in place, `stateFile.ts` and
 * `stateSeen.ts` for the review state, and `fileCache.ts` for the parsed files kept while unchanged.
 *
 * A commit checks that the lock is still its own and that the journal can be appended before anything is replaced,
 * writes every new file (and the review state, when the commit changes it) to a flushed temporary file, appends all its
 * journal lines in one write, and only then renames the files into place; a failure on the way leaves every file and
 * the state as they were and the journal as long as it was. A file it wrote keeps the parse its writer gave, so reading
 * the same text again parses nothing. A writer killed between the journal's append and the renames leaves lines for a
 * change the files do not hold: the next writer, taking its lock, settles them (`journalSettle.ts`).
 * Leftovers of killed writers (temporary files, stale locks set aside) are removed under the lock once they are
 * provably abandoned: their writer ran on this host and is gone, or they are older than a lease before the lock was
 * taken.
 *
 * Reading looks at files through the platform (their stats, their bytes and the folders' names, at once on Node), and
 * the root's real path is kept while a stat of the root and of that path says it still stands.
 */
import { type MemoryScope, NotAFolder, NotFound, RootUnusable, type StorageError, Text, WriteFailed } from "@mneme/core"
import { Clock, Context, Effect, Exit, FileSystem, Option, Path, Random, Result, Schema } from "effect"
import {
  type Actor,
  type AgentFolder,
  archiveBase,
  type Backend,
  type BackendWriter,
  archiveRecord,
  emptyState,
  type FileWrite,
  type JournalRecord,
  journalLines,
  type ReadOptions,
  type ReviewStateDocument,
  type StateChange,
  type StateKeys,
  type StoredScope
} from "../MemoryRoot.ts"
import { Platform, type Stat, type StatResult } from "../Platform.ts"
import { make as withUnitOfWork } from "../StorageBackend.ts"
import * as FileCache from "./fileCache.ts"
import {
  describe,
  leftoverOwner,
  leftoverSuffix,
  orMissing,
  readFailed,
  sameHost,
  storageError,
  writeAtomic,
  writeFailed
} from "./files.ts"
import * as Journal from "./journal.ts"
import * as JournalFile from "./journalFile.ts"
import * as JournalSettle from "./journalSettle.ts"
import * as Paths from "./paths.ts"
import * as Placement from "./placement.ts"
import * as RootLock from "./rootLock.ts"
import * as ScopeRead from "./scopeRead.ts"
import * as StateFile from "./stateFile.ts"
import * as StateSeen from "./stateSeen.ts"

/** Options of the files backend: the root folder, and the writer lock's wait and lease. */
export interface Options {
  readonly root: string
  readonly lock?: RootLock.Options | undefined
}

const encodeIdRecord = Schema.encodeSync(ScopeRead.IdRecord)

/** The storage port over the folder `options.root`. */
export const make = Effect.fnUntraced(function* (options: Options) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const platform = yield* Platform
  const services = Context.make(FileSystem.FileSystem, fs).pipe(Context.add(Path.Path, path))
  const run = <A, E>(self: Effect.Effect<A, E, FileSystem.FileSystem | Path.Path>) =>
    Effect.provideContext(self, services)
  const root = path.resolve(options.root)
  const lock = yield* RootLock.make(root, platform, options.lock)
  const cache = FileCache.make()
  const hash = platform.sha256
  const self = { pid: platform.processId, host: platform.hostName }
  const unique = Effect.map(Random.nextIntBetween(0, 2 ** 48), (n) => n.toString(36))
  const temporarySuffix = Effect.map(unique, (id) => leftoverSuffix(self, id, "tmp"))
  const removedSuffix = Effect.map(unique, (id) => leftoverSuffix(self, id, "removed"))

  const looker: Paths.Looker = { fs, lstatAll: platform.lstatAll }
  const filesOf = (real: string): JournalSettle.Files => ({ real, looker, readFile: platform.readFile })

  /**
   * The root's real path as last resolved, with the stats then of the root and of its real path: while a stat of both
   * gives the same (the same link, or the same folder, at each), the real path stands without resolving it again.
   */
  let rootSeen: { readonly real: string; readonly root: Stat; readonly folder: Stat } | undefined

  /** Whether `now` is what `then` was: the same kind and inode, and for a link the same size and change time. */
  const sameThing = (then: Stat, now: StatResult | undefined) =>
    now !== undefined &&
    Result.isSuccess(now) &&
    now.success !== undefined &&
    then.ino !== undefined &&
    now.success.type === then.type &&
    now.success.ino === then.ino &&
    (then.type !== "SymbolicLink" || (now.success.size === then.size && now.success.mtime === then.mtime))

  /** The root's real path, `undefined` while it does not exist; a root that is not a folder fails. */
  const rootNow = Effect.gen(function* () {
    const seen = rootSeen
    if (seen !== undefined) {
      // A root that is its own real path is looked at once.
      const [rootStat, folderStat = rootStat] = yield* platform.lstatAll(
        seen.real === root ? [root] : [root, seen.real]
      )
      if (sameThing(seen.root, rootStat) && sameThing(seen.folder, folderStat)) return seen.real
      rootSeen = undefined
    }
    const real = yield* orMissing(fs.realPath(root)).pipe(
      Effect.mapError((error) => storageError(new RootUnusable({ root, detail: describe(error) })))
    )
    if (real === undefined) return undefined
    const info = yield* fs.stat(real).pipe(Effect.mapError(readFailed(root)))
    if (info.type !== "Directory") return yield* storageError(new NotAFolder({ path: root }))
    const [rootStat, folderStat] = yield* platform.lstatAll([root, real])
    if (
      rootStat !== undefined &&
      folderStat !== undefined &&
      Result.isSuccess(rootStat) &&
      Result.isSuccess(folderStat) &&
      rootStat.success !== undefined &&
      folderStat.success?.type === "Directory" &&
      folderStat.success.ino === Option.getOrUndefined(info.ino)
    ) {
      rootSeen = { real, root: rootStat.success, folder: folderStat.success }
    }
    return real
  })

  // -------------------------------------------------------------------------------------------------------------------
  // Reading

  const { readScope, recordedId, dirNow } = ScopeRead.make({ fs, path, platform, looker, cache, hash })

  const read = (scope: MemoryScope.MemoryScope, options?: ReadOptions): Effect.Effect<StoredScope, StorageError> =>
    run(
      Effect.gen(function* () {
        const real = yield* rootNow
        const { dir, legacy } = yield* dirNow(real, scope)
        return (yield* readScope(real, scope, legacy ?? dir, undefined, undefined, options?.within)).stored
      })
    ).pipe(Effect.withSpan("MemoryRoot.read"))

  const { stateWritten, foundNow, stateHeld, pickedNow, stateChanged } = StateSeen.make({ fs, path, platform, looker })

  // -------------------------------------------------------------------------------------------------------------------
  // Writing

  /** Removes the leftovers among `names` (in `folder`) that are provably abandoned. */
  const cleanLeftovers = Effect.fnUntraced(function* (
    folder: string,
    names: ReadonlyArray<string>,
    held: RootLock.Held
  ) {
    for (const name of names) {
      const owner = leftoverOwner(name)
      if (owner === undefined || !name.startsWith(".")) continue
      const absolute = path.join(folder, name)
      const gone = sameHost(self, owner.host)
        ? owner.pid === self.pid || !(yield* platform.isAlive(owner.pid))
        : yield* Effect.map(Effect.all([Effect.option(fs.lstat(absolute)), held.takenAt]), ([info, takenAt]) =>
            Option.match(
              Option.flatMap(info, (info) => info.mtime),
              { onNone: () => false, onSome: (mtime) => mtime.getTime() < takenAt - lock.lease }
            )
          )
      if (gone) yield* Effect.ignore(fs.remove(absolute, { force: true }))
    }
  })

  /** The id record of an agent's hashed folder, written when missing; gives its path when it was written. */
  const recordId = Effect.fnUntraced(function* (real: string, dir: string, agentId: string) {
    const record = yield* Paths.resolve(looker, real, `${dir}/${Paths.idRecordName}`)
    if (record.info !== undefined) return undefined
    const file = `${dir}/${Paths.idRecordName}`
    const content = encodeIdRecord({ version: 1, agentId }) + "\n"
    yield* Placement.write({ looker, real, file, absolute: record.absolute }, content, yield* temporarySuffix)
    return record.absolute
  })

  /**
   * What a change made before it was made for good (folders, id records), so a refused change can take it away and
   * leave the root as it was: the folders it created, outermost first, and the files it wrote in them or elsewhere.
   */
  interface Made {
    readonly folders: Array<string>
    readonly files: Array<string>
  }

  const nothingMade = (): Made => ({ folders: [], files: [] })

  /**
   * Makes the folder `dir` (relative to the root, its existing parts already checked by `Paths.resolve`) where
   * missing, one folder at a time, adding each folder it creates to `made` as soon as it is there.
   */
  const makeFolders = Effect.fnUntraced(function* (real: string, dir: string, made: Made) {
    let at = real
    for (const part of dir.split("/")) {
      at = path.join(at, part)
      const info = yield* orMissing(fs.lstat(at)).pipe(Effect.mapError(readFailed(dir)))
      if (info !== undefined) continue
      const created = yield* fs.makeDirectory(at).pipe(
        Effect.as(true),
        Effect.catchReason("PlatformError", "AlreadyExists", () => Effect.succeed(false)),
        Effect.mapError(writeFailed(dir))
      )
      if (created) made.folders.push(at)
    }
  })

  /**
   * Takes away what a refused change made (best effort): the files it wrote, then the folders it created, innermost
   * first and only while empty, so nothing that was there before, or that it did not put there, is removed.
   */
  const unmake = (made: Made) =>
    Effect.gen(function* () {
      for (const file of made.files.toReversed()) yield* Effect.ignore(fs.remove(file, { force: true }))
      for (const folder of made.folders.toReversed()) {
        const names = yield* Effect.option(fs.readDirectory(folder))
        if (Option.isSome(names) && names.value.length === 0) {
          yield* Effect.ignore(fs.remove(folder, { recursive: true }))
        }
      }
      made.files.length = 0
      made.folders.length = 0
    })

  /** Moves an agent's folder of the earlier naming to its own (under the lock), recording its id. */
  const moveLegacy = Effect.fnUntraced(function* (real: string, legacy: string, dir: string, agentId: string) {
    const from = yield* Paths.resolve(looker, real, legacy)
    const to = yield* Paths.resolve(looker, real, dir)
    yield* fs.rename(from.absolute, to.absolute).pipe(Effect.mapError(writeFailed(legacy)))
    yield* recordId(real, dir, agentId)
    yield* Effect.logInfo(`mneme: moved the memory folder ${legacy} to ${dir}`)
  })

  /**
   * What a writer has seen under its hold: the agent ids of the folders it read, those folders (relative → absolute:
   * they exist, and are no links), and the text of each file it read (by absolute path).
   */
  interface Seen {
    readonly ids: Map<string, string>
    readonly folders: Map<string, string>
    readonly texts: Map<string, string>
  }

  /**
   * A file a commit replaces or removes: where it is (and its inode then), what it held (text or bytes), and its new
   * text written aside.
   */
  interface Target {
    readonly write: FileWrite
    readonly index: number
    readonly absolute: string
    readonly place: Placement.Place
    readonly ino: bigint | undefined
    readonly old: string | Uint8Array | undefined
    readonly temporary: Placement.Aside | undefined
  }

  /**
   * Gives every target back what it held (best effort: this runs when a commit fails midway), never through a link
   * swapped in meanwhile.
   */
  const restore = (targets: ReadonlyArray<Target>) =>
    Effect.forEach(
      targets,
      (target) =>
        Effect.ignore(
          target.old === undefined
            ? Effect.flatMap(removedSuffix, (suffix) => Placement.remove(target.place, target.temporary?.ino, suffix))
            : Effect.flatMap(temporarySuffix, (suffix) => Placement.write(target.place, target.old!, suffix))
        ),
      { discard: true }
    )

  const commit = Effect.fnUntraced(function* (
    real: string,
    held: RootLock.Held,
    seen: Seen,
    writes: ReadonlyArray<FileWrite>,
    records: ReadonlyArray<JournalRecord>,
    change: StateChange | undefined
  ) {
    if (writes.length === 0 && records.length === 0 && change === undefined) return
    const lines = yield* journalLines(records, yield* Clock.currentTimeMillis)
    yield* JournalFile.withJournal(looker, real, (journal) =>
      Effect.gen(function* () {
        /** The state's change, once read (under the lock, with the files). */
        let state: StateSeen.StateWrite | undefined = undefined
        const targets: Array<Target> = []
        const written: Array<Target> = []
        const made = nothingMade()
        // The folders the new files need that this writer has not read, and their id records, one folder at a time;
        // then every file at once: what it holds now, read for a failure to give back, and its new text written aside and
        // flushed.
        const needed = writes.flatMap((write) => (write.content === undefined ? [] : [path.dirname(write.file)]))
        const makeNeeded = Effect.forEach(
          [...new Set(needed)],
          (folder) =>
            Effect.gen(function* () {
              if (!seen.folders.has(folder)) yield* makeFolders(real, folder, made)
              const agentId = seen.ids.get(folder)
              if (agentId !== undefined && Paths.recordsId(agentId)) {
                const recorded = yield* recordId(real, folder, agentId)
                if (recorded !== undefined) made.files.push(recorded)
              }
            }),
          { discard: true }
        )
        const target = Effect.fnUntraced(function* (write: FileWrite, index: number) {
          const { absolute, info } = yield* Paths.resolve(
            looker,
            real,
            write.file,
            seen.folders.get(path.dirname(write.file))
          )
          if (info !== undefined && info.type !== "File") {
            return yield* storageError(new WriteFailed({ file: write.file, detail: "it is a folder, not a file" }))
          }
          // What this writer read of the file is what the change replaces (a change made on disk since would be
          // replaced as well); a file it did not read is read now.
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
              : yield* Placement.writeAside(place, write.content, yield* temporarySuffix)
          targets.push({ write, index, absolute, place, ino: info?.ino, old, temporary })
        })
        // The state file, after the memory files: its new text written aside as theirs are, where it changes.
        const stateTarget = Effect.gen(function* () {
          if (change === undefined) return
          const changed = yield* stateChanged(real, change)
          state = changed
          if (changed === undefined) return
          const write = { file: StateFile.stateName, content: changed.text }
          const place: Placement.Place = { looker, real, file: write.file, absolute: changed.absolute }
          const temporary = yield* Placement.writeAside(place, changed.text, yield* temporarySuffix)
          const { absolute, old } = changed
          targets.push({ write, index: writes.length, absolute, place, ino: undefined, old, temporary })
        })
        const prepare = Effect.andThen(
          makeNeeded,
          Effect.all([Effect.forEach(writes, target, { concurrency: "unbounded", discard: true }), stateTarget], {
            concurrency: "unbounded",
            discard: true
          })
        ).pipe(Effect.andThen(Effect.sync(() => targets.sort((a, b) => a.index - b.index))))
        const removeTemporaries = Effect.forEach(
          targets,
          (target) =>
            target.temporary === undefined || written.includes(target)
              ? Effect.void
              : Effect.ignore(fs.remove(target.temporary.temporary, { force: true })),
          { discard: true }
        )
        // Every file put in place at once, each rename or removal let finish (what landed is known, to give back),
        // then the first failure in the order given fails the commit. Each is checked to stay inside the root.
        const apply = Effect.forEach(
          targets,
          (target) =>
            (target.temporary === undefined
              ? target.old === undefined
                ? Effect.void
                : Effect.flatMap(removedSuffix, (suffix) => Placement.remove(target.place, target.ino, suffix))
              : Placement.put(target.place, target.temporary)
            ).pipe(Effect.andThen(Effect.sync(() => written.push(target))), Effect.result),
          { concurrency: "unbounded" }
        ).pipe(
          Effect.flatMap((results) => {
            const failed = results.find(Result.isFailure)
            return failed === undefined ? Effect.void : Effect.fail(failed.failure)
          })
        )
        yield* Effect.gen(function* () {
          // The files are written aside while the lock is checked and the journal appended: nothing is in place
          // until every part is, and nothing is appended unless the lock is still this writer's.
          // The journal is opened first: its appending, and the flush that ends it, wait behind no temporary file.
          yield* Effect.all(
            [
              lines.length === 0
                ? held.check
                : Effect.andThen(
                    Effect.all([held.check, journal.open], { concurrency: 2 }),
                    Effect.flatMap(Journal.encode(lines), journal.append)
                  ),
              prepare
            ],
            {
              concurrency: 2,
              discard: true
            }
          ).pipe(Effect.onError(() => journal.undo))
          yield* apply.pipe(Effect.onError(() => Effect.andThen(restore(written), journal.undo)))
          const landed = state
          if (landed !== undefined) stateWritten(landed)
        }).pipe(
          Effect.ensuring(removeTemporaries),
          // A refused change takes away the folders and id records it made for its files (after their temporaries).
          Effect.onError(() => unmake(made)),
          // A file written keeps the parse its writer gave (its text is read again, and parsed only if it changed).
          Effect.onExit((exit) =>
            Effect.sync(() =>
              targets.forEach(({ absolute, write: { content, parsed } }) => {
                if (Exit.isSuccess(exit) && content !== undefined && parsed !== undefined) {
                  cache.set(absolute, {
                    ...FileCache.noStamp,
                    readAt: 0,
                    text: content,
                    parsed,
                    chars: Text.length(content)
                  })
                } else cache.drop(absolute)
              })
            )
          )
        )
      })
    ).pipe(
      // A commit that failed while a link stood on the path of one of its files failed because of that link (its
      // steps run at once, so the step that met the link first may have failed for want of what the link hid): it
      // is refused as every write through a link is, naming the link.
      Effect.catchTag("StorageError", (error) =>
        error.reason._tag === "OutsideRoot"
          ? Effect.fail(error)
          : Effect.flatMap(
              Effect.forEach(writes, (write) => Effect.result(Paths.resolve(looker, real, write.file))),
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

  const writerRead = Effect.fnUntraced(function* (
    real: string,
    held: RootLock.Held,
    seen: Seen,
    scope: MemoryScope.MemoryScope,
    topics: ReadonlyArray<string> | undefined
  ) {
    const { dir, legacy } = yield* dirNow(real, scope)
    if (legacy !== undefined && scope.kind === "agent") yield* moveLegacy(real, legacy, dir, scope.agentId)
    if (scope.kind === "agent") seen.ids.set(dir, scope.agentId)
    const { stored, names, folder } = yield* readScope(real, scope, dir, seen.texts, topics)
    if (folder !== undefined) {
      // Looked at again once read: a link swapped in for a folder meanwhile fails the read, so nothing read through it
      // is changed or quoted.
      yield* Paths.resolve(looker, real, dir)
      seen.folders.set(dir, folder)
      yield* cleanLeftovers(folder, names, held)
    }
    return stored
  })

  /** Runs `body` under the lock with the root's real path (made by the lock), after cleaning the root's leftovers. */
  const hold = <A, E, R>(body: (real: string, held: RootLock.Held) => Effect.Effect<A, E, R>) =>
    lock.hold((held) =>
      Effect.gen(function* () {
        const real = yield* run(rootNow)
        if (real === undefined) return yield* storageError(new RootUnusable({ root, detail: "its folder is gone" }))
        const names = yield* platform.readDirectory(real).pipe(Effect.mapError(readFailed(".")))
        yield* run(cleanLeftovers(real, names, held))
        if (held.tookOver) yield* run(JournalSettle.settle(filesOf(real)))
        return yield* Effect.uninterruptible(body(real, held))
      })
    )

  /** Rewrites the journal with `texts` erased from its history (`Journal.erase`), atomically, under the lock. */
  const erase = Effect.fnUntraced(function* (real: string, held: RootLock.Held, texts: ReadonlyArray<string>) {
    const { absolute, info } = yield* Paths.resolve(looker, real, Journal.journalName)
    if (info === undefined) return 0
    if (info.type !== "File") {
      return yield* storageError(new WriteFailed({ file: Journal.journalName, detail: "it is not a plain file" }))
    }
    const text =
      (yield* orMissing(fs.readFileString(absolute)).pipe(Effect.mapError(readFailed(Journal.journalName)))) ?? ""
    const erased = yield* Journal.erase(text, texts)
    if (erased.count === 0) return 0
    yield* writeAtomic(absolute, Journal.journalName, erased.text, yield* temporarySuffix, held.check)
    return erased.count
  })

  const write = <A, E, R>(
    body: (writer: BackendWriter) => Effect.Effect<A, E, R>
  ): Effect.Effect<A, E | StorageError, R> =>
    hold((real, held) => {
      const seen: Seen = { ids: new Map(), folders: new Map(), texts: new Map() }
      return body({
        read: (scope, topics) => run(writerRead(real, held, seen, scope, topics)),
        commit: (writes, records, state) => run(commit(real, held, seen, writes, records, state)),
        erase: (texts) => run(erase(real, held, texts))
      })
    }).pipe(Effect.withSpan("MemoryRoot.write"))

  // -------------------------------------------------------------------------------------------------------------------
  // The journal, the agents, archiving

  const journal = (options?: {
    readonly limit?: number | undefined
    readonly scope?: MemoryScope.MemoryScope | undefined
  }) =>
    run(
      Effect.gen(function* () {
        const real = yield* rootNow
        if (real === undefined) return []
        const { absolute, info } = yield* Paths.resolve(looker, real, Journal.journalName)
        if (info === undefined) return []
        const text =
          (yield* orMissing(fs.readFileString(absolute)).pipe(Effect.mapError(readFailed(Journal.journalName)))) ?? ""
        const decoded = Journal.decode(text)
        for (const warning of Journal.warnings(decoded)) yield* Effect.logWarning(warning)
        // While the lock is taken, the last change may be half made: its lines show where the files hold them.
        let lines = (yield* JournalSettle.lockTaken(filesOf(real), path.join(real, RootLock.lockName)))
          ? yield* JournalSettle.shown(filesOf(real), text, decoded.lines)
          : decoded.lines
        if (options?.scope !== undefined) {
          const dir = Paths.scopeDir(hash, options.scope)
          const earlier = options.scope.kind === "agent" ? Paths.legacyAgentDir(hash, options.scope.agentId) : undefined
          const legacy = earlier === undefined ? undefined : `agents/${earlier}`
          lines = lines.flatMap((line) =>
            line.scope === dir
              ? [line]
              : line.scope === legacy
                ? [{ ...line, scope: dir, file: dir + line.file.slice(legacy.length) }]
                : []
          )
        }
        const limit = options?.limit
        return limit === undefined ? lines : lines.slice(Math.max(0, lines.length - Math.max(0, limit)))
      })
    ).pipe(Effect.withSpan("MemoryRoot.journal"))

  const agents = run(
    Effect.gen(function* () {
      const real = yield* rootNow
      if (real === undefined) return []
      const folder = yield* Paths.resolve(looker, real, "agents")
      if (folder.info === undefined) return []
      if (folder.info.type !== "Directory") return yield* storageError(new NotAFolder({ path: "agents" }))
      const names = (yield* fs.readDirectory(folder.absolute).pipe(Effect.mapError(readFailed("agents")))).toSorted()
      const found: Array<AgentFolder> = []
      for (const name of names) {
        const dir = `agents/${name}`
        const info = yield* orMissing(fs.lstat(path.join(folder.absolute, name))).pipe(Effect.mapError(readFailed(dir)))
        if (info?.type !== "Directory") continue
        const recorded = yield* recordedId(real, dir)
        const agentId =
          recorded !== undefined && Paths.agentDir(hash, recorded) === name ? recorded : Paths.agentOfName(name)
        found.push({ agentId, dir })
      }
      return found
    })
  ).pipe(Effect.withSpan("MemoryRoot.agents"))

  const archive = (agentId: string, actor: Actor) =>
    hold((real, held) =>
      run(
        Effect.gen(function* () {
          const scope: MemoryScope.MemoryScope = { kind: "agent", agentId }
          const { dir, legacy } = yield* dirNow(real, scope)
          const from = legacy ?? dir
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
          // The archive folder is made only once the journal is open, and taken away again if the archive is refused.
          const made = nothingMade()
          yield* held.check
          yield* JournalFile.withJournal(looker, real, (journal) =>
            Effect.gen(function* () {
              yield* makeFolders(real, "archive", made)
              yield* journal.append(yield* Journal.encode(lines))
              yield* fs.rename(located.absolute, target.absolute).pipe(
                Effect.mapError(writeFailed(from)),
                Effect.onError(() => journal.undo)
              )
            }).pipe(Effect.onError(() => unmake(made)))
          )
          return to
        })
      )
    ).pipe(Effect.withSpan("MemoryRoot.archive"))

  // -------------------------------------------------------------------------------------------------------------------
  // The review state

  const readState: Effect.Effect<ReviewStateDocument, StorageError> = run(
    Effect.gen(function* () {
      const real = yield* rootNow
      return real === undefined ? undefined : yield* foundNow(real)
    })
  ).pipe(
    Effect.flatMap((now) =>
      now?.found === undefined
        ? Effect.succeed(emptyState)
        : now.found._tag === "State"
          ? Effect.succeed(now.found.state)
          : hold((real) => run(Effect.map(stateHeld(real), ({ state }) => state)))
    ),
    Effect.withSpan("MemoryRoot.readState")
  )

  const readStateOf = (keys: StateKeys): Effect.Effect<ReviewStateDocument, StorageError> =>
    run(
      Effect.gen(function* () {
        const real = yield* rootNow
        return real === undefined ? undefined : yield* pickedNow(real, keys)
      })
    ).pipe(
      Effect.flatMap((picked) =>
        picked !== undefined
          ? Effect.succeed(picked.state)
          : Effect.map(readState, (state) => StateFile.only(state, keys))
      ),
      Effect.withSpan("MemoryRoot.readStateOf")
    )

  const updateState = (change: StateChange) =>
    hold((real, held) =>
      run(
        Effect.gen(function* () {
          const changed = yield* stateChanged(real, change)
          if (changed === undefined) return
          yield* writeAtomic(changed.absolute, StateFile.stateName, changed.text, yield* temporarySuffix, held.check)
          stateWritten(changed)
        })
      )
    ).pipe(Effect.withSpan("MemoryRoot.updateState"))

  return withUnitOfWork({
    root,
    read,
    write,
    journal,
    agents,
    archive,
    readState,
    readStateOf,
    updateState
  } satisfies Backend)
})
