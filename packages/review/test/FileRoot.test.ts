/**
 * The writer lock of the files backend (`FileRoot.layer`): when a lock is taken from its holder (only when the holder
 * is provably gone), how a busy lock is waited for and reported, the roots and locks that fail at once, the holder's
 * lease, and the leftovers cleaned under the lock. The waits run on the test clock, moved only while every writer
 * sleeps on it, so each run takes the same steps.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import type { StorageError } from "@mneme/core"
import { MemoryRoot } from "@mneme/review"
import { Cause, Clock, Deferred, Effect, Exit, Fiber, FileSystem, Path } from "effect"
import { TestClock } from "effect/testing"
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { hostname } from "node:os"
import { failingServices, listing, tempRoot, warnings } from "./fixtures/kit.ts"
import { rootLayer, type StoreOptions } from "./fixtures/store.ts"

/** When the other writers in these tests took their locks. */
const since = Date.UTC(2026, 0, 2, 3, 4, 5)
const sinceIso = "2026-01-02T03:04:05.000Z"

/** A change to the team's MEMORY.md, journaled. */
const commit = (writer: MemoryRoot.Writer, text: string) =>
  writer.commit(
    [{ file: "team/MEMORY.md", content: `- ${text}\n` }],
    [{ op: "add", scope: "team", file: "team/MEMORY.md", actor: "t", after: `- ${text}` }]
  )

/** Writes `text` as the team's memory through the port over `root` (a new instance, as another writer would be). */
const add = (root: string, text: string, options: StoreOptions = {}) =>
  MemoryRoot.MemoryRoot.use((port) => port.write((writer) => commit(writer, text))).pipe(
    Effect.provide(rootLayer(root, options))
  )

const lockOf = (root: string) => Effect.map(Path.Path, (path) => path.join(root, ".lock"))

/** Puts a lock into `root` as another writer would have left it: an owner, or any text. */
const writeLock = (root: string, owner: Record<string, unknown> | string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const content = typeof owner === "string" ? owner : JSON.stringify(owner)
    yield* fs.writeFileString(yield* lockOf(root), content)
    return content
  })

const readLock = (root: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => Effect.flatMap(lockOf(root), (lock) => fs.readFileString(lock)))

const memoryOf = (root: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(`${root}/team/MEMORY.md`))

/** Nothing of a lock is left in the root: no lock, no lock set aside. */
const noLockLeft = (root: string) =>
  Effect.map(listing(root), (names) =>
    assert.deepStrictEqual(
      names.filter((name) => name.startsWith(".lock")),
      []
    )
  )

/** The test clock with a count of the writers asleep on it. */
interface Sleepers {
  readonly asleep: () => number
  /** Runs `self` on the counting clock. */
  readonly counted: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

const sleepers: Effect.Effect<Sleepers> = Effect.map(Clock.clockWith(Effect.succeed), (clock) => {
  let asleep = 0
  const counting: Clock.Clock = {
    ...clock,
    sleep: (duration) =>
      Effect.suspend(() => {
        asleep++
        return Effect.ensuring(
          clock.sleep(duration),
          Effect.sync(() => {
            asleep--
          })
        )
      })
  }
  return {
    asleep: () => asleep,
    counted: (self) => Effect.provideService(self, Clock.Clock, counting)
  }
})

const isDone = (fiber: Fiber.Fiber<unknown, unknown>) => () => fiber.pollUnsafe() !== undefined

/** Waits (in real time, for the file system) until `count` writers sleep on the clock or `done` holds. */
const settle = (clock: Sleepers, count: number, done: () => boolean) =>
  Effect.gen(function* () {
    for (let tries = 0; !done() && clock.asleep() < count; tries++) {
      if (tries > 10_000) return yield* Effect.die(`${clock.asleep()} of ${count} writers sleep, the rest never did`)
      yield* TestClock.withLive(Effect.sleep("1 millis"))
    }
  })

/** The step the clock moves by. */
const step = 10

/** Moves the clock on by `millis`, a step at a time, each once `count` writers sleep on it; stops early at `done`. */
const advance = (clock: Sleepers, millis: number, count = 1, done: () => boolean = () => false) =>
  Effect.gen(function* () {
    for (let moved = 0; moved < millis; moved += step) {
      yield* settle(clock, count, done)
      if (done()) return
      yield* TestClock.adjust(step)
    }
  })

/** Moves the clock on until `fiber` is done (at most a minute of the clock), and joins it. */
const runOut = <A, E>(clock: Sleepers, fiber: Fiber.Fiber<A, E>, count = 1) =>
  Effect.andThen(advance(clock, 60_000, count, isDone(fiber)), Fiber.join(fiber))

/** Runs `self` with the clock standing still: it ends only if it never waits (else a `TimeoutError` after 10 s). */
const atOnce = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.forkChild(self), (fiber) => TestClock.withLive(Effect.timeout(Fiber.join(fiber), "10 seconds")))

