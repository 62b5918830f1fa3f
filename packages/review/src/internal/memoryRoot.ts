/**
 * The files backend of the storage port (`FileRoot.layer`): a memory root as a folder (docs/spec.md 1), wired from
 * small modules, each given what it works with when the backend is made: `rootSeen.ts` for the root's real path
 * (resolved once, kept while it stands), `scopeRead.ts` for reading a scope, `stateSeen.ts` and `stateFile.ts` for the
 * review state, `rootLock.ts` for the single writer, `fileCommit.ts` for a commit in phases (prepare, check and
 * journal, swap, clean up), `journal.ts`, `journalFile.ts` and `journalSettle.ts` for the journal, `rootFolders.ts`
 * for the folders a change makes and the leftovers of killed writers, `placement.ts` for putting a file in place,
 * `paths.ts` for where things live and how links are refused, and `fileCache.ts` for the parsed files kept while
 * unchanged. What must be remembered between calls (the root seen, the state file last read, the parsed files) is
 * held by those modules in values made here, one set per backend.
 */
import { type MemoryScope, NotAFolder, RootUnusable, type StorageError, WriteFailed } from "@mneme/core"
import { Context, Effect, FileSystem, Path, Random, Ref } from "effect"
import {
  type Actor,
  type AgentFolder,
  type Backend,
  type BackendWriter,
  emptyState,
  type ReadOptions,
  type ReviewStateDocument,
  type StateChange,
  type StateKeys,
  type StoredScope
} from "../MemoryRoot.ts"
import { Platform } from "../Platform.ts"
import { RootFiles } from "../RootFiles.ts"
import { hash } from "../RootLayout.ts"
import { make as withUnitOfWork } from "../StorageBackend.ts"
import * as FileArchive from "./fileArchive.ts"
import * as FileCache from "./fileCache.ts"
import * as FileCommit from "./fileCommit.ts"
import { leftoverSuffix, orMissing, readFailed, storageError, writeAtomic, writeFailed } from "./files.ts"
import * as Journal from "./journal.ts"
import * as JournalRead from "./journalRead.ts"
import * as JournalSettle from "./journalSettle.ts"
import * as Paths from "./paths.ts"
import * as RootFolders from "./rootFolders.ts"
import * as RootLock from "./rootLock.ts"
import * as RootSeen from "./rootSeen.ts"
import * as ScopeRead from "./scopeRead.ts"
import * as StateFile from "./stateFile.ts"
import * as StateSeen from "./stateSeen.ts"

/** Options of the files backend: the root folder, and the writer lock's wait and lease. */
export interface Options {
  readonly root: string
  readonly lock?: RootLock.Options | undefined
}

