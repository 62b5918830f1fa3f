/**
 * One writer per memory root: a semaphore inside the process, and a lock file (`<root>/.lock`, created exclusively,
 * holding its owner's process id, host and time) across processes. A lock whose owner process is gone, or that is
 * older than `staleAfter`, is taken away; a busy lock is tried again on a short schedule.
 */
import { MemoryWriteError } from "@mneme/core"
import { Clock, Data, Duration, Effect, FileSystem, Option, Path, Random, Schedule, Schema, Semaphore } from "effect"
import { hostname } from "node:os"
import { failure, orMissing } from "./files.ts"

const Owner = Schema.fromJsonString(
  Schema.Struct({ pid: Schema.Number, host: Schema.String, time: Schema.Number, token: Schema.String })
)
const decodeOwner = Schema.decodeUnknownOption(Owner)

class Busy extends Data.TaggedError("Busy")<{ readonly holder: string }> {}

/** How long a lock may be held before others take it, and how long a writer waits for one. */
export interface Options {
  readonly staleAfter?: Duration.Input | undefined
  readonly wait?: Duration.Input | undefined
}

/** The writer lock of one root. */
export interface RootLock {
  /** Runs `self` as the only writer of the root (never nest it: the lock is not re-entrant). */
  readonly withLock: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E | MemoryWriteError, R>
}

const errorCode = (error: unknown) =>
  typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined

const alive = (pid: number) =>
  Effect.try({ try: () => process.kill(pid, 0), catch: errorCode }).pipe(
    Effect.as(true),
    Effect.catch((code) => Effect.succeed(code === "EPERM"))
  )

const encoder = new TextEncoder()
const lockName = ".lock"

/** The lock of `root` (an absolute path; created when missing). */
export const make = Effect.fnUntraced(function* (root: string, options: Options = {}) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const semaphore = yield* Semaphore.make(1)
  const staleAfter = Duration.toMillis(Duration.fromInputUnsafe(options.staleAfter ?? "30 seconds"))
  const wait = Duration.fromInputUnsafe(options.wait ?? "60 seconds")
  const lockFile = path.join(root, lockName)
  const host = hostname()

  /**
   * Moves a stale lock aside and deletes it, after checking that what was moved is the lock judged stale (a lock
   * taken meanwhile is put back). What is not a plain file is never a lock of ours, and is not read.
   */
  const takeAway = Effect.fnUntraced(function* (held: string, token: string) {
    const aside = `${lockFile}.${token}.stale`
    const moved = yield* orMissing(fs.rename(lockFile, aside).pipe(Effect.andThen(fs.lstat(aside))))
    if (moved === undefined) return
    if (moved.type !== "File" || (yield* fs.readFileString(aside)) === held) {
      yield* Effect.logWarning(`mneme: removed a stale lock of the memory root ${root}: ${held || "(no owner)"}`)
    } else {
      yield* Effect.ignore(fs.link(aside, lockFile))
    }
    yield* fs.remove(aside, { recursive: true })
  })

  const attempt = Effect.fnUntraced(function* (token: string) {
    const now = yield* Clock.currentTimeMillis
    const created = yield* Effect.scoped(
      Effect.flatMap(fs.open(lockFile, { flag: "wx" }), (handle) =>
        handle.writeAll(encoder.encode(JSON.stringify({ pid: process.pid, host, time: now, token })))
      )
    ).pipe(
      Effect.as(true),
      Effect.catchReason("PlatformError", "AlreadyExists", () => Effect.succeed(false))
    )
    if (created) return
    const info = yield* orMissing(fs.lstat(lockFile))
    if (info === undefined) return yield* new Busy({ holder: "a writer that just left" })
    const held = info.type === "File" ? ((yield* orMissing(fs.readFileString(lockFile))) ?? "") : ""
    const owner = Option.getOrUndefined(decodeOwner(held))
    const since =
      owner?.time ??
      Option.getOrElse(
        Option.map(info.mtime, (date) => date.getTime()),
        () => now
      )
    const gone = owner !== undefined && owner.host === host && !(yield* alive(owner.pid))
    if (gone || now - since > staleAfter) yield* takeAway(held, token)
    return yield* new Busy({
      holder: owner === undefined ? "an unknown writer" : `process ${owner.pid} on ${owner.host}`
    })
  })

  /** Takes the lock for `token`, trying again while it is busy (each try is one uninterrupted step). */
  const acquire = (token: string) =>
    fs.makeDirectory(root, { recursive: true }).pipe(
      Effect.andThen(
        Effect.retry(Effect.uninterruptible(attempt(token)), {
          while: (error) => error._tag === "Busy",
          schedule: Schedule.spaced("2 millis").pipe(Schedule.jittered, Schedule.upTo({ duration: wait }))
        })
      ),
      Effect.catchTag("Busy", (busy) =>
        Effect.fail(
          new MemoryWriteError({
            file: lockName,
            reason: `the memory root is busy: ${busy.holder} has held its lock for over ${Duration.format(wait)}; if no writer is running, delete ${lockFile}`
          })
        )
      ),
      Effect.catchTag("PlatformError", (error) => Effect.fail(failure(lockName, "take the lock")(error)))
    )

  /** Removes the lock if it is still the one `token` took; `held` says whether it should be (else it is quiet). */
  const release = (token: string, held: boolean) =>
    orMissing(fs.readFileString(lockFile)).pipe(
      Effect.flatMap((content) =>
        content !== undefined && Option.getOrUndefined(decodeOwner(content))?.token === token
          ? fs.remove(lockFile)
          : held
            ? Effect.logWarning(`mneme: the lock of the memory root ${root} was taken away while held`)
            : Effect.void
      ),
      Effect.catch((error) => Effect.logWarning(`mneme: could not release the lock of ${root}: ${error.message}`))
    )

  /** Waiting for the lock can be interrupted (a lock taken just then is given back); `self` runs as given. */
  const withLock = <A, E, R>(self: Effect.Effect<A, E, R>) =>
    semaphore.withPermit(
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function* () {
          const token = (yield* Random.nextIntBetween(0, 2 ** 48)).toString(36)
          yield* restore(acquire(token)).pipe(Effect.onInterrupt(() => release(token, false)))
          return yield* restore(self).pipe(Effect.ensuring(release(token, true)))
        })
      )
    )

  return { withLock } satisfies RootLock
})