/** Whether a process runs here, as `NodePlatform` tells. */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** The id of a process that has ended. */
const endedPid = Effect.callback<number>((resume) => {
  const child = execFile(process.execPath, ["-e", ""], () => resume(Effect.succeed(child.pid ?? 0)))
})

/** A process that runs until the test's scope closes. */
const runningChild = Effect.acquireRelease(
  Effect.callback<ChildProcess>((resume) => {
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" })
    child.once("spawn", () => resume(Effect.succeed(child)))
  }),
  (child) => Effect.sync(() => child.kill())
)

describe("a lock is taken from its holder only when the holder is provably gone", () => {
  it.effect("a lock of a process that no longer runs on this host is taken at once", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      for (const owner of [
        { version: 1, pid: 777, host: "test-host", since, token: "theirs" },
        // The first release's lock, with `time` for `since`.
        { pid: 778, host: "test-host", time: since, token: "old" }
      ]) {
        const content = yield* writeLock(root, owner)
        const logged = warnings()
        yield* atOnce(add(root, `after ${owner.pid}`).pipe(Effect.provide(logged.layer)))
        assert.deepStrictEqual(logged.lines, [`mneme: removed a stale lock of the memory root ${root}: ${content}`])
        assert.strictEqual(yield* memoryOf(root), `- after ${owner.pid}\n`)
        yield* noLockLeft(root)
      }
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.live("with the real processes: an ended process's lock is taken; a running process's lock is not", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const platform = { processId: process.pid, hostName: hostname(), alive }
      yield* writeLock(root, {
        version: 1,
        pid: yield* endedPid,
        host: hostname(),
        since,
        token: "theirs"
      })
      yield* add(root, "after a crash", { platform, lock: { wait: "0 seconds" } })
      yield* noLockLeft(root)

      // Any process of the lock's id may be its holder (or one that reused its id): its lock is waited for.
      const child = yield* runningChild
      const running = yield* writeLock(root, { version: 1, pid: child.pid, host: hostname(), since, token: "theirs" })
      const error = yield* Effect.flip(add(root, "blocked", { platform, lock: { wait: "0 seconds" } }))
      assert.strictEqual(error._tag, "StorageError")
      assert.strictEqual(error.reason._tag, "Busy")
      assert.strictEqual(
        error.message,
        `the memory root is busy: process ${child.pid} on ${hostname()} (since ${sinceIso}) holds its lock ${yield* lockOf(root)}, waited 0 s; if no writer is running, delete the lock`
      )
      assert.strictEqual(yield* readLock(root), running)
      assert.strictEqual(yield* memoryOf(root), "- after a crash\n")
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.effect("a lock of a live process, or of another host, is waited for up to `wait`, then fails with Busy", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* add(root, "before")
      for (const owner of [
        { version: 1, pid: 777, host: "test-host", since, token: "theirs" },
        { pid: 777, host: "elsewhere", time: since, token: "old" }
      ]) {
        const content = yield* writeLock(root, owner)
        const clock = yield* sleepers
        const options: StoreOptions = { platform: { alive: [4242, 777] }, lock: { wait: "2 seconds" } }
        const waiting = yield* Effect.forkChild(clock.counted(add(root, "blocked", options)))
        yield* advance(clock, 1_900)
        assert.isUndefined(waiting.pollUnsafe())
        const error = yield* Effect.flip(runOut(clock, waiting))
        assert.strictEqual(error._tag, "StorageError")
        assert.strictEqual(error.reason._tag, "Busy")
        assert.strictEqual(
          error.message,
          `the memory root is busy: process 777 on ${owner.host} (since ${sinceIso}) holds its lock ${yield* lockOf(root)}, waited 2 s; if no writer is running, delete the lock`
        )
        assert.strictEqual(yield* readLock(root), content)
        assert.strictEqual(yield* memoryOf(root), "- before\n")
        assert.deepStrictEqual(yield* listing(root), [".lock", "journal.jsonl", "team", "team/MEMORY.md"])
        yield* Effect.flatMap(FileSystem.FileSystem, (fs) => fs.remove(`${root}/.lock`))
      }
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.effect("a lock whose lease is not renewed is taken once the lease has run out, whoever holds it", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      for (const owner of [
        { version: 1, pid: 9, host: "elsewhere", since, token: "theirs" },
        { version: 1, pid: 777, host: "test-host", since, token: "hung" }
      ]) {
        const content = yield* writeLock(root, owner)
        const clock = yield* sleepers
        const options: StoreOptions = {
          platform: { alive: [4242, 777] },
          lock: { wait: "10 seconds", lease: "3 seconds" }
        }
        const logged = warnings()
        const waiting = yield* Effect.forkChild(
          clock.counted(add(root, `after ${owner.token}`, options).pipe(Effect.provide(logged.layer)))
        )
        yield* advance(clock, 2_900)
        assert.isUndefined(waiting.pollUnsafe())
        assert.strictEqual(yield* readLock(root), content)
        yield* runOut(clock, waiting)
        assert.deepStrictEqual(logged.lines, [`mneme: removed a stale lock of the memory root ${root}: ${content}`])
        assert.strictEqual(yield* memoryOf(root), `- after ${owner.token}\n`)
        yield* noLockLeft(root)
      }
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.effect("an empty lock (its writer killed before filling it) is taken once it has stayed empty for a second", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* writeLock(root, "")
      const short = yield* sleepers
      const refused = yield* Effect.forkChild(short.counted(add(root, "x", { lock: { wait: "500 millis" } })))
      const error = yield* Effect.flip(runOut(short, refused))
      assert.strictEqual(error._tag, "StorageError")
      assert.strictEqual(error.reason._tag, "Busy")
      assert.strictEqual(
        error.message,
        `the memory root is busy: an unknown writer holds its lock ${yield* lockOf(root)}, waited 1 s; if no writer is running, delete the lock`
      )
      assert.strictEqual(yield* readLock(root), "")

      const clock = yield* sleepers
      const logged = warnings()
      const waiting = yield* Effect.forkChild(clock.counted(add(root, "after").pipe(Effect.provide(logged.layer))))
      yield* advance(clock, 900)
      assert.isUndefined(waiting.pollUnsafe())
      assert.strictEqual(yield* readLock(root), "")
      yield* runOut(clock, waiting)
      assert.deepStrictEqual(logged.lines, [`mneme: removed a stale lock of the memory root ${root}: (no owner in it)`])
      assert.strictEqual(yield* memoryOf(root), "- after\n")
      yield* noLockLeft(root)
    }).pipe(Effect.provide(NodeServices.layer))
  )
})

describe("a root or a lock that cannot be used fails at once, naming it and why", () => {
  it.effect("a root that cannot be made, is not a folder, or where the lock cannot be made", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* tempRoot
      yield* fs.writeFileString(`${root}/file`, "x")
      yield* fs.makeDirectory(`${root}/unlockable`)
      const cases: Array<
        readonly [Effect.Effect<unknown, StorageError, FileSystem.FileSystem | Path.Path>, string, string]
      > = [
        [add(`${root}/file`, "x"), "NotAFolder", `${root}/file is not a folder`],
        [
          add(`${root}/file/below`, "x"),
          "RootUnusable",
          `the memory root ${root}/file/below cannot be used: its folder cannot be made: ${root}/file is not a folder`
        ],
        [
          add(`${root}/unlockable`, "x").pipe(
            Effect.provide(
              failingServices((call, path) => call === "writeFile" && path.startsWith(`${root}/unlockable/.lock.`))
            )
          ),
          "RootUnusable",
          `the memory root ${root}/unlockable cannot be used: its lock ${root}/unlockable/.lock cannot be made: Unknown: injected failure`
        ]
      ]
      if (existsSync("/proc/self")) {
        cases.push([
          add("/proc/nope", "x"),
          "RootUnusable",
          "the memory root /proc/nope cannot be used: its folder cannot be made: no such file or folder"
        ])
      }
      for (const [attempt, reason, message] of cases) {
        const error = yield* atOnce(Effect.flip(attempt))
        assert.strictEqual(error._tag, "StorageError")
        assert.strictEqual(error.reason._tag, reason)
        assert.strictEqual(error.message, message)
      }
      assert.deepStrictEqual(yield* listing(root), ["file", "unlockable"])
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.effect("a lock that is a folder is not waited for", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* tempRoot
      yield* fs.makeDirectory(`${root}/.lock`)
      const error = yield* atOnce(Effect.flip(add(root, "x")))
      assert.strictEqual(error._tag, "StorageError")
      assert.strictEqual(error.reason._tag, "RootUnusable")
      assert.strictEqual(
        error.message,
        `the memory root ${root} cannot be used: ${root}/.lock is a folder, not a lock file: remove it`
      )
      assert.deepStrictEqual(yield* listing(root), [".lock"])
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.effect("a lock that is a link out of the root is never read, and the link and its target are left alone", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* tempRoot
      const outside = yield* tempRoot
      const target = `${outside}/precious.json`
      // Read, it would be a lock of an ended process, and taken away.
      const precious = JSON.stringify({ version: 1, pid: 777, host: "test-host", since, token: "x" })
      yield* fs.writeFileString(target, precious)
      yield* fs.symlink(target, `${root}/.lock`)
      const logged = warnings()
      const error = yield* atOnce(Effect.flip(add(root, "x").pipe(Effect.provide(logged.layer))))
      assert.strictEqual(error._tag, "StorageError")
      assert.strictEqual(error.reason._tag, "RootUnusable")
      assert.strictEqual(
        error.message,
        `the memory root ${root} cannot be used: ${root}/.lock is a symbolic link, not a lock file: remove it`
      )
      assert.deepStrictEqual(logged.lines, [])
      assert.strictEqual(yield* fs.readLink(`${root}/.lock`), target)
      assert.strictEqual(yield* fs.readFileString(target), precious)
      assert.deepStrictEqual(yield* listing(outside), ["precious.json"])
      assert.deepStrictEqual(yield* listing(root), [".lock"])
    }).pipe(Effect.provide(NodeServices.layer))
  )
})

describe("waiting for a busy lock", () => {
  const holder = { version: 1, pid: 777, host: "test-host", since, token: "theirs" }
  const options: StoreOptions = { platform: { alive: [4242, 777] }, lock: { wait: "10 seconds" } }

  it.effect("a waiter goes on as soon as the lock is released", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* tempRoot
      yield* writeLock(root, holder)
      const clock = yield* sleepers
      // The waiter's lock, as it took it: `since` is the time of its clock when it did.
      const taking = MemoryRoot.MemoryRoot.use((port) =>
        port.write((writer) => Effect.flatMap(readLock(root), (lock) => Effect.as(commit(writer, "waited"), lock)))
      ).pipe(Effect.provide(rootLayer(root, options)))
      const waiting = yield* Effect.forkChild(clock.counted(taking))
      yield* advance(clock, 3_000)
      assert.isUndefined(waiting.pollUnsafe())
      yield* settle(clock, 1, isDone(waiting))
      yield* fs.remove(yield* lockOf(root))
      const released = yield* Clock.currentTimeMillis
      const taken = JSON.parse(yield* runOut(clock, waiting)) as { readonly since: number }
      // A waiter looks again at least every 200 ms of its clock.
      assert.isAtMost(taken.since - released, 200)
      assert.strictEqual(yield* memoryOf(root), "- waited\n")
      yield* noLockLeft(root)
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.effect("a waiter can be interrupted, leaving the other's lock and the memory alone", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* add(root, "before")
      const content = yield* writeLock(root, holder)
      const before = yield* listing(root)
      const clock = yield* sleepers
      const waiting = yield* Effect.forkChild(clock.counted(add(root, "never", options)))
      yield* advance(clock, 1_000)
      assert.isUndefined(waiting.pollUnsafe())
      yield* Fiber.interrupt(waiting)
      assert.isTrue(Exit.hasInterrupts(yield* Fiber.await(waiting)))
      assert.strictEqual(yield* readLock(root), content)
      assert.strictEqual(yield* memoryOf(root), "- before\n")
      assert.deepStrictEqual(yield* listing(root), before)
    }).pipe(Effect.provide(NodeServices.layer))
  )
})

describe("holding the lock", () => {
  it.effect("the holder renews its lease: a hold longer than the lease is waited for, never taken", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const clock = yield* sleepers
      const lease = "3 seconds"
      const logged = warnings()
      const go = yield* Deferred.make<void>()
      const holding = yield* Effect.forkChild(
        clock.counted(
          MemoryRoot.MemoryRoot.use((port) =>
            port.write((writer) => Effect.andThen(Deferred.await(go), commit(writer, "held long")))
          ).pipe(
            Effect.provide(rootLayer(root, { platform: { processId: 1, hostName: "a-host" }, lock: { lease } })),
            Effect.provide(logged.layer)
          )
        )
      )
      // The holder's renewal sleeps once it holds the lock.
      yield* settle(clock, 1, isDone(holding))
      const held = yield* readLock(root)
      const waiting = yield* Effect.forkChild(
        clock.counted(
          add(root, "waited", {
            platform: { processId: 2, hostName: "b-host" },
            lock: { wait: "8 seconds", lease }
          }).pipe(Effect.provide(logged.layer))
        )
      )
      const error = yield* Effect.flip(runOut(clock, waiting, 2))
      assert.strictEqual(error._tag, "StorageError")
      assert.strictEqual(error.reason._tag, "Busy")
      assert.strictEqual(
        error.message,
        `the memory root is busy: process 1 on a-host (since 1970-01-01T00:00:00.000Z) holds its lock ${yield* lockOf(root)}, waited 8 s; if no writer is running, delete the lock`
      )
      assert.strictEqual(yield* readLock(root), held)
      assert.isUndefined(holding.pollUnsafe())
      yield* Deferred.succeed(go, undefined)
      yield* runOut(clock, holding)
      assert.strictEqual(yield* memoryOf(root), "- held long\n")
      assert.deepStrictEqual(logged.lines, [])
      yield* noLockLeft(root)
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.effect("a holder whose lock was taken away changes nothing, leaves the other's lock, and says so", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const logged = warnings()
      const other = { version: 1, pid: 9, host: "elsewhere", since, token: "theirs" }
      const error = yield* Effect.flip(
        MemoryRoot.MemoryRoot.use((port) =>
          port.write((writer) => Effect.andThen(writeLock(root, other), commit(writer, "late")))
        ).pipe(Effect.provide(rootLayer(root)), Effect.provide(logged.layer))
      )
      assert.strictEqual(error._tag, "StorageError")
      assert.strictEqual(error.reason._tag, "Busy")
      assert.strictEqual(
        error.message,
        `the memory root is busy: process 9 on elsewhere (since ${sinceIso}) holds its lock ${yield* lockOf(root)}, waited 0 s; if no writer is running, delete the lock`
      )
      assert.strictEqual(yield* readLock(root), JSON.stringify(other))
      assert.deepStrictEqual(yield* listing(root), [".lock"])
      assert.deepStrictEqual(logged.lines, [`mneme: the lock of the memory root ${root} was taken away while held`])
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.effect("the lock is released after an operation fails inside it, or dies", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* tempRoot
      const write = <A, E>(body: (writer: MemoryRoot.Writer) => Effect.Effect<A, E>) =>
        MemoryRoot.MemoryRoot.use((port) => port.write(body)).pipe(Effect.provide(rootLayer(root)))
      // A writer that finds the lock still there fails at once.
      const free: StoreOptions = { lock: { wait: "0 seconds" } }

      assert.strictEqual(yield* Effect.flip(write(() => Effect.fail("boom" as const))), "boom")
      yield* noLockLeft(root)
      yield* add(root, "after a failure", free)

      const died = yield* Effect.exit(write(() => Effect.die("crash")))
      assert.isTrue(Exit.isFailure(died) && Cause.hasDies(died.cause))
      yield* noLockLeft(root)
      yield* add(root, "after a defect", free)

      yield* fs.makeDirectory(`${root}/team/notes.md`)
      const error = yield* Effect.flip(
        write((writer) =>
          writer.commit(
            [{ file: "team/notes.md", content: "- x\n" }],
            [{ op: "add", scope: "team", file: "team/notes.md", actor: "t", after: "- x" }]
          )
        )
      )
      assert.strictEqual(error._tag, "StorageError")
      assert.strictEqual(error.reason._tag, "WriteFailed")
      assert.strictEqual(
        error.message,
        "team/notes.md: could not write it (nothing was changed): it is a folder, not a file"
      )
      yield* noLockLeft(root)
      yield* add(root, "after a failed commit", free)
      assert.strictEqual(yield* memoryOf(root), "- after a failed commit\n")

      const failedState = yield* Effect.exit(
        MemoryRoot.MemoryRoot.use((port) =>
          port.updateState(() => {
            throw new Error("a bad change")
          })
        ).pipe(Effect.provide(rootLayer(root)))
      )
      assert.isTrue(Exit.isFailure(failedState) && Cause.hasDies(failedState.cause))
      yield* noLockLeft(root)
      yield* add(root, "after a failed state change", free)
    }).pipe(Effect.provide(NodeServices.layer))
  )
})

describe("a root given as a link", () => {
  it.effect("is followed where it leads now: a link pointed elsewhere between two writes is seen", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const base = yield* tempRoot
      yield* fs.makeDirectory(`${base}/first`)
      yield* fs.makeDirectory(`${base}/second`)
      yield* fs.symlink(`${base}/first`, `${base}/root`)
      const texts = yield* Effect.gen(function* () {
        const port = yield* MemoryRoot.MemoryRoot
        const team = () =>
          Effect.map(port.read({ kind: "team" }), (scope) => scope.files[0]!.parsed.entries.map((entry) => entry.text))
        yield* port.write((writer) => commit(writer, "in the first"))
        const first = yield* team()
        // The link is made again, to the second folder (empty), between two operations of the same writer.
        yield* fs.remove(`${base}/root`)
        yield* fs.symlink(`${base}/second`, `${base}/root`)
        const moved = yield* team()
        yield* port.write((writer) => commit(writer, "in the second"))
        return { first, moved, second: yield* team() }
      }).pipe(Effect.provide(rootLayer(`${base}/root`)))
      assert.deepStrictEqual(texts, { first: ["in the first"], moved: [], second: ["in the second"] })
      assert.strictEqual(yield* fs.readFileString(`${base}/first/team/MEMORY.md`), "- in the first\n")
      assert.strictEqual(yield* fs.readFileString(`${base}/second/team/MEMORY.md`), "- in the second\n")
    }).pipe(Effect.provide(NodeServices.layer))
  )
})

