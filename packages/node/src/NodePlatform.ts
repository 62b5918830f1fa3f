/**
 * The platform on Node: this process's id, the machine's host name, whether a process is alive (`kill(pid, 0)`),
 * SHA-256 from `node:crypto`, and many `lstat`s at once.
 *
 * The stats are taken synchronously, one after another: for the files of a scope (at most 41 small local files) that
 * is about 0.1 ms, a quarter of what the same stats cost through Node's thread pool. A memory root on a network file
 * system that stops answering would hold up the event loop meanwhile (as it would hold up the thread pool): keep
 * memory on a local disk.
 */
import { Platform } from "@mneme/review"
import { Effect, Layer, PlatformError, Result } from "effect"
import { createHash } from "node:crypto"
import { type BigIntStats, lstatSync } from "node:fs"
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
  code === "EACCES" || code === "EPERM"
    ? "PermissionDenied"
    : code === "EEXIST"
      ? "AlreadyExists"
      : code === "EISDIR" || code === "ENOTDIR" || code === "ELOOP"
        ? "BadResource"
        : code === "EBUSY"
          ? "Busy"
          : "Unknown"

/** The `lstat` of one path, as the platform gives it. */
const statOf = (path: string): Platform.StatResult => {
  const stats = Result.try({
    try: () => lstatSync(path, { bigint: true, throwIfNoEntry: false }),
    catch: (error) => error as NodeJS.ErrnoException
  })
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
  const error = stats.failure
  return Result.fail(
    PlatformError.systemError({
      _tag: reasonOf(error.code),
      module: "FileSystem",
      method: "lstat",
      pathOrDescriptor: path,
      description: error.message,
      syscall: "lstat",
      cause: error
    })
  )
}

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

/** The platform of this Node process. */
export const layer: Layer.Layer<Platform.Platform> = Layer.sync(Platform.Platform, () => ({
  processId: process.pid,
  hostName: hostname(),
  isAlive: (pid) => (Number.isSafeInteger(pid) && pid > 0 ? isAlive(pid) : Effect.succeed(false)),
  sha256: (text) => createHash("sha256").update(text, "utf8").digest("hex"),
  lstatAll
}))
