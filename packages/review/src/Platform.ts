/**
 * What mneme needs of the machine it runs on, behind one small service so that `@mneme/core` and `@mneme/review`
 * import nothing from `node:`: this process's id and host name, whether a process is alive, and SHA-256.
 * `@mneme/node` provides it (`NodePlatform.layer`); the test kit has a double that can pretend to be another host.
 */
import { Context, type Effect } from "effect"

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
