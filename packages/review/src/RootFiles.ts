/**
 * How the files backend reads a memory folder: never through a link, and the `lstat` of many files at once (how it
 * sees that a scope is unchanged, for the price of its stats); a small file read whole (a memory file, the review
 * state), a large one in pieces, a small folder's names. A service of its own so that `@mneme/review` imports nothing
 * from `node:` and Node's reads can be quicker than Effect's `FileSystem` where it matters.
 * `@mneme/node` provides it (`NodePlatform.layer`, with `Platform`); `RootFiles.layerTest` is a double that reads
 * through Effect's `FileSystem`.
 */
import { Context, Effect, FileSystem, Layer, Option, type PlatformError, type Result } from "effect"

/** What `lstat` says of a path that is there: its kind, its size in bytes, its change time (epoch ms), its inode. */
export interface Stat {
  readonly type: FileSystem.File.Type
  readonly size: number
  readonly mtime: number
  readonly ino: bigint | undefined
}

/** The `lstat` of one path: its stat, `undefined` when nothing is there, or why it could not be looked at. */
export type StatResult = Result.Result<Stat | undefined, PlatformError.PlatformError>

/** The reads of the files backend. */
export class RootFiles extends Context.Service<
  RootFiles,
  {
    /** The `lstat` of each of `paths` (absolute), all at once, in their order; links are not followed. */
    readonly lstatAll: (paths: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<StatResult>>
    /**
     * The bytes of the small file `path` (absolute) as it is now, `undefined` when nothing is there. Node's reads it at
     * once and never through a link.
     */
    readonly readFile: (path: string) => Effect.Effect<Uint8Array | undefined, PlatformError.PlatformError>
    /**
     * Reads the file `path` (absolute) as it is now in pieces, opened as `readFile` opens a file, giving each piece to
     * `piece` in order (its bytes are the piece's only during the call) while `piece` answers `true`: a large file is
     * never held whole. `false` when nothing is there.
     */
    readonly readPieces: (
      path: string,
      piece: (bytes: Uint8Array) => boolean
    ) => Effect.Effect<boolean, PlatformError.PlatformError>
    /** The names in the small folder `path` (absolute), as it is now (a scope's folder, the root). */
    readonly readDirectory: (path: string) => Effect.Effect<ReadonlyArray<string>, PlatformError.PlatformError>
  }
>()("@mneme/review/RootFiles") {}

/** `lstatAll` through Effect's `FileSystem` (one `lstat` each, all at once). */
const lstatAllWith =
  (fs: FileSystem.FileSystem) =>
  (paths: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<StatResult>> =>
    Effect.forEach(
      paths,
      (path) =>
        fs.lstat(path).pipe(
          Effect.map((info): Stat => ({
            type: info.type,
            size: Number(info.size),
            mtime: Option.match(info.mtime, { onNone: () => 0, onSome: (date) => date.getTime() }),
            ino: Option.getOrUndefined(info.ino)
          })),
          Effect.catchReason("PlatformError", "NotFound", () => Effect.succeed(undefined)),
          Effect.result
        ),
      { concurrency: "unbounded" }
    )

/** The pieces the double reads a file in (small, so a test's file comes in several). */
const testPieceBytes = 4096

/** A double of the reads: stats and reads through Effect's `FileSystem`, a file in pieces of 4 KiB. */
export const layerTest: Layer.Layer<RootFiles, never, FileSystem.FileSystem> = Layer.effect(
  RootFiles,
  Effect.map(FileSystem.FileSystem, (fs) => ({
    lstatAll: lstatAllWith(fs),
    readFile: (path: string) =>
      Effect.catchReason(fs.readFile(path), "PlatformError", "NotFound", () => Effect.succeed(undefined)),
    readPieces: (path: string, piece: (bytes: Uint8Array) => boolean) =>
      fs.readFile(path).pipe(
        Effect.map((bytes) => {
          for (let at = 0; at < bytes.length && piece(bytes.subarray(at, at + testPieceBytes)); at += testPieceBytes);
          return true
        }),
        Effect.catchReason("PlatformError", "NotFound", () => Effect.succeed(false))
      ),
    readDirectory: (path: string) => fs.readDirectory(path)
  }))
)