describe("a lock that cannot be written", () => {
  it.effect("fails the change before anything is written, naming the lock and why, and leaves no lock", () =>
    Effect.gen(function* () {
      const path = yield* Path.Path
      const root = yield* tempRoot
      yield* add(root, "before")
      const before = yield* listing(root)
      const failing = failingServices((call, file) => call === "writeFile" && path.basename(file).startsWith(".lock."))
      const logged = warnings()
      const error = yield* Effect.flip(add(root, "after").pipe(Effect.provide(failing), Effect.provide(logged.layer)))
      assert.strictEqual(error._tag, "StorageError")
      assert.strictEqual(error.reason._tag, "RootUnusable")
      assert.strictEqual(
        error.message,
        `the memory root ${root} cannot be used: its lock ${yield* lockOf(root)} cannot be made: Unknown: injected failure`
      )
      assert.strictEqual(yield* memoryOf(root), "- before\n")
      assert.deepStrictEqual(yield* listing(root), before)
      assert.deepStrictEqual(logged.lines, [])
    }).pipe(Effect.provide(NodeServices.layer))
  )
})

describe("leftovers of killed writers are cleaned under the lock once abandoned", () => {
  it.effect("temporary files and set-aside locks of gone writers go; a live writer's and unknown files stay", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* tempRoot
      yield* fs.makeDirectory(`${root}/team`)
      const hourAgo = new Date(Date.now() - 3_600_000)
      const names = {
        gone: [
          ".reviewed.json.777@test-host.a1.tmp",
          ".journal.jsonl.4242@test-host.a2.tmp",
          ".lock.777@test-host.t1.stale",
          "team/.MEMORY.md.777@test-host.b1.tmp"
        ],
        old: [".reviewed.json.9@elsewhere.a4.tmp", ".lock.9@elsewhere.t2.stale", "team/.ops.md.9@elsewhere.b3.tmp"],
        kept: [
          ".reviewed.json.555@test-host.a3.tmp",
          ".reviewed.json.9@elsewhere.a5.tmp",
          "team/.MEMORY.md.555@test-host.b2.tmp",
          ".notes.tmp",
          "notes.777@test-host.c1.tmp"
        ]
      }
      for (const name of [...names.gone, ...names.old, ...names.kept]) yield* fs.writeFileString(`${root}/${name}`, "x")
      for (const name of names.old) yield* fs.utimes(`${root}/${name}`, hourAgo, hourAgo)
      yield* MemoryRoot.MemoryRoot.use((port) =>
        port.write((writer) => Effect.andThen(writer.read({ kind: "team" }), commit(writer, "clean")))
      ).pipe(Effect.provide(rootLayer(root, { platform: { alive: [4242, 555] } })))
      assert.deepStrictEqual(yield* listing(root), [...names.kept, "journal.jsonl", "team", "team/MEMORY.md"].sort())
    }).pipe(Effect.provide(NodeServices.layer))
  )
})
