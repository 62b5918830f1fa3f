/**
 * Reading a scope of the files backend: its folder now (its own, or the earlier naming's while only that exists), its
 * MEMORY.md and topics, each read whole or only as far as is shown (`within`), a file kept parsed while its stamp says
 * it is unchanged (`fileCache.ts`), a topic that cannot be read left out with why.
 */
import { MemoryFile, type MemoryScope, NotAFolder, ReadFailed, type StorageError, Text } from "@mneme/core"
import { Clock, Effect, type FileSystem, Option, type Path, Result, Schema } from "effect"
import {
  missingMemory as missingMemoryAt,
  type ReadOptions,
  type StoredFile,
  type StoredScope,
  type Unreadable
} from "../MemoryRoot.ts"
import { RootFiles } from "../RootFiles.ts"
import * as FileCache from "./fileCache.ts"
import * as FileHead from "./fileHead.ts"
import { decodeText, orMissing, readFailed, storageError } from "./files.ts"
import * as Paths from "./paths.ts"

/** The id record a hashed folder keeps (`agent.json`). */
export const IdRecord = Schema.fromJsonString(Schema.Struct({ version: Schema.Number, agentId: Schema.String }))
const decodeIdRecord = Schema.decodeUnknownOption(IdRecord)

/** What reading a scope works with. */
export interface Services {
  readonly fs: FileSystem.FileSystem
  readonly path: Path.Path
  readonly reads: RootFiles["Service"]
  readonly looker: Paths.Looker
  readonly cache: FileCache.FileCache
  readonly hash: Paths.Hash
}

