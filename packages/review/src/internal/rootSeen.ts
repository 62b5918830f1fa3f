/**
 * The root of the files backend, resolved once: its real path is kept, with the stats then of the root and of that
 * path, and stands without resolving it again while a stat of both gives the same (the same link, or the same folder,
 * at each). What was seen is held in a `Ref` the constructor makes, one per backend.
 */
import { NotAFolder, RootUnusable, type StorageError } from "@mneme/core"
import { Effect, type FileSystem, Option, Ref, Result } from "effect"
import type { RootFiles, Stat, StatResult } from "../RootFiles.ts"
import { describe, orMissing, readFailed, storageError } from "./files.ts"

/** The root's real path as last resolved, with the stats then of the root and of its real path. */
interface Seen {
  readonly real: string
  readonly root: Stat
  readonly folder: Stat
}

/** Whether `now` is what `then` was: the same kind and inode, and for a link the same size and change time. */
const sameThing = (then: Stat, now: StatResult | undefined) =>
  now !== undefined &&
  Result.isSuccess(now) &&
  now.success !== undefined &&
  then.ino !== undefined &&
  now.success.type === then.type &&
  now.success.ino === then.ino &&
  (then.type !== "SymbolicLink" || (now.success.size === then.size && now.success.mtime === then.mtime))

/**
 * The real path of the folder `root` (absolute) now: `undefined` while it does not exist; a root that is not a folder
 * fails.
 */
export const make = Effect.fnUntraced(function* (root: string, fs: FileSystem.FileSystem, reads: RootFiles["Service"]) {
  const seenRef = yield* Ref.make<Seen | undefined>(undefined)

  /** The real path kept, while the root and that path are what they were. */
  const stillSeen = Effect.gen(function* () {
    const seen = yield* Ref.get(seenRef)
    if (seen === undefined) return undefined
    // A root that is its own real path is looked at once.
    const [rootStat, folderStat = rootStat] = yield* reads.lstatAll(seen.real === root ? [root] : [root, seen.real])
    if (sameThing(seen.root, rootStat) && sameThing(seen.folder, folderStat)) return seen.real
    yield* Ref.set(seenRef, undefined)
    return undefined
  })

  /** The real path resolved again, kept where a stat of the root and of that path says what they are. */
  const resolved = Effect.gen(function* () {
    const real = yield* orMissing(fs.realPath(root)).pipe(
      Effect.mapError((error) => storageError(new RootUnusable({ root, detail: describe(error) })))
    )
    if (real === undefined) return undefined
    const info = yield* fs.stat(real).pipe(Effect.mapError(readFailed(root)))
    if (info.type !== "Directory") return yield* storageError(new NotAFolder({ path: root }))
    const [rootStat, folderStat] = yield* reads.lstatAll([root, real])
    if (
      rootStat !== undefined &&
      folderStat !== undefined &&
      Result.isSuccess(rootStat) &&
      Result.isSuccess(folderStat) &&
      rootStat.success !== undefined &&
      folderStat.success?.type === "Directory" &&
      folderStat.success.ino === Option.getOrUndefined(info.ino)
    ) {
      yield* Ref.set(seenRef, { real, root: rootStat.success, folder: folderStat.success })
    }
    return real
  })

  const rootNow: Effect.Effect<string | undefined, StorageError> = Effect.flatMap(stillSeen, (real) =>
    real === undefined ? resolved : Effect.succeed(real)
  )
  return rootNow
})
