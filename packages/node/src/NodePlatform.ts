/**
 * The platform on Node: `Platform` (this process's id, the machine's host name, whether a process is alive, by
 * `kill(pid, 0)`) and `RootFiles` (many `lstat`s at once, a small file or folder read whole, a large file in pieces).
 *
 * The stats are taken synchronously, one after another: for the files of a scope (at most 41 small local files) that
 * is about 0.1 ms, a quarter of what the same stats cost through Node's thread pool. A small file (a memory file of at
 * most 16,000 characters, the review state) is read synchronously too, for a few tens of microseconds where Node's
 * thread pool takes four trips (open, stat, read, close); it is opened without following a link and without waiting
 * (a pipe put in its place gives what it holds, never a wait). A small folder (a scope's, at most 41 files and what
 * writers leave, or the root) is listed synchronously as well. A memory root on a network file system that stops
 * answering would hold up the event loop meanwhile (as it would hold up the thread pool): keep memory on a local disk.
 */
import { Platform, RootFiles } from "@mneme/review"
import { Effect, Layer, PlatformError, Result } from "effect"
import {
  type BigIntStats,
  closeSync,
  constants,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync
} from "node:fs"
import { hostname } from "node:os"

/** The kind of file a stat says. */
const typeOf = (stats: BigIntStats) =>
  stats.isFile()
    ? "File"
    : stats.isDirectory()
      ? "Directory"
      : stats.isSymbolicLink()
        ? "SymbolicLink"
        : stats.isBlockDevice()
          ? "BlockDevice"
          : stats.isCharacterDevice()
            ? "CharacterDevice"
            : stats.isFIFO()
              ? "FIFO"
              : stats.isSocket()
                ? "Socket"
                : "Unknown"

/** The platform's kind of failure for a system error code (as Effect's own Node file system names them). */
const reasonOf = (code: string | undefined) =>
  code === "ENOENT"
    ? "NotFound"
    : code === "EACCES" || code === "EPERM"
      ? "PermissionDenied"
      : code === "EEXIST"
        ? "AlreadyExists"
        : code === "EISDIR" || code === "ENOTDIR" || code === "ELOOP"
          ? "BadResource"
          : code === "EBUSY"
            ? "Busy"
            : "Unknown"

/** A system call's failure, as the platform gives it. */
const systemError = (error: NodeJS.ErrnoException, method: string, path: string) =>
  PlatformError.systemError({
    _tag: reasonOf(error.code),
    module: "FileSystem",
    method,
    pathOrDescriptor: path,
    description: error.message,
    syscall: error.syscall ?? method,
    cause: error
  })

/** Runs a system call, its failure as the error it throws. */
const attempt = <A>(call: () => A) => Result.try({ try: call, catch: (error) => error as NodeJS.ErrnoException })

/** The `lstat` of one path, as the platform gives it. */
const statOf = (path: string): RootFiles.StatResult => {
  const stats = attempt(() => lstatSync(path, { bigint: true, throwIfNoEntry: false }))
  if (Result.isSuccess(stats)) {
    const found = stats.success
    return Result.succeed(
      found === undefined
        ? undefined
        : {
            type: typeOf(found),
            size: Number(found.size),
            // In ms, with the fraction the file system keeps (a whole number where it keeps whole ms or seconds).
            mtime: Number(found.mtimeNs / 1_000_000n) + Number(found.mtimeNs % 1_000_000n) / 1e6,
            ino: found.ino
          }
    )
  }
  return Result.fail(systemError(stats.failure, "lstat", path))
}

/** How a small file is opened: to read, never through a link, never waiting (where the system has these). */
const readFlags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0)

/** The bytes of the file `path`, or `undefined` when nothing is there (see the module's comment). */
const readFile = (path: string) =>
  Effect.suspend(() => {
    const opened = attempt(() => openSync(path, readFlags))
    if (Result.isFailure(opened)) {
      return opened.failure.code === "ENOENT"
        ? Effect.succeed(undefined)
        : Effect.fail(systemError(opened.failure, "readFile", path))
    }
    const read = attempt(() => readFileSync(opened.success))
    attempt(() => closeSync(opened.success))
    return Result.isSuccess(read)
      ? Effect.succeed<Uint8Array | undefined>(read.success)
      : Effect.fail(systemError(read.failure, "readFile", path))
  })

/** How many bytes `readPieces` reads at a time. */
const pieceBytes = 1 << 16

/** The file `path` in pieces, while `piece` takes them; `false` when nothing is there (see the module's comment). */
const readPieces = (path: string, piece: (bytes: Uint8Array) => boolean) =>
  Effect.suspend(() => {
    const opened = attempt(() => openSync(path, readFlags))
    if (Result.isFailure(opened)) {
      return opened.failure.code === "ENOENT"
        ? Effect.succeed(false)
        : Effect.fail(systemError(opened.failure, "readFile", path))
    }
    const buffer = Buffer.allocUnsafe(pieceBytes)
    let read = attempt(() => readSync(opened.success, buffer, 0, pieceBytes, null))
    while (Result.isSuccess(read) && read.success > 0 && piece(buffer.subarray(0, read.success))) {
      read = attempt(() => readSync(opened.success, buffer, 0, pieceBytes, null))
    }
    attempt(() => closeSync(opened.success))
    return Result.isSuccess(read) ? Effect.succeed(true) : Effect.fail(systemError(read.failure, "readFile", path))
  })

/** The names in the folder `path` (see the module's comment). */
const readDirectory = (path: string) =>
  Effect.suspend(() => {
    const names = attempt(() => readdirSync(path))
    return Result.isSuccess(names)
      ? Effect.succeed<ReadonlyArray<string>>(names.success)
      : Effect.fail(systemError(names.failure, "readDirectory", path))
  })

/** Every `lstat` in turn (see the module's comment). */
const lstatAll = (paths: ReadonlyArray<string>) => Effect.sync(() => paths.map(statOf))

/** Whether `pid` runs here: signal 0 reaches it, or it exists but belongs to another user (EPERM). */
const isAlive = (pid: number) =>
  Effect.try({
    try: () => process.kill(pid, 0),
    catch: (error) => (error as NodeJS.ErrnoException).code
  }).pipe(
    Effect.as(true),
    Effect.catch((code) => Effect.succeed(code === "EPERM"))
  )

/** The platform of this Node process, and how the files backend reads on Node. */
export const layer: Layer.Layer<Platform.Platform | RootFiles.RootFiles> = Layer.mergeAll(
  Layer.sync(Platform.Platform, () => ({
    processId: process.pid,
    hostName: hostname(),
    isAlive: (pid) => (Number.isSafeInteger(pid) && pid > 0 ? isAlive(pid) : Effect.succeed(false))
  })),
  Layer.succeed(RootFiles.RootFiles, { lstatAll, readFile, readPieces, readDirectory })
)
