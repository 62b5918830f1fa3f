/**
 * A folder of transcripts as `mneme watch` follows it: a scan sees every file under the folder (its size, its time of
 * change and which file it is on the disk), and the difference of two scans says what happened between them: files
 * that appeared, grew or changed, were cut or replaced under their name, were renamed (a log rotated to a new name),
 * or vanished. Hidden files and folders (a name that starts with ".") and whatever `skip` says (the memory folder
 * inside the watched one) are not seen.
 */
import { Effect, FileSystem, Option, Path } from "effect"

/** A file as a scan saw it. */
export interface Seen {
  readonly size: number
  /** Its time of change, in milliseconds. */
  readonly mtime: number
  /** Which file it is on the disk (device and inode), where the platform says. */
  readonly identity: string | undefined
}

/** Every file a scan saw, by absolute path. */
export type Snapshot = ReadonlyMap<string, Seen>

/** What happened to the files of a folder between two scans. */
export interface Changes {
  /** Files that are new (and not a file renamed). */
  readonly appeared: ReadonlyArray<string>
  /** Files that grew, or changed without getting shorter. */
  readonly changed: ReadonlyArray<string>
  /** Files cut shorter, or replaced by another file while the one they were moved to a new name. */
  readonly replaced: ReadonlyArray<string>
  /** Files moved to a new name: the same file on the disk. */
  readonly renamed: ReadonlyArray<{ readonly from: string; readonly to: string }>
  /** Files gone (a file renamed is gone from its old name too). */
  readonly vanished: ReadonlyArray<string>
}

/** What happened between the scans `before` and `after`. */
export const diff = (before: Snapshot, after: Snapshot): Changes => {
  const appeared: Array<string> = []
  const changed: Array<string> = []
  const replaced: Array<string> = []
  const renamed: Array<{ from: string; to: string }> = []
  const vanished = [...before.keys()].filter((file) => !after.has(file))
  // Where each file on the disk is now, and where the ones gone from their name were.
  const now = new Map<string, string>()
  for (const [file, seen] of after) if (seen.identity !== undefined) now.set(seen.identity, file)
  const gone = new Map<string, string>()
  for (const file of vanished) {
    const identity = before.get(file)?.identity
    if (identity !== undefined) gone.set(identity, file)
  }
  for (const [file, seen] of after) {
    const old = before.get(file)
    if (old === undefined) {
      const from = seen.identity === undefined ? undefined : gone.get(seen.identity)
      if (from === undefined) appeared.push(file)
      else renamed.push({ from, to: file })
      continue
    }
    const movedAway =
      old.identity !== undefined && old.identity !== seen.identity && now.get(old.identity) !== undefined
    if (seen.size < old.size || movedAway) replaced.push(file)
    else if (seen.size !== old.size || seen.mtime !== old.mtime || seen.identity !== old.identity) changed.push(file)
  }
  // A file moved away from a name another file now holds was renamed too.
  for (const file of replaced) {
    const identity = before.get(file)?.identity
    const to = identity === undefined ? undefined : now.get(identity)
    if (to !== undefined && to !== file && !before.has(to)) renamed.push({ from: file, to })
  }
  const moved = new Set(renamed.map(({ to }) => to))
  return { appeared: appeared.filter((file) => !moved.has(file)), changed, replaced, renamed, vanished }
}

/** Whether a path relative to the folder passes through a hidden name. */
const hidden = (relative: string, separator: string) => relative.split(separator).some((name) => name.startsWith("."))

/**
 * Every file under `dir` (absolute paths), but hidden ones and those `skip` says; a file gone between the listing and
 * its stat is not seen. Fails when the folder cannot be listed.
 */
export const scan = Effect.fnUntraced(function* (dir: string, skip: (file: string) => boolean) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const names = yield* fs.readDirectory(dir, { recursive: true })
  const files = names.filter((name) => !hidden(name, path.sep)).map((name) => path.join(dir, name))
  const seen = yield* Effect.forEach(
    files.filter((file) => !skip(file)),
    (file) =>
      fs.stat(file).pipe(
        Effect.map((info) =>
          info.type === "File"
            ? Option.some([
                file,
                {
                  size: Number(info.size),
                  mtime: Option.getOrUndefined(info.mtime)?.getTime() ?? 0,
                  identity: Option.match(info.ino, { onNone: () => undefined, onSome: (ino) => `${info.dev}:${ino}` })
                }
              ] as const)
            : Option.none()
        ),
        Effect.orElseSucceed(() => Option.none())
      ),
    { concurrency: 8 }
  )
  return new Map(seen.flatMap((entry) => (Option.isSome(entry) ? [entry.value] : []))) as Snapshot
})
