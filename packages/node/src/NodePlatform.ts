/**
 * The platform on Node: this process's id, the machine's host name, whether a process is alive (`kill(pid, 0)`), and
 * SHA-256 from `node:crypto`.
 */
import { Platform } from "@mneme/review"
import { Effect, Layer } from "effect"
import { createHash } from "node:crypto"
import { hostname } from "node:os"

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
  sha256: (text) => createHash("sha256").update(text, "utf8").digest("hex")
}))