/** Reading the scopes of a root. */
export const make = ({ fs, path, reads, looker, cache, hash }: Services) => {
  const missingMemory = (dir: string): StoredFile => missingMemoryAt(Paths.fileOf(dir, undefined))

  const emptyScope = (scope: MemoryScope.MemoryScope, dir: string): StoredScope => ({
    scope,
    dir,
    files: [missingMemory(dir)],
    unreadable: []
  })

  const storedOf = (file: string, topic: string | undefined, entry: FileCache.Entry): StoredFile => ({
    file,
    topic,
    exists: true,
    parsed: entry.parsed,
    size: entry.chars
  })

  /**
   * The plain file `absolute` (`file` relative to the root) as read now, its stamp `stamp`: from the cache when the
   * stamp says it is unchanged, else read (and parsed again only when its text changed); `undefined` when it is gone.
   */
  const content = Effect.fnUntraced(function* (absolute: string, file: string, stamp: Paths.Stamp, now: number) {
    const fresh = cache.fresh(absolute, stamp)
    if (fresh !== undefined) return fresh
    const bytes = yield* reads.readFile(absolute).pipe(Effect.mapError(readFailed(file)))
    if (bytes === undefined) return undefined
    const text = yield* decodeText(bytes, file).pipe(Effect.tapError(() => Effect.sync(() => cache.drop(absolute))))
    const last = cache.last(absolute)
    const same = last !== undefined && last.text === text
    const entry: FileCache.Entry = {
      ...stamp,
      readAt: now,
      text,
      parsed: same ? last.parsed : MemoryFile.parse(text, cache.names),
      chars: same ? last.chars : Text.length(text)
    }
    cache.set(absolute, entry)
    return entry
  })

  /**
   * The plain file `absolute` (`file` relative to the root) past its size, read only as far as its first entries within
   * `budget` characters: never kept in the cache (a change reads it whole); `undefined` when it is gone.
   */
  const head = Effect.fnUntraced(function* (absolute: string, file: string, topic: string | undefined, budget: number) {
    const read = yield* FileHead.read(absolute, file, budget).pipe(Effect.provideService(RootFiles, reads))
    if (read === undefined) return undefined
    const { lines, entries, links, omitted, size } = read
    const stored: StoredFile = { file, topic, exists: true, parsed: { lines, entries, links }, size, omitted }
    return stored
  })

  /**
   * One file of a scope's folder (already resolved), looked at part by part: `undefined` when it is not there, what is
   * wrong when it is a link or not a plain file.
   */
  const readFile = Effect.fnUntraced(function* (
    real: string,
    folder: string,
    dir: string,
    topic: string | undefined,
    now: number
  ): Effect.fn.Return<StoredFile | undefined, StorageError, Path.Path> {
    const file = Paths.fileOf(dir, topic)
    const { absolute, info } = yield* Paths.resolve(looker, real, file, folder)
    if (info === undefined) return undefined
    if (info.type !== "File") {
      cache.drop(absolute)
      const detail = info.type === "Directory" ? "it is a folder, not a file" : "it is not a plain file"
      return yield* storageError(new ReadFailed({ file, detail }))
    }
    const entry = yield* content(absolute, file, Paths.stampOf(info), now)
    return entry === undefined ? undefined : storedOf(file, topic, entry)
  })

  /**
   * The files of the scope's folder `folder` (MEMORY.md as `undefined`, and topics), each file's own result: all
   * stats at once; a plain file unchanged since it was read comes from the cache, one changed is read, and anything
   * else is looked at again part by part (`readFile`), which says what is wrong with it. The text of each plain file
   * is put into `texts` (by absolute path). With `within`, a file surely past its size is read only as far as its
   * first entries within it (`head`), unless the cache has it whole.
   */
  const readFiles = Effect.fnUntraced(function* (
    real: string,
    folder: string,
    dir: string,
    topics: ReadonlyArray<string | undefined>,
    now: number,
    texts: Map<string, string>,
    within?: ReadOptions["within"]
  ) {
    const absolutes = topics.map((topic) => path.join(folder, Paths.nameOf(topic)))
    const stats = yield* reads.lstatAll(absolutes)
    // The files the cache gives, and nothing there, at once; the rest each in a fiber of its own.
    const results: Array<Result.Result<StoredFile | undefined, StorageError>> = []
    const rest: Array<number> = []
    topics.forEach((topic, i) => {
      const stat = stats[i]!
      const found = Result.isSuccess(stat) ? stat.success : undefined
      if (Result.isSuccess(stat) && found === undefined) results[i] = Result.succeed(undefined)
      else if (found?.type === "File") {
        const fresh = cache.fresh(absolutes[i]!, found)
        if (fresh === undefined) rest.push(i)
        else {
          texts.set(absolutes[i]!, fresh.text)
          results[i] = Result.succeed(storedOf(Paths.fileOf(dir, topic), topic, fresh))
        }
      } else rest.push(i)
    })
    yield* Effect.forEach(
      rest,
      (i) => {
        const topic = topics[i]
        const stat = stats[i]!
        const absolute = absolutes[i]!
        const limit = within === undefined ? undefined : topic === undefined ? within.memory : within.topic
        const read: Effect.Effect<StoredFile | undefined, StorageError, Path.Path> =
          Result.isFailure(stat) || stat.success === undefined || stat.success.type !== "File"
            ? readFile(real, folder, dir, topic, now)
            : limit !== undefined && FileHead.surelyPast(stat.success.size, limit)
              ? head(absolute, Paths.fileOf(dir, topic), topic, limit)
              : Effect.map(content(absolute, Paths.fileOf(dir, topic), stat.success, now), (entry) => {
                  if (entry === undefined) return undefined
                  texts.set(absolute, entry.text)
                  return storedOf(Paths.fileOf(dir, topic), topic, entry)
                })
        return Effect.map(Effect.result(read), (result) => {
          results[i] = result
        })
      },
      { concurrency: "unbounded", discard: true }
    )
    return results
  })

  /**
   * A scope's files as they are in its folder `dir` (MEMORY.md and only the topics among `only`, when given); the names
   * in the folder too (for the leftovers), and the text of each file read into `texts` (by absolute path). Each file is
   * read whole unless `within` says otherwise (never under the writer).
   */
  const readScope = Effect.fnUntraced(function* (
    real: string | undefined,
    scope: MemoryScope.MemoryScope,
    dir: string,
    texts: Map<string, string> = new Map(),
    only?: ReadonlyArray<string>,
    within?: ReadOptions["within"]
  ) {
    if (real === undefined) return { stored: emptyScope(scope, dir), names: [], folder: undefined }
    const folder = yield* Paths.resolve(looker, real, dir)
    if (folder.info === undefined) return { stored: emptyScope(scope, dir), names: [], folder: undefined }
    if (folder.info.type !== "Directory") return yield* storageError(new NotAFolder({ path: dir }))
    const names = yield* reads.readDirectory(folder.absolute).pipe(Effect.mapError(readFailed(dir)))
    const wanted = only === undefined ? undefined : new Set(only)
    const topics = names
      .flatMap((name) => {
        const topic = Paths.topicOfName(name, cache.names)
        return typeof topic === "string" && (wanted === undefined || wanted.has(topic)) ? [topic] : []
      })
      .sort()
    const now = yield* Clock.currentTimeMillis
    const [memory, ...read] = yield* readFiles(real, folder.absolute, dir, [undefined, ...topics], now, texts, within)
    const files: Array<StoredFile> = [(yield* Effect.fromResult(memory!)) ?? missingMemory(dir)]
    const unreadable: Array<Unreadable> = []
    read.forEach((result, i) => {
      if (result._tag === "Success") {
        if (result.success !== undefined) files.push(result.success)
      } else {
        unreadable.push({ file: Paths.fileOf(dir, topics[i]), error: result.failure })
      }
    })
    const stored: StoredScope = { scope, dir, files, unreadable }
    return { stored, names, folder: folder.absolute }
  })

  /** Whether the folder `dir` exists (a link or a file there fails). */
  const folderExists = (real: string, dir: string) =>
    Effect.map(Paths.resolve(looker, real, dir), ({ info }) => info !== undefined)

  /** The agent id a hashed folder records, if any. */
  const recordedId = Effect.fnUntraced(function* (real: string, dir: string) {
    const record = yield* Paths.resolve(looker, real, `${dir}/${Paths.idRecordName}`).pipe(
      Effect.flatMap(({ absolute, info }) =>
        info?.type === "File" ? orMissing(fs.readFileString(absolute)) : Effect.succeed(undefined)
      ),
      Effect.catch(() => Effect.succeed(undefined))
    )
    return record === undefined ? undefined : Option.getOrUndefined(decodeIdRecord(record))?.agentId
  })

  /**
   * The folder a scope is in now: its own, or the earlier naming's while only that exists (and records no other
   * agent).
   */
  const dirNow = Effect.fnUntraced(function* (real: string | undefined, scope: MemoryScope.MemoryScope) {
    const dir = Paths.scopeDir(hash, scope)
    if (real === undefined || scope.kind === "team") return { dir, legacy: undefined }
    const earlier = Paths.legacyAgentDir(hash, scope.agentId)
    if (earlier === undefined || (yield* folderExists(real, dir))) return { dir, legacy: undefined }
    const legacy = `agents/${earlier}`
    if (!(yield* folderExists(real, legacy))) return { dir, legacy: undefined }
    const recorded = yield* recordedId(real, legacy)
    return { dir, legacy: recorded === undefined || recorded === scope.agentId ? legacy : undefined }
  })

  return { missingMemory, readScope, recordedId, dirNow }
}
