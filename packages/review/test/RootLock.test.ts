import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Cursors, MemoryStore } from "@mneme/review"
import { Clock, type Duration, Effect, Fiber, FileSystem, Path } from "effect"
import { execFile } from "node:child_process"
import { lutimesSync } from "node:fs"
import { hostname } from "node:os"
import { listing, tempRoot, warnings } from "./fixtures/kit.ts"

const team = { kind: "team" } as const

const add = (root: string, text: string, wait: Duration.Input = "5 seconds") =>
  MemoryStore.MemoryStore.use((store) => store.add({ scope: team, text, actor: "t" })).pipe(
    Effect.provide(MemoryStore.layer({ root, lock: { wait } }))
  )

const lockFile = (root: string) => Effect.map(Path.Path, (path) => path.join(root, ".lock"))

const writeLock = (root: string, owner: { pid: number; host: string; time: number } | string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const content = typeof owner === "string" ? owner : JSON.stringify({ ...owner, token: "theirs" })
    yield* fs.writeFileString(yield* lockFile(root), content)
    return content
  })

/** The id of a process that has ended. */
const deadPid = Effect.callback<number>((resume) => {
  const child = execFile(process.execPath, ["-e", ""], () => resume(Effect.succeed(child.pid ?? 0)))
})

/** Nothing of the lock is left in the root. */
const noLockLeft = (root: string) =>
  Effect.map(listing(root), (names) =>
    assert.deepStrictEqual(
      names.filter((name) => name.startsWith(".lock")),
      []
    )
  )

describe("the writer lock", () => {
  it.live("a lock left by a process that has ended is taken away at once, with a warning", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const held = yield* writeLock(root, {
        pid: yield* deadPid,
        host: hostname(),
        time: yield* Clock.currentTimeMillis
      })
      const logged = warnings()
      const outcome = yield* add(root, "after a crash", "1 second").pipe(Effect.provide(logged.layer))
      assert.isTrue(outcome.changed)
      assert.deepStrictEqual(logged.lines, [`mneme: removed a stale lock of the memory root ${root}: ${held}`])
      yield* noLockLeft(root)
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.live("a lock older than the stale age is taken away even when its process lives", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const now = yield* Clock.currentTimeMillis
      yield* writeLock(root, { pid: process.pid, host: hostname(), time: now - 31_000 })
      assert.isTrue((yield* add(root, "after a hang", "1 second")).changed)
      yield* noLockLeft(root)
      yield* writeLock(root, { pid: process.pid, host: "another-host", time: now - 31_000 })
      assert.isTrue((yield* add(root, "after another host", "1 second")).changed)
      yield* noLockLeft(root)
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.live("a fresh lock of a live writer is waited for, and past the wait is a MemoryWriteError", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* tempRoot
      yield* add(root, "before")
      const memory = yield* fs.readFileString(`${root}/team/MEMORY.md`)
      for (const host of [hostname(), "another-host"]) {
        const held = yield* writeLock(root, { pid: process.pid, host, time: yield* Clock.currentTimeMillis })
        const error = yield* Effect.flip(add(root, "blocked", "300 millis"))
        assert.strictEqual(error._tag, "MemoryWriteError")
        assert.strictEqual(
          error.message,
          `.lock: the memory root is busy: process ${process.pid} on ${host} has held its lock for over 300ms; if no writer is running, delete ${yield* lockFile(root)}`
        )
        assert.strictEqual(yield* fs.readFileString(yield* lockFile(root)), held)
        assert.strictEqual(yield* fs.readFileString(`${root}/team/MEMORY.md`), memory)
        yield* fs.remove(yield* lockFile(root))
      }
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.live("a writer waiting for a lock goes on as soon as it is released", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* tempRoot
      yield* writeLock(root, { pid: process.pid, host: hostname(), time: yield* Clock.currentTimeMillis })
      const waiting = yield* Effect.forkChild(add(root, "waited"))
      yield* Effect.sleep("150 millis")
      assert.isUndefined(waiting.pollUnsafe())
      yield* fs.remove(yield* lockFile(root))
      assert.isTrue((yield* Fiber.join(waiting)).changed)
      yield* noLockLeft(root)
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.live("a writer waiting for a lock can be interrupted, leaving the other's lock and the memory alone", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* tempRoot
      const held = yield* writeLock(root, { pid: process.pid, host: hostname(), time: yield* Clock.currentTimeMillis })
      const waiting = yield* Effect.forkChild(add(root, "never", "30 seconds"))
      yield* Effect.sleep("100 millis")
      const started = yield* Clock.currentTimeMillis
      yield* Fiber.interrupt(waiting)
      assert.isBelow((yield* Clock.currentTimeMillis) - started, 1_000)
      assert.strictEqual(yield* fs.readFileString(yield* lockFile(root)), held)
      assert.deepStrictEqual(yield* listing(root), [".lock"])
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.live("a lock that cannot be read is judged by its age on disk", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* tempRoot
      yield* writeLock(root, "")
      const error = yield* Effect.flip(add(root, "x", "200 millis"))
      assert.strictEqual(error._tag, "MemoryWriteError")
      assert.strictEqual(
        error.message,
        `.lock: the memory root is busy: an unknown writer has held its lock for over 200ms; if no writer is running, delete ${yield* lockFile(root)}`
      )
      const old = new Date((yield* Clock.currentTimeMillis) - 60_000)
      yield* fs.utimes(yield* lockFile(root), old, old)
      assert.isTrue((yield* add(root, "x", "1 second")).changed)
      yield* noLockLeft(root)
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.live("a lock that is a link to a file outside the root is not read, and the file is left alone", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* tempRoot
      const outside = yield* tempRoot
      const target = `${outside}/precious.json`
      const precious = JSON.stringify({ pid: process.pid, host: "another-host", time: 0, token: "x" })
      yield* fs.writeFileString(target, precious)
      yield* fs.symlink(target, yield* lockFile(root))
      const error = yield* Effect.flip(add(root, "x", "200 millis"))
      assert.strictEqual(error._tag, "MemoryWriteError")
      assert.strictEqual(
        error.message,
        `.lock: the memory root is busy: an unknown writer has held its lock for over 200ms; if no writer is running, delete ${yield* lockFile(root)}`
      )
      const old = new Date((yield* Clock.currentTimeMillis) - 60_000)
      lutimesSync(yield* lockFile(root), old, old)
      assert.isTrue((yield* add(root, "x", "1 second")).changed)
      yield* noLockLeft(root)
      assert.strictEqual(yield* fs.readFileString(target), precious)
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.live("the lock is released after an operation fails inside it", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const error = yield* Effect.flip(
        MemoryStore.MemoryStore.use((store) => store.remove({ scope: team, match: "nothing", actor: "t" })).pipe(
          Effect.provide(MemoryStore.layer({ root }))
        )
      )
      assert.strictEqual(error._tag, "NoMatch")
      assert.strictEqual(error.message, 'no entry in team/MEMORY.md holds "nothing"')
      yield* noLockLeft(root)
      yield* Cursors.Cursors.use((cursors) => cursors.setCursor("chat:a", 1)).pipe(
        Effect.provide(Cursors.layer({ root }))
      )
      yield* noLockLeft(root)
    }).pipe(Effect.provide(NodeServices.layer))
  )
})
