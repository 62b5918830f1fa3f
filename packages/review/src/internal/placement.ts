/**
 * Putting a file in place inside a memory root so that a link swapped in for one of its folders while it is written
 * never carries the write outside (docs/spec.md 3).
 *
 * The new text is written to a temporary file beside the file and flushed, and the temporary file's identity (device
 * and inode, from the opened file) is kept. Right before the rename, every part of the file's path is looked at again
 * (none may be a link, each folder a folder) and the temporary file found at its path must be the one written; anything
 * else refuses the write, naming the path and the link, and the temporary file is taken away. A link swapped in after
 * that look leaves the rename nothing to move (the temporary file is not where the link leads), so it fails, and the
 * failure is explained the same way. A file is removed by first renaming it aside in its folder (see `remove`).
 */
import { type StorageError, WriteFailed } from "@mneme/core"
import { Effect, FileSystem, Option, Path } from "effect"
import { encodeText, storageError, writeFailed } from "./files.ts"
import * as Paths from "./paths.ts"

/** A new text written aside: the temporary file's path, and its device and inode as opened. */
export interface Aside {
  readonly temporary: string
  readonly dev: bigint
  readonly ino: bigint | undefined
}

/** Where a file of the root is: the root's real path, the file relative to it, and its absolute path. */
export interface Place {
  readonly looker: Paths.Looker
  readonly real: string
  readonly file: string
  readonly absolute: string
}

/**
 * Writes `content` to a new temporary file beside `place.absolute` and flushes it to disk; gives it with its identity.
 * A failure removes what was written.
 */
export const writeAside = Effect.fnUntraced(function* (place: Place, content: string | Uint8Array, suffix: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const temporary = path.join(path.dirname(place.absolute), `.${path.basename(place.absolute)}${suffix}`)
  const info = yield* Effect.scoped(
    Effect.gen(function* () {
      const handle = yield* fs.open(temporary, { flag: "wx" })
      yield* handle.writeAll(typeof content === "string" ? encodeText(content) : content)
      yield* handle.sync
      return yield* handle.stat
    })
  ).pipe(
    Effect.onError(() => Effect.ignore(fs.remove(temporary, { force: true }))),
    Effect.mapError(writeFailed(place.file))
  )
  const aside: Aside = { temporary, dev: info.dev, ino: Option.getOrUndefined(info.ino) }
  return aside
})

/** Whether the file at `temporary` is the one `aside` wrote (it is not, when a link now leads elsewhere). */
const isAside = (temporary: string, aside: Pick<Aside, "dev" | "ino">) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) =>
    fs.lstat(temporary).pipe(
      Effect.map(
        (info) => info.type === "File" && info.dev === aside.dev && Option.getOrUndefined(info.ino) === aside.ino
      ),
      Effect.catch(() => Effect.succeed(false))
    )
  )

/** Every part of the place's path looked at again: fails where one is a link now (or no folder). */
const recheck = (place: Place) => Effect.asVoid(Paths.resolve(place.looker, place.real, place.file))

/** Why a write to `place` was refused or failed: a link found on its path now, else `otherwise`. */
const explain = (place: Place, otherwise: StorageError) =>
  Effect.flatMap(Effect.result(recheck(place)), (checked) =>
    Effect.fail(checked._tag === "Failure" ? checked.failure : otherwise)
  )

/** The write to `place` refused: its temporary file is not where it was written. */
const moved = (place: Place) =>
  storageError(new WriteFailed({ file: place.file, detail: "its folder was moved or replaced while it was written" }))

/**
 * Renames `aside` over `place` once its path is checked again and the temporary file is found to be the one written;
 * refused otherwise (the temporary file is then left to the caller to remove).
 */
export const put = Effect.fnUntraced(function* (place: Place, aside: Aside) {
  const fs = yield* FileSystem.FileSystem
  yield* recheck(place)
  if (!(yield* isAside(aside.temporary, aside))) return yield* explain(place, moved(place))
  yield* fs
    .rename(aside.temporary, place.absolute)
    .pipe(Effect.catchTag("PlatformError", (error) => explain(place, writeFailed(place.file)(error))))
})

/**
 * Removes the file at `place`, which a stat gave as `ino` when it was read: its path checked again, the file renamed
 * aside in its folder (to `<folder>/.<name><suffix>`, a name no cleaning removes), and removed once the file found
 * there is the one meant. Where it is another (a link was swapped in before the rename: the file moved is outside),
 * it is put back; where nothing is there (a link was swapped in after it), the file stays set aside in its folder,
 * wherever that folder went, and the removal fails.
 */
export const remove = Effect.fnUntraced(function* (place: Place, ino: bigint | undefined, suffix: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const aside = path.join(path.dirname(place.absolute), `.${path.basename(place.absolute)}${suffix}`)
  yield* recheck(place)
  yield* fs
    .rename(place.absolute, aside)
    .pipe(Effect.catchTag("PlatformError", (error) => explain(place, writeFailed(place.file)(error))))
  const found = yield* fs.lstat(aside).pipe(
    Effect.map((info) => (Option.getOrUndefined(info.ino) === ino ? "meant" : "other")),
    Effect.catch(() => Effect.succeed("none" as const))
  )
  if (found === "other") yield* Effect.ignore(fs.rename(aside, place.absolute))
  if (found !== "meant") return yield* explain(place, moved(place))
  // A file that cannot be removed is put back, and the removal fails.
  yield* fs
    .remove(aside)
    .pipe(
      Effect.catchTag("PlatformError", (error) =>
        Effect.andThen(Effect.ignore(fs.rename(aside, place.absolute)), explain(place, writeFailed(place.file)(error)))
      )
    )
})

/**
 * Replaces the file at `place` with `content` atomically and only inside the root: written aside, then `put`. A
 * failure leaves the old file whole and removes the temporary file.
 */
export const write = Effect.fnUntraced(function* (place: Place, content: string | Uint8Array, suffix: string) {
  const fs = yield* FileSystem.FileSystem
  const aside = yield* writeAside(place, content, suffix)
  yield* put(place, aside).pipe(Effect.onError(() => Effect.ignore(fs.remove(aside.temporary, { force: true }))))
})
