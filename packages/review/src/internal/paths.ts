/**
 * Where the scopes and files of a memory root live (docs/spec.md 1), and the check that a path stays inside the root.
 *
 * An agent's folder is its id when that is a safe file name everywhere: 1–128 of `[A-Za-z0-9_-]`, not a Windows
 * device name, and not of the shape of a hashed folder (below). Any other id gets `<slug>-<hash>`: a lower-case slug
 * of the id (at most 40 of `[a-z0-9-]`, `agent` when nothing is left) and the first 12 hex digits of the id's
 * SHA-256, e.g. `ada-lovelace-3f2a91c0d4e5`. A name of that shape is never an id's own folder, so an id kept by name
 * never meets a hashed one. A hashed folder records its id in `agent.json` (`{"version":1,"agentId":…}`), which is
 * how the root's agents are listed. Before this naming, an unsafe id's folder was the first 32 hex digits of its
 * SHA-256 and a device name or a hashed-looking id was kept by name: that earlier folder is still found, and moved to
 * the new name on the first write.
 *
 * No memory file is read or written through a symbolic link, inside the root or out of it: a link is refused
 * (`LinkedFile` when it leads inside the root, `OutsideRoot` when it leads out or nowhere), so one file cannot stand
 * for another. The root itself may be a link.
 */
import { LinkedFile, NotAFolder, OutsideRoot, type Scope, type StorageError, Topic } from "@mneme/core"
import { Effect, type FileSystem, Path, Result } from "effect"
import type { Stat, StatResult } from "../Platform.ts"
import { orMissing, readFailed, storageError } from "./files.ts"

const safeId = /^[A-Za-z0-9_-]{1,128}$/
const hashedShape = /(^|-)[0-9a-f]{12}$/

/** SHA-256 as 64 hex digits (the platform's). */
export type Hash = (text: string) => string

/** A lower-case slug of an id: at most 40 of `[a-z0-9-]`, no `-` at either end. */
const slug = (agentId: string): string => {
  const words = agentId
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-/, "")
    .slice(0, 40)
    .replace(/-$/, "")
  return words === "" ? "agent" : words
}

/** Whether `agentId` is its own folder's name. */
const keptByName = (agentId: string) =>
  safeId.test(agentId) && !Topic.isDeviceName(agentId) && !hashedShape.test(agentId)

/** The folder name of an agent (see the module's comment). */
export const agentDir = (hash: Hash, agentId: string): string =>
  keptByName(agentId) ? agentId : `${slug(agentId)}-${hash(agentId).slice(0, 12)}`

/** Whether an agent's folder records its id (`agent.json`): every folder not named by its id. */
export const recordsId = (agentId: string): boolean => !keptByName(agentId)

/** The folder name the earlier naming gave an agent, when it is not the new one. */
export const legacyAgentDir = (hash: Hash, agentId: string): string | undefined => {
  const earlier = safeId.test(agentId) ? agentId : hash(agentId).slice(0, 32)
  return earlier === agentDir(hash, agentId) ? undefined : earlier
}

/** The agent a folder of `agents/` is named by, when it is a folder named by its id. */
export const agentOfName = (name: string): string | undefined => (keptByName(name) ? name : undefined)

/** The file in a hashed folder that records its agent's id. */
export const idRecordName = "agent.json"

/** The folder of a scope, relative to the root: "team" or "agents/<dir>". */
export const scopeDir = (hash: Hash, scope: Scope.Scope): string =>
  scope.kind === "team" ? "team" : `agents/${agentDir(hash, scope.agentId)}`

/** The entry point of every scope. */
export const memoryName = "MEMORY.md"

/** The name of a scope's file: MEMORY.md, or `<topic>.md`. */
export const nameOf = (topic: string | undefined): string => (topic === undefined ? memoryName : `${topic}.md`)

/** A file of a scope, relative to the root ("/" separated): MEMORY.md, or `<topic>.md`. */
export const fileOf = (dir: string, topic: string | undefined): string => `${dir}/${nameOf(topic)}`

/** The topic a file name of a scope's folder is (`undefined` for MEMORY.md), or `null` when it is none. */
export const topicOfName = (name: string): string | undefined | null => {
  if (name === memoryName) return undefined
  if (!name.endsWith(".md")) return null
  const stem = name.slice(0, -3)
  return Topic.clean(stem) === stem ? stem : null
}

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

/** How the parts of a path are looked at: the platform's `lstatAll`, and the file system to follow a link found. */
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
