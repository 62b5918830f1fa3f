/**
 * Reading and writing the text files of a memory root: strict UTF-8 reads, atomic writes (a temporary file with a
 * unique name in the same folder, flushed, then renamed over the old one) and appended lines.
 */
import { MemoryWriteError } from "@mneme/core"
import { Effect, FileSystem, Path, Random } from "effect"
import type { PlatformError } from "effect/PlatformError"

/** A platform failure as the `MemoryWriteError` of `file` (relative to the root). */
export const failure =
  (file: string, doing: string) =>
  (error: PlatformError): MemoryWriteError =>
    new MemoryWriteError({ file, reason: `could not ${doing}: ${error.message}` })

/** `undefined` in place of a missing file. */
export const orMissing = <A, E, R>(self: Effect.Effect<A, E | PlatformError, R>) =>
  Effect.catchReason(self, "PlatformError", "NotFound", () => Effect.succeed(undefined))

const decoder = new TextDecoder("utf-8", { fatal: true })
const encoder = new TextEncoder()

/** The text of `absolute`, or `undefined` when it does not exist. Fails on text that is not valid UTF-8. */
export const readText = Effect.fnUntraced(function* (absolute: string, file: string) {
  const fs = yield* FileSystem.FileSystem
  const bytes = yield* orMissing(fs.readFile(absolute)).pipe(Effect.mapError(failure(file, "read it")))
  if (bytes === undefined) return undefined
  return yield* Effect.try({
    try: () => decoder.decode(bytes),
    catch: () =>
      new MemoryWriteError({ file, reason: "is not valid UTF-8 text; fix or remove it by hand (nothing was changed)" })
  })
})

/**
 * Replaces `absolute` with `content` atomically: a reader sees the old file or the new one, never half of either.
 * A failed write or rename leaves the old file whole and removes the temporary file.
 */
export const writeAtomic = Effect.fnUntraced(function* (absolute: string, file: string, content: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const unique = (yield* Random.nextIntBetween(0, 2 ** 48)).toString(36)
  const temporary = path.join(path.dirname(absolute), `.${path.basename(absolute)}.${process.pid}-${unique}.tmp`)
  yield* Effect.scoped(
    Effect.gen(function* () {
      const handle = yield* fs.open(temporary, { flag: "wx" })
      yield* handle.writeAll(encoder.encode(content))
      yield* handle.sync
    })
  ).pipe(
    Effect.andThen(fs.rename(temporary, absolute)),
    Effect.onError(() => Effect.ignore(fs.remove(temporary, { force: true }))),
    Effect.mapError(failure(file, "write it (the old file is unchanged)"))
  )
})

/** Appends `line` and a line break to `absolute`, creating it when missing. */
export const appendLine = Effect.fnUntraced(function* (absolute: string, file: string, line: string) {
  const fs = yield* FileSystem.FileSystem
  yield* Effect.scoped(
    Effect.gen(function* () {
      const handle = yield* fs.open(absolute, { flag: "a" })
      yield* handle.writeAll(encoder.encode(line + "\n"))
    })
  ).pipe(Effect.mapError(failure(file, "append to it")))
})
