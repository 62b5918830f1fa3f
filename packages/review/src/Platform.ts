/**
 * What mneme needs of the machine it runs on, behind one small service so that `@mneme/core` and `@mneme/review`
 * import nothing from `node:`: this process's id and host name, whether a process is alive, SHA-256, the `lstat` of
 * many files at once (how the files backend sees that a scope is unchanged, for the price of its stats), and reading
 * a small file whole (a memory file, the review state) or a small folder's names.
 * `@mneme/node` provides it (`NodePlatform.layer`); `Platform.layerTest` is a double that can pretend to be another
 * process or another host, with the processes it says are alive, and stats files through Effect's `FileSystem`.
 */
import { Context, Effect, FileSystem, Layer, Option, PlatformError, Result } from "effect"
import { sha256 } from "./internal/sha256.ts"

/** What `lstat` says of a path that is there: its kind, its size in bytes, its change time (epoch ms), its inode. */
export interface Stat {
  readonly type: FileSystem.File.Type
  readonly size: number
  readonly mtime: number
  readonly ino: bigint | undefined
}

/** The `lstat` of one path: its stat, `undefined` when nothing is there, or why it could not be looked at. */
export type StatResult = Result.Result<Stat | undefined, PlatformError.PlatformError>

/** The machine mneme runs on. */
export class Platform extends Context.Service<
  Platform,
  {
    /** This process's id. */
    readonly processId: number
    /** This machine's host name. */
    readonly hostName: string
    /** Whether a process with this id runs on this machine (a process of another user counts as alive). */
    readonly isAlive: (pid: number) => Effect.Effect<boolean>
    /** The SHA-256 of the UTF-8 bytes of `text`, as 64 lower-case hex digits. */
    readonly sha256: (text: string) => string
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
>()("@mneme/review/Platform") {}

/** `lstatAll` through Effect's `FileSystem` (one `lstat` each, all at once). */
export const lstatAllWith =
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

/** What the double pretends. */
export interface TestOptions {
  /** Its process id (default 4242). */
  readonly processId?: number | undefined
  /** Its host name (default `test-host`). */
  readonly hostName?: string | undefined
  /** The processes alive on its host: these ids, or those `alive` holds for (default: its own process only). */
  readonly alive?: ReadonlyArray<number> | ((pid: number) => boolean) | undefined
}

/**
 * A platform double: a process and host of its own, chosen processes alive, SHA-256 in plain TypeScript, and stats
 * and reads through Effect's `FileSystem`.
 */
export const layerTest = (options: TestOptions = {}): Layer.Layer<Platform, never, FileSystem.FileSystem> => {
  const processId = options.processId ?? 4242
  const alive = options.alive ?? [processId]
  const isAlive = typeof alive === "function" ? alive : (pid: number) => alive.includes(pid)
  return Layer.effect(
    Platform,
    Effect.map(FileSystem.FileSystem, (fs) => ({
      processId,
      hostName: options.hostName ?? "test-host",
      isAlive: (pid: number) => Effect.sync(() => isAlive(pid)),
      sha256,
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
}

/** The system's error codes, in words. */
const codeWords: Readonly<Record<string, string>> = {
  ENOENT: "no such file or folder",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EROFS: "the file system is read-only",
  ENOSPC: "no space is left on the device",
  EDQUOT: "the disk quota is used up",
  EISDIR: "it is a folder, not a file",
  ENOTDIR: "a part of the path is a file, not a folder",
  EEXIST: "something of that name is already there",
  ELOOP: "too many links on the way",
  ENAMETOOLONG: "the name is too long",
  EMFILE: "too many files are open",
  ENXIO: "it is not a file that can be read (a socket or a device without a reader)",
  EIO: "an input/output error",
  EBUSY: "it is busy"
}

/** The platform's kinds of failure, in words, for a failure without a known code. */
const tagWords: Readonly<Record<string, string>> = {
  AlreadyExists: "something of that name is already there",
  BadResource: "it cannot be used here",
  Busy: "it is busy",
  InvalidData: "it holds data that cannot be read",
  NotFound: "no such file or folder",
  PermissionDenied: "permission denied",
  TimedOut: "it timed out",
  UnexpectedEof: "it ended too early",
  WouldBlock: "it is not ready",
  WriteZero: "nothing could be written"
}

/** The system's code of a platform failure (`ENOENT`, `EISDIR`…), where it gives one. */
export const failureCode = (error: PlatformError.PlatformError): string | undefined => {
  const cause = error.reason.cause
  return typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : undefined
}

/** What a platform failure means, in words a person can act on, without its path (the system's own as a last resort). */
export const describeFailure = (error: PlatformError.PlatformError): string => {
  const code = failureCode(error)
  if (code !== undefined && codeWords[code] !== undefined) return codeWords[code]
  const reason = error.reason
  if (reason._tag === "BadArgument") return reason.description ?? "a value the system does not take"
  return tagWords[reason._tag] ?? `${reason._tag}${reason.description === undefined ? "" : `: ${reason.description}`}`
}
