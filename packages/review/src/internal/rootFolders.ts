/**
 * What a change of the files backend makes beside its files, and takes away again: the folders a new file needs and
 * the id record of an agent's hashed folder, recorded in a `Ref` as soon as each is there (so a refused change leaves
 * the root as it was); and the leftovers of killed writers (temporary files, stale locks set aside), removed once they
 * are provably abandoned: their writer ran on this host and is gone, or they are older than a lease before the lock
 * was taken.
 */
import { Effect, type FileSystem, Option, type Path, Ref, Schema } from "effect"
import type { Platform } from "../Platform.ts"
import { leftoverOwner, type Owner, orMissing, readFailed, sameHost, writeFailed } from "./files.ts"
import * as Paths from "./paths.ts"
import * as Placement from "./placement.ts"
import type * as RootLock from "./rootLock.ts"
import * as ScopeRead from "./scopeRead.ts"

/** What writing in a root works with: the file system, paths, how paths are looked at, and temporary names. */
export interface Writing {
  readonly fs: FileSystem.FileSystem
  readonly path: Path.Path
  readonly looker: Paths.Looker
  /** A new suffix for a temporary file of this writer (`files.ts`, `leftoverSuffix`). */
  readonly temporarySuffix: Effect.Effect<string>
  /** A new suffix for a file set aside to be removed. */
  readonly removedSuffix: Effect.Effect<string>
}

/**
 * What a change made before it was made for good, so a refused change can take it away: the folders it created,
 * outermost first, and the files it wrote in them or elsewhere.
 */
export interface Made {
  readonly folders: ReadonlyArray<string>
  readonly files: ReadonlyArray<string>
}

/** Nothing made yet. */
export const nothingMade: Made = { folders: [], files: [] }

const encodeIdRecord = Schema.encodeSync(ScopeRead.IdRecord)

/**
 * Makes the folder `dir` (relative to the root, its existing parts already checked by `Paths.resolve`) where missing,
 * one folder at a time, adding each folder it creates to `made` as soon as it is there.
 */
export const makeFolders = Effect.fnUntraced(function* (
  { fs, path }: Writing,
  real: string,
  dir: string,
  made: Ref.Ref<Made>
) {
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
    const folder = at
    if (created) yield* Ref.update(made, ({ folders, files }) => ({ folders: [...folders, folder], files }))
  }
})

/** Adds the file `absolute` to what a change made. */
export const madeFile = (made: Ref.Ref<Made>, absolute: string) =>
  Ref.update(made, ({ folders, files }) => ({ folders, files: [...files, absolute] }))

/**
 * Takes away what a refused change made (best effort): the files it wrote, then the folders it created, innermost
 * first and only while empty, so nothing that was there before, or that it did not put there, is removed.
 */
export const unmake = ({ fs }: Writing, made: Ref.Ref<Made>) =>
  Effect.gen(function* () {
    const { folders, files } = yield* Ref.getAndSet(made, nothingMade)
    for (const file of files.toReversed()) yield* Effect.ignore(fs.remove(file, { force: true }))
    for (const folder of folders.toReversed()) {
      const names = yield* Effect.option(fs.readDirectory(folder))
      if (Option.isSome(names) && names.value.length === 0) {
        yield* Effect.ignore(fs.remove(folder, { recursive: true }))
      }
    }
  })

/** The id record of an agent's hashed folder, written when missing; gives its path when it was written. */
export const recordId = Effect.fnUntraced(function* (writing: Writing, real: string, dir: string, agentId: string) {
  const file = `${dir}/${Paths.idRecordName}`
  const record = yield* Paths.resolve(writing.looker, real, file)
  if (record.info !== undefined) return undefined
  const content = encodeIdRecord({ version: 1, agentId }) + "\n"
  yield* Placement.write(
    { looker: writing.looker, real, file, absolute: record.absolute },
    content,
    yield* writing.temporarySuffix
  )
  return record.absolute
})

/** Removes the leftovers among `names` (in `folder`) that are provably abandoned. */
export const cleanLeftovers = Effect.fnUntraced(function* (
  { fs, path }: Writing,
  platform: Platform["Service"],
  lease: number,
  folder: string,
  names: ReadonlyArray<string>,
  held: RootLock.Held
) {
  const self: Owner = { pid: platform.processId, host: platform.hostName }
  for (const name of names) {
    const owner = leftoverOwner(name)
    if (owner === undefined || !name.startsWith(".")) continue
    const absolute = path.join(folder, name)
    const gone = sameHost(self, owner.host)
      ? owner.pid === self.pid || !(yield* platform.isAlive(owner.pid))
      : yield* Effect.map(Effect.all([Effect.option(fs.lstat(absolute)), held.takenAt]), ([info, takenAt]) =>
          Option.match(
            Option.flatMap(info, (info) => info.mtime),
            { onNone: () => false, onSome: (mtime) => mtime.getTime() < takenAt - lease }
          )
        )
    if (gone) yield* Effect.ignore(fs.remove(absolute, { force: true }))
  }
})
