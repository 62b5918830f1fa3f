/**
 * The file operations of a memory root and their errors: platform failures as a `StorageError` with its reason, in
 * words a person can act on; strict UTF-8 text; atomic writes (a temporary file in the same folder, flushed, then
 * renamed over the old one); and the names of the temporary files a writer leaves behind when it is killed, which say
 * whose they are (`.<file>.<pid>@<host>.<unique>.tmp`), so a later writer can tell when they are abandoned.
 */
import { NotText, ReadFailed, StorageError, type StorageReason, WriteFailed } from "@mneme/core"
import { Effect, FileSystem, Path, Result } from "effect"
import type { PlatformError } from "effect/PlatformError"
import { describeFailure } from "../Platform.ts"

/** A `StorageError` for `reason`. */
export const storageError = (reason: StorageReason): StorageError => new StorageError({ reason })

/** What a platform failure means, in words (the system's own when there are none). */
export const describe = describeFailure

/** A platform failure reading `file` (relative to the root). */
export const readFailed =
  (file: string) =>
  (error: PlatformError): StorageError =>
    storageError(new ReadFailed({ file, detail: describe(error) }))

/** A platform failure writing `file` (relative to the root); nothing was changed. */
export const writeFailed =
  (file: string) =>
  (error: PlatformError): StorageError =>
    storageError(new WriteFailed({ file, detail: describe(error) }))

/** `undefined` in place of a missing file. */
export const orMissing = <A, E, R>(self: Effect.Effect<A, E | PlatformError, R>) =>
  Effect.catchReason(self, "PlatformError", "NotFound", () => Effect.succeed(undefined))

const decoder = new TextDecoder("utf-8", { fatal: true })
const encoder = new TextEncoder()

/** `bytes` as text, or `NotText` for `file` when they are not valid UTF-8. */
export const decodeText = (bytes: Uint8Array, file: string): Effect.Effect<string, StorageError> =>
  Effect.try({ try: () => decoder.decode(bytes), catch: () => storageError(new NotText({ file })) })

/** The UTF-8 bytes of `text`. */
export const encodeText = (text: string): Uint8Array => encoder.encode(text)

/** Who leaves a temporary file: this process on this host. */
export interface Owner {
  readonly pid: number
  readonly host: string
}

/** A host name as it can stand in a file name. */
const hostPart = (host: string) => host.replace(/[^A-Za-z0-9.-]/g, "_")

/**
 * The suffix of a temporary file's name after its file's: `.<pid>@<host>.<unique>.tmp` (`.stale` for a lock set aside,
 * `.removed` for a file set aside to be removed, which is never cleaned: it is kept where its removal was refused).
 */
export const leftoverSuffix = (owner: Owner, unique: string, kind: "tmp" | "stale" | "removed") =>
  `.${owner.pid}@${hostPart(owner.host)}.${unique}.${kind}`

/** The owner a leftover's name gives (see `leftoverSuffix`), for a name ending `.tmp` or `.stale`. */
export const leftoverOwner = (name: string): Owner | undefined => {
  const kind = name.endsWith(".tmp") ? ".tmp" : name.endsWith(".stale") ? ".stale" : undefined
  if (kind === undefined) return undefined
  const rest = name.slice(0, -kind.length)
  const withoutUnique = rest.slice(0, rest.lastIndexOf("."))
  const at = withoutUnique.lastIndexOf("@")
  const dot = withoutUnique.lastIndexOf(".", at)
  if (at < 0 || dot < 0) return undefined
  const pid = withoutUnique.slice(dot + 1, at)
  return /^[0-9]{1,10}$/.test(pid) ? { pid: Number(pid), host: withoutUnique.slice(at + 1) } : undefined
}

/** Whether `host`, as a leftover's name gives it, is `owner`'s. */
export const sameHost = (owner: Owner, host: string) => hostPart(owner.host) === host

/**
 * Writes `content` to a new temporary file beside `absolute` and flushes it to disk; gives the temporary file's path.
 * A failure removes what was written.
 */
const writeTemporary = Effect.fnUntraced(function* (
  absolute: string,
  file: string,
  content: string | Uint8Array,
  suffix: string
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const temporary = path.join(path.dirname(absolute), `.${path.basename(absolute)}${suffix}`)
  yield* Effect.scoped(
    Effect.gen(function* () {
      const handle = yield* fs.open(temporary, { flag: "wx" })
      yield* handle.writeAll(typeof content === "string" ? encoder.encode(content) : content)
      yield* handle.sync
    })
  ).pipe(
    Effect.onError(() => Effect.ignore(fs.remove(temporary, { force: true }))),
    Effect.mapError(writeFailed(file))
  )
  return temporary
})

/**
 * Replaces `absolute` with `content` atomically: a reader sees the old file or the new one, never half of either.
 * A failed write or rename leaves the old file whole and removes the temporary file. `first`, run while the new text
 * is written aside (a check that the writer may still write), must succeed for the file to be replaced.
 */
export const writeAtomic = Effect.fnUntraced(function* (
  absolute: string,
  file: string,
  content: string | Uint8Array,
  suffix: string,
  first: Effect.Effect<void, StorageError> = Effect.void
) {
  const fs = yield* FileSystem.FileSystem
  const [temporary, checked] = yield* Effect.all(
    [writeTemporary(absolute, file, content, suffix), Effect.result(first)],
    { concurrency: 2 }
  )
  if (Result.isFailure(checked)) {
    yield* Effect.ignore(fs.remove(temporary, { force: true }))
    return yield* Effect.fail(checked.failure)
  }
  yield* fs.rename(temporary, absolute).pipe(
    Effect.onError(() => Effect.ignore(fs.remove(temporary, { force: true }))),
    Effect.mapError(writeFailed(file))
  )
})
