/**
 * `mneme review --dry-run`: the review works on a copy of the memory folder, and what it would change is read back
 * as the lines each Markdown file would gain and lose.
 */
import { NotAFolder, StorageError } from "@mneme/core"
import { Effect, FileSystem, Option, Path } from "effect"

/** A copy of the memory root in a temporary folder, for a dry run. */
export const copyRoot = Effect.fnUntraced(function* (memory: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const copy = path.join(yield* fs.makeTempDirectoryScoped({ prefix: "mneme-dry-run-" }), "memory")
  // A folder that is not there yet is copied as an empty one; any other failure to look at it is the run's.
  const info = yield* fs.stat(memory).pipe(
    Effect.map(Option.some),
    Effect.catchReason("PlatformError", "NotFound", () => Effect.succeed(Option.none()))
  )
  if (Option.isSome(info) && info.value.type !== "Directory") {
    return yield* new StorageError({ reason: new NotAFolder({ path: path.resolve(memory) }) })
  }
  if (Option.isSome(info)) yield* fs.copy(memory, copy)
  else yield* fs.makeDirectory(copy, { recursive: true })
  return copy
})

/** What a dry run would change in one Markdown file: the lines it would gain and lose. */
export interface FileChange {
  readonly file: string
  readonly status: "new" | "changed" | "deleted"
  readonly added: ReadonlyArray<string>
  readonly removed: ReadonlyArray<string>
}

/** The Markdown files of `after` that differ from `before`, line by line. */
export const diffRoots = Effect.fnUntraced(function* (before: string, after: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const files = (root: string) =>
    Effect.flatMap(fs.exists(root), (exists) =>
      exists
        ? Effect.map(fs.readDirectory(root, { recursive: true }), (names) =>
            names.filter((name) => name.endsWith(".md")).map((name) => name.split(path.sep).join("/"))
          )
        : Effect.succeed([])
    )
  /** A file's non-blank lines, or `undefined` when it does not exist. */
  const read = (root: string, file: string) =>
    Effect.flatMap(fs.exists(path.join(root, file)), (exists) =>
      exists
        ? Effect.map(fs.readFileString(path.join(root, file)), (text) => text.split("\n").filter((line) => line !== ""))
        : Effect.succeed(undefined)
    )
  const names = [...new Set([...(yield* files(before)), ...(yield* files(after))])].sort()
  const changes: Array<FileChange> = []
  for (const file of names) {
    const old = yield* read(before, file)
    const next = yield* read(after, file)
    const added = without(next ?? [], old ?? [])
    const removed = without(old ?? [], next ?? [])
    const status = old === undefined ? "new" : next === undefined ? "deleted" : "changed"
    if (added.length > 0 || removed.length > 0) changes.push({ file, status, added, removed })
  }
  return changes
})

/** The lines of `lines` not matched by a line of `other` (as multisets, in order). */
const without = (lines: ReadonlyArray<string>, other: ReadonlyArray<string>): Array<string> => {
  const left = new Map<string, number>()
  for (const line of other) left.set(line, (left.get(line) ?? 0) + 1)
  return lines.filter((line) => {
    const n = left.get(line) ?? 0
    if (n > 0) left.set(line, n - 1)
    return n === 0
  })
}
