/**
 * What mneme needs of the machine it runs on, behind one small service so that `@mneme/core` and `@mneme/review`
 * import nothing from `node:`: this process's id and host name, whether a process is alive, and SHA-256.
 * `@mneme/node` provides it (`NodePlatform.layer`); `Platform.layerTest` is a double that can pretend to be another
 * process or another host, with the processes it says are alive.
 */
import { Context, Effect, Layer } from "effect"
import { sha256 } from "./internal/sha256.ts"

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

/** A platform double: a process and host of its own, chosen processes alive, and SHA-256 in plain TypeScript. */
export const layerTest = (options: TestOptions = {}): Layer.Layer<Platform> => {
  const processId = options.processId ?? 4242
  const alive = options.alive ?? [processId]
  const isAlive = typeof alive === "function" ? alive : (pid: number) => alive.includes(pid)
  return Layer.succeed(Platform, {
    processId,
    hostName: options.hostName ?? "test-host",
    isAlive: (pid) => Effect.sync(() => isAlive(pid)),
    sha256
  })
}