/** The storage port over the folder `options.root`. */
export const make = Effect.fnUntraced(function* (options: Options) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const platform = yield* Platform
  const reads = yield* RootFiles
  const services = Context.make(FileSystem.FileSystem, fs).pipe(Context.add(Path.Path, path))
  const run = <A, E>(self: Effect.Effect<A, E, FileSystem.FileSystem | Path.Path>) =>
    Effect.provideContext(self, services)
  const root = path.resolve(options.root)
  const lock = yield* RootLock.make(root, platform, reads, options.lock)
  const rootNow = yield* RootSeen.make(root, fs, reads)
  const cache = FileCache.make()
  const self = { pid: platform.processId, host: platform.hostName }
  const unique = Effect.map(Random.nextIntBetween(0, 2 ** 48), (n) => n.toString(36))
  const looker: Paths.Looker = { fs, lstatAll: reads.lstatAll }
  const writing: RootFolders.Writing = {
    fs,
    path,
    looker,
    temporarySuffix: Effect.map(unique, (id) => leftoverSuffix(self, id, "tmp")),
    removedSuffix: Effect.map(unique, (id) => leftoverSuffix(self, id, "removed"))
  }
  const filesOf = (real: string): JournalSettle.Files => ({ real, looker, readFile: reads.readFile })
  const { readScope, recordedId, dirNow } = ScopeRead.make({ fs, path, reads, looker, cache, hash })
  const { stateWritten, foundNow, stateHeld, pickedNow, stateChanged } = yield* StateSeen.make({
    fs,
    path,
    reads,
    looker
  })
  const commitServices: FileCommit.Services = { ...writing, cache, stateChanged, stateWritten }
  const cleanLeftovers = (folder: string, names: ReadonlyArray<string>, held: RootLock.Held) =>
    RootFolders.cleanLeftovers(writing, platform, lock.lease, folder, names, held)

  // -------------------------------------------------------------------------------------------------------------------
  // Reading

  const read = (scope: MemoryScope.MemoryScope, options?: ReadOptions): Effect.Effect<StoredScope, StorageError> =>
    run(
      Effect.gen(function* () {
        const real = yield* rootNow
        const { dir, legacy } = yield* dirNow(real, scope)
        return (yield* readScope(real, scope, legacy ?? dir, undefined, undefined, options?.within)).stored
      })
    ).pipe(Effect.withSpan("MemoryRoot.read"))

  // -------------------------------------------------------------------------------------------------------------------
  // Writing

  /** Moves an agent's folder of the earlier naming to its own (under the lock), recording its id. */
  const moveLegacy = Effect.fnUntraced(function* (real: string, legacy: string, dir: string, agentId: string) {
    const from = yield* Paths.resolve(looker, real, legacy)
    const to = yield* Paths.resolve(looker, real, dir)
    yield* fs.rename(from.absolute, to.absolute).pipe(Effect.mapError(writeFailed(legacy)))
    yield* RootFolders.recordId(writing, real, dir, agentId)
    yield* Effect.logInfo(`mneme: moved the memory folder ${legacy} to ${dir}`)
  })

  /** A scope read by the writer, what it saw of it added to `seen`. */
  const writerRead = Effect.fnUntraced(function* (
    real: string,
    held: RootLock.Held,
    seen: Ref.Ref<FileCommit.Seen>,
    scope: MemoryScope.MemoryScope,
    topics: ReadonlyArray<string> | undefined
  ) {
    const { dir, legacy } = yield* dirNow(real, scope)
    if (legacy !== undefined && scope.kind === "agent") yield* moveLegacy(real, legacy, dir, scope.agentId)
    if (scope.kind === "agent") {
      const agentId = scope.agentId
      yield* Ref.update(seen, (was) => ({ ...was, ids: new Map(was.ids).set(dir, agentId) }))
    }
    const texts = new Map<string, string>()
    const { stored, names, folder } = yield* readScope(real, scope, dir, texts, topics)
    yield* Ref.update(seen, (was) => ({ ...was, texts: new Map([...was.texts, ...texts]) }))
    if (folder !== undefined) {
      // Looked at again once read: a link swapped in for a folder meanwhile fails the read, so nothing read through it
      // is changed or quoted.
      yield* Paths.resolve(looker, real, dir)
      yield* Ref.update(seen, (was) => ({ ...was, folders: new Map(was.folders).set(dir, folder) }))
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
        const names = yield* reads.readDirectory(real).pipe(Effect.mapError(readFailed(".")))
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
    yield* writeAtomic(absolute, Journal.journalName, erased.text, yield* writing.temporarySuffix, held.check)
    return erased.count
  })

  const write = <A, E, R>(
    body: (writer: BackendWriter) => Effect.Effect<A, E, R>
  ): Effect.Effect<A, E | StorageError, R> =>
    hold((real, held) =>
      Effect.flatMap(Ref.make<FileCommit.Seen>({ ids: new Map(), folders: new Map(), texts: new Map() }), (seen) =>
        body({
          read: (scope, topics) => run(writerRead(real, held, seen, scope, topics)),
          commit: (writes, records, state) =>
            Effect.flatMap(Ref.get(seen), (seen) =>
              run(FileCommit.run({ ...commitServices, real, held, seen }, writes, records, state))
            ),
          erase: (texts) => run(erase(real, held, texts))
        })
      )
    ).pipe(Effect.withSpan("MemoryRoot.write"))

  // -------------------------------------------------------------------------------------------------------------------
  // The journal, the agents, archiving

  const journal = (options?: JournalRead.Options) =>
    run(
      Effect.flatMap(rootNow, (real) =>
        real === undefined ? Effect.succeed([]) : JournalRead.read(filesOf(real), hash, options)
      )
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
          return yield* FileArchive.archive(writing, real, held, legacy ?? dir, dir, actor)
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
          yield* writeAtomic(
            changed.absolute,
            StateFile.stateName,
            changed.text,
            yield* writing.temporarySuffix,
            held.check
          )
          yield* stateWritten(changed)
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
