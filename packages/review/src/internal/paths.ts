/**
 * Where the scopes and files of a memory root live, and the check that a path, once links are followed, stays
 * inside the root.
 */
import { Denied } from "@mneme/core"
import { Effect, FileSystem, Path } from "effect"
import type { PlatformError } from "effect/PlatformError"
import { createHash } from "node:crypto"
import { orMissing } from "./files.ts"

const safeId = /^[A-Za-z0-9_-]{1,128}$/

/** The folder name of an agent: its id when that is a safe file name, else the first 32 hex digits of its SHA-256. */
export const agentDir = (agentId: string): string =>
  safeId.test(agentId) ? agentId : createHash("sha256").update(agentId, "utf8").digest("hex").slice(0, 32)

/** The folder of a scope, relative to the root: "team" or "agents/<dir>". */
export const scopeDir = (scope: { readonly kind: "team" } | { readonly kind: "agent"; readonly agentId: string }) =>
  scope.kind === "team" ? "team" : `agents/${agentDir(scope.agentId)}`

/** The entry point of every scope. */
const memoryName = "MEMORY.md"

/** A file of a scope, relative to the root ("/" separated): MEMORY.md, or `<topic>.md`. */
export const fileOf = (dir: string, topic: string | undefined): string =>
  `${dir}/${topic === undefined ? memoryName : `${topic}.md`}`

const isInside = (path: Path.Path, realRoot: string, real: string) => {
  const relative = path.relative(realRoot, real)
  return relative === "" || (relative !== ".." && !relative.startsWith(".." + path.sep) && !path.isAbsolute(relative))
}

/**
 * The absolute path of `rel` (relative to the root), after checking that none of its parts that exist is a link
 * leading outside the root's real path (or nowhere). Fails with `Denied` otherwise. `checked`, a folder on the way
 * already resolved by this function, saves looking at its parts again.
 */
export const resolve = Effect.fnUntraced(function* (
  realRoot: string,
  rel: string,
  checked: string = realRoot
): Effect.fn.Return<string, Denied | PlatformError, FileSystem.FileSystem | Path.Path> {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const absolute = path.join(realRoot, rel)
  if (rel.includes("\0") || !isInside(path, realRoot, absolute) || !isInside(path, checked, absolute)) {
    return yield* new Denied({ reason: `${JSON.stringify(rel)} is not a path inside the memory root` })
  }
  let at = checked
  for (const part of path
    .relative(checked, absolute)
    .split(path.sep)
    .filter((part) => part !== "")) {
    at = path.join(at, part)
    const info = yield* orMissing(fs.lstat(at))
    if (info === undefined) return absolute
    if (info.type !== "SymbolicLink") continue
    const real = yield* orMissing(fs.realPath(at))
    if (real === undefined) {
      return yield* new Denied({ reason: `${rel} is a link that leads nowhere; nothing there is read or written` })
    }
    if (!isInside(path, realRoot, real)) {
      return yield* new Denied({
        reason: `${rel} leads through a link to ${real}, outside the memory root; nothing there is read or written`
      })
    }
  }
  return absolute
})
