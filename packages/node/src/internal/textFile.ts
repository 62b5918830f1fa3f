/**
 * Files read whole as text (a transcript, recorded answers), and the platform's failures, in a person's words: a
 * folder where a file is needed, a file that is not there or is not text, and what the system said otherwise, never
 * the platform's own names (`BadResource: FileSystem.readFile`).
 */
import { Platform } from "@mneme/review"
import { Data, Effect, FileSystem, Path } from "effect"
import type { PlatformError } from "effect/PlatformError"

/** A platform failure as one line that names its path, if it has one: `afile/mem: a part of the path is a file…`. */
export const sentence = (error: PlatformError): string => {
  const reason = error.reason
  const path = reason._tag === "BadArgument" ? undefined : reason.pathOrDescriptor
  return typeof path === "string" ? `${path}: ${Platform.describeFailure(error)}` : Platform.describeFailure(error)
}

/**
 * A file could not be read as text: `problem` says what is wrong with it, without naming it (`is a folder, not a
 * transcript file`), so a caller can put it after the file's name or after "it".
 */
export class Unreadable extends Data.TaggedError("Unreadable")<{
  readonly file: string
  readonly problem: string
}> {
  override get message() {
    return this.file === "" ? `"" ${this.problem}` : `${this.file} ${this.problem}`
  }
}

const decoder = new TextDecoder("utf-8", { fatal: true })

/**
 * Reads `file` whole as UTF-8 text (a leading byte order mark dropped). It fails with `Unreadable`, saying what is
 * wrong in words: a folder, a file that does not exist (with the path it was looked for at, when `file` is
 * relative), a file that is not text (not UTF-8, or holding NUL bytes, as binary files do), or what the system said.
 * `what` names the file a folder was given for: `transcript file`.
 */
export const read = Effect.fnUntraced(function* (file: string, what: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  if (file === "") return yield* new Unreadable({ file, problem: `names no ${what}: the path is empty` })
  const bytes = yield* fs.readFile(file).pipe(
    Effect.mapError((error) => {
      const code = Platform.failureCode(error)
      if (code === "EISDIR") return new Unreadable({ file, problem: `is a folder, not a ${what}` })
      if (code === "ENOENT" || (code === undefined && error.reason._tag === "NotFound")) {
        const where = path.resolve(file)
        return new Unreadable({ file, problem: `does not exist${where === file ? "" : ` (looked for ${where})`}` })
      }
      return new Unreadable({ file, problem: `cannot be read: ${Platform.describeFailure(error)}` })
    })
  )
  const text = yield* Effect.try({
    try: () => decoder.decode(bytes),
    catch: () => new Unreadable({ file, problem: "is not a text file: it holds bytes that are not UTF-8 text" })
  })
  if (text.includes("\u0000")) {
    return yield* new Unreadable({ file, problem: "is not a text file: it holds NUL bytes, as binary files do" })
  }
  return text
})
