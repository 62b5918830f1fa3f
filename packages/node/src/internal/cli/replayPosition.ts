/**
 * Where `mneme review --model replay:FILE` keeps a conversation's replay position in a memory folder, so that a
 * transcript reviewed in several runs goes on from the recorded answer where its last run stopped, instead of starting
 * the file again: one small record per conversation, `replay/<hash>.json` under the root (the first 16 hex digits of
 * the SHA-256 of the conversation id), holding the conversation, the answers file (absolute) and the index of its next
 * answer. It lives and goes with the memory: a new memory folder starts every recording from its first answer, and so
 * does a conversation replayed from another file. It is written atomically (a flushed temporary file renamed into
 * place), one file per conversation, and never read or written through a symbolic link. A memory in Postgres has no
 * folder: its records are kept beside the answers file, in `FILE.positions/<hash>/replay/`, the hash that of the schema
 * as shown (so another database or schema starts from the first answer too).
 */
import { NotAFolder, OutsideRoot, ReadFailed, StorageError, WriteFailed } from "@mneme/core"
import { Platform, RootFiles, RootLayout } from "@mneme/review"
import { Effect, FileSystem, Path, type PlatformError, Result, Schema } from "effect"
import type * as MemoryLocation from "./memoryLocation.ts"

/**
 * The folder whose `replay/` keeps the positions of the answers file `answers` (absolute) for the memory at `location`:
 * the memory folder itself, or for a Postgres memory one beside the answers file named by the schema shown.
 */
export const rootFor = (location: MemoryLocation.Location, answers: string, path: Path.Path): string =>
  location._tag === "Folder"
    ? location.path
    : path.join(`${answers}.positions`, RootLayout.hash(location.shown).slice(0, 16))

/** The folder of the records, relative to the memory root. */
export const folder = "replay"

/** A conversation's replay position. */
const Position = Schema.Struct({
  version: Schema.Literal(1),
  conversation: Schema.String,
  answers: Schema.String,
  next: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
})

const decodePosition = Schema.decodeUnknownResult(Schema.fromJsonString(Position))

/** Where the record of `conversationId` is under `root`: absolute, and relative to the root for messages. */
const recordOf = Effect.fnUntraced(function* (root: string, conversationId: string) {
  const path = yield* Path.Path
  const name = `${folder}/${RootLayout.hash(conversationId).slice(0, 16)}.json`
  return { name, absolute: path.join(path.resolve(root), name), dir: path.join(path.resolve(root), folder) }
})

/** What is at `absolute` (a link not followed), `undefined` when nothing is. */
const kindOf = (absolute: string, name: string) =>
  Effect.flatMap(RootFiles.RootFiles, (reads) => reads.lstatAll([absolute])).pipe(
    Effect.flatMap(([stat]) => {
      if (stat === undefined) return Effect.succeed(undefined)
      if (Result.isSuccess(stat)) return Effect.succeed(stat.success?.type)
      const detail = Platform.describeFailure(stat.failure)
      return Effect.fail(new StorageError({ reason: new ReadFailed({ file: name, detail }) }))
    })
  )

/** A link where a record or its folder is: refused. */
const linked = (name: string) =>
  new StorageError({
    reason: new OutsideRoot({ path: name, detail: "is a symbolic link; a replay position is not kept through links" })
  })

/**
 * The index of the next recorded answer of `answers` (an absolute path) for `conversationId`, as the memory folder
 * `root` keeps it: 0 when it keeps none, or keeps one for another file.
 */
export const load = Effect.fnUntraced(function* (root: string, conversationId: string, answers: string) {
  const reads = yield* RootFiles.RootFiles
  const { name, absolute, dir } = yield* recordOf(root, conversationId)
  // A folder that cannot be looked at keeps no position: what is wrong with the root, its review says in its words.
  const folderKind = yield* kindOf(dir, folder).pipe(Effect.orElseSucceed(() => undefined))
  if (folderKind === "SymbolicLink") return yield* linked(folder)
  if (folderKind !== "Directory") return 0
  const bytes = yield* reads
    .readFile(absolute)
    .pipe(
      Effect.mapError(
        (error) => new StorageError({ reason: new ReadFailed({ file: name, detail: Platform.describeFailure(error) }) })
      )
    )
  if (bytes === undefined) return 0
  const decoded = decodePosition(new TextDecoder().decode(bytes))
  if (Result.isFailure(decoded)) {
    return yield* new StorageError({
      reason: new ReadFailed({
        file: name,
        detail:
          "it is not a replay position ({version, conversation, answers, next}); remove it to start the recorded " +
          "answers of this conversation again from the first"
      })
    })
  }
  const position = decoded.success
  return position.conversation === conversationId && position.answers === answers ? position.next : 0
})

/** Keeps `next` as the index of the next recorded answer of `answers` for `conversationId` in the memory folder `root`. */
export const save = Effect.fnUntraced(function* (root: string, conversationId: string, answers: string, next: number) {
  const fs = yield* FileSystem.FileSystem
  const platform = yield* Platform.Platform
  const { name, absolute, dir } = yield* recordOf(root, conversationId)
  const failed = (file: string) => (error: PlatformError.PlatformError) =>
    new StorageError({ reason: new WriteFailed({ file, detail: Platform.describeFailure(error) }) })
  const folderKind = yield* kindOf(dir, folder)
  if (folderKind === "SymbolicLink") return yield* linked(folder)
  if (folderKind !== undefined && folderKind !== "Directory") {
    return yield* new StorageError({ reason: new NotAFolder({ path: dir }) })
  }
  if (folderKind === undefined) yield* fs.makeDirectory(dir, { recursive: true }).pipe(Effect.mapError(failed(folder)))
  const kind = yield* kindOf(absolute, name)
  if (kind === "SymbolicLink") return yield* linked(name)
  const text = JSON.stringify({ version: 1, conversation: conversationId, answers, next }) + "\n"
  // One temporary file per process: two runs of one conversation never write into the same one.
  const temporary = `${absolute}.${platform.processId}.tmp`
  yield* Effect.scoped(
    Effect.gen(function* () {
      const handle = yield* fs.open(temporary, { flag: "w" })
      yield* handle.writeAll(new TextEncoder().encode(text))
      yield* handle.sync
    })
  ).pipe(
    Effect.andThen(fs.rename(temporary, absolute)),
    Effect.onError(() => Effect.ignore(fs.remove(temporary, { force: true }))),
    Effect.mapError(failed(name))
  )
})
