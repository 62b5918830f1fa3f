/**
 * The check that a path stays inside a memory root, and where its scopes and files live (`RootLayout`, re-exported).
 *
 * No memory file is read or written through a symbolic link, inside the root or out of it: a link is refused
 * (`LinkedFile` when it leads inside the root, `OutsideRoot` when it leads out or nowhere), so one file cannot stand
 * for another. The root itself may be a link.
 */
import { LinkedFile, NotAFolder, OutsideRoot, type StorageError } from "@mneme/core"
import { Effect, type FileSystem, Path, Result } from "effect"
import type { Stat, StatResult } from "../RootFiles.ts"
import { orMissing, readFailed, storageError } from "./files.ts"

export {
  agentDir,
  agentOfName,
  fileOf,
  type Hash,
  idRecordName,
  legacyAgentDir,
  memoryName,
  nameOf,
  recordsId,
  scopeDir,
  topicOfName
} from "../RootLayout.ts"

/** Whether a path relative to a folder (as `path.relative` gives it) stays inside that folder. */
const staysInside = (path: Path.Path, relative: string) =>
  relative === "" || (relative !== ".." && !relative.startsWith(".." + path.sep) && !path.isAbsolute(relative))

const isInside = (path: Path.Path, root: string, absolute: string) => staysInside(path, path.relative(root, absolute))

/** A path as the root names it: relative, "/" separated. */
const relativeOf = (path: Path.Path, realRoot: string, absolute: string) =>
  path.relative(realRoot, absolute).split(path.sep).join("/")

/** A path resolved inside the root: where it is, and what `lstat` says of it (`undefined` when it does not exist). */
export interface Located {
  readonly absolute: string
  readonly info: Stat | undefined
}

/** How the parts of a path are looked at: `RootFiles`' `lstatAll`, and the file system to follow a link found. */
export interface Looker {
  readonly fs: FileSystem.FileSystem
  readonly lstatAll: (paths: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<StatResult>>
}

/**
 * The absolute path of `rel` (relative to the root's real path `realRoot`), after checking each of its parts that
 * exists: none may be a symbolic link, and every part before the last must be a folder. `from`, a folder on the way
 * already resolved, saves looking at its parts again. The parts are looked at all at once, then judged in order (a part
 * after one that is missing, a link or no folder does not count).
 */
export const resolve = Effect.fnUntraced(function* (
  looker: Looker,
  realRoot: string,
  rel: string,
  from: string = realRoot
): Effect.fn.Return<Located, StorageError, Path.Path> {
  const path = yield* Path.Path
  const absolute = path.join(realRoot, rel)
  const inside = path.relative(from, absolute)
  if (rel.includes("\0") || path.isAbsolute(rel) || !staysInside(path, inside) || absolute === realRoot) {
    return yield* storageError(
      new OutsideRoot({ path: JSON.stringify(rel), detail: "is not a path inside the memory root" })
    )
  }
  const parts = inside.split(path.sep).filter((part) => part !== "")
  const places: Array<string> = []
  for (const part of parts) places.push(path.join(places.at(-1) ?? from, part))
  const stats = yield* looker.lstatAll(places)
  let info: Stat | undefined
  for (const [index, at] of places.entries()) {
    const stat = stats[index]!
    if (Result.isFailure(stat)) return yield* readFailed(relativeOf(path, realRoot, at))(stat.failure)
    info = stat.success
    if (info === undefined) return { absolute, info }
    if (info.type === "SymbolicLink" || (index < parts.length - 1 && info.type !== "Directory")) {
      const shown = relativeOf(path, realRoot, at)
      if (info.type !== "SymbolicLink") return yield* storageError(new NotAFolder({ path: shown }))
      const real = yield* orMissing(looker.fs.realPath(at)).pipe(Effect.mapError(readFailed(shown)))
      return yield* storageError(
        real === undefined
          ? new OutsideRoot({ path: shown, detail: "is a link that leads nowhere" })
          : isInside(path, realRoot, real)
            ? new LinkedFile({ path: shown, target: relativeOf(path, realRoot, real) })
            : new OutsideRoot({ path: shown, detail: `leads through a link to ${real}, outside the memory root` })
      )
    }
  }
  return { absolute, info }
})

/** What a stat gives that tells one version of a file from another: its size, its change time and its inode. */
export interface Stamp {
  readonly size: number
  readonly mtime: number
  readonly ino: bigint | undefined
}

/** The stamp of a file's `lstat`. */
export const stampOf = (info: Stat): Stamp => ({ size: info.size, mtime: info.mtime, ino: info.ino })
