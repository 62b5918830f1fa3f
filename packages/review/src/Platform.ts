/**
 * What differs between the machines mneme runs on, behind one small service so that `@mneme/core` and `@mneme/review`
 * import nothing from `node:`: this process's id and host name, and whether a process is alive (how the writer lock
 * knows its holder is gone). How the files backend reads a memory folder is `RootFiles`.
 * `@mneme/node` provides both (`NodePlatform.layer`); `Platform.layerTest` is a double that can pretend to be another
 * process or another host, with the processes it says are alive, and provides with it `RootFiles.layerTest` (reads
 * through Effect's `FileSystem`), so that a test wires the machine with one layer as a host does.
 * Also the platform's failures in words (`describeFailure`).
 */
import { Context, Effect, type FileSystem, Layer, type PlatformError } from "effect"
import * as RootFiles from "./RootFiles.ts"

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
  }
>()("@mneme/review/Platform") {}

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
 * A platform double: a process and host of its own and chosen processes alive, with the reads of `RootFiles.layerTest`
 * (through Effect's `FileSystem`).
 */
export const layerTest = (
  options: TestOptions = {}
): Layer.Layer<Platform | RootFiles.RootFiles, never, FileSystem.FileSystem> => {
  const processId = options.processId ?? 4242
  const alive = options.alive ?? [processId]
  const isAlive = typeof alive === "function" ? alive : (pid: number) => alive.includes(pid)
  return Layer.merge(
    Layer.succeed(Platform, {
      processId,
      hostName: options.hostName ?? "test-host",
      isAlive: (pid: number) => Effect.sync(() => isAlive(pid))
    }),
    RootFiles.layerTest
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
