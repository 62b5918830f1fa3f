import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Cursors } from "@mneme/review"
import { Effect, FileSystem, Path } from "effect"
import { TestClock } from "effect/testing"
import { failingServices, listing, tempRoot, warnings } from "./fixtures/kit.ts"

const service = Cursors.Cursors.use(Effect.succeed)

/** Runs `body` with a fresh Cursors service over `root` (a new instance each time, as after a restart). */
const at = <A, E>(root: string, body: (cursors: Cursors.Cursors["Service"]) => Effect.Effect<A, E>) =>
  Effect.flatMap(service, body).pipe(Effect.provide(Cursors.layer({ root })))

const readJson = (file: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(file)).pipe(Effect.map((text) => JSON.parse(text)))

const record: Cursors.FailureRecord = { cursor: 9, newestUserSeq: 10, failures: 1, stopWarned: false, at: 1_000 }

describe("Cursors", () => {
  it.effect("a missing file reads as empty state, and reading writes nothing", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const seen = yield* at(root, (cursors) =>
        Effect.all([cursors.cursor("chat:a"), cursors.failure("chat:a"), cursors.lastReview("agent")])
      )
      assert.deepStrictEqual(seen, [undefined, undefined, null])
      assert.deepStrictEqual(yield* listing(root), [])
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.effect("a cursor moves forward only, and is read back after a restart", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (cursors) =>
        Effect.gen(function* () {
          yield* cursors.setCursor("chat:a", 11)
          yield* cursors.setCursor("chat:a", 9)
          yield* cursors.setCursor("chat:b", 3)
          assert.strictEqual(yield* cursors.cursor("chat:a"), 11)
          yield* cursors.setCursor("chat:a", 12)
        })
      )
      assert.strictEqual(yield* at(root, (cursors) => cursors.cursor("chat:a")), 12)
      const path = yield* Path.Path
      assert.deepStrictEqual(yield* readJson(path.join(root, "reviewed.json")), {
        version: 1,
        cursors: { "chat:a": 12, "chat:b": 3 },
        failures: {},
        lastReviews: {}
      })
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.effect("a cursor that is not a number is refused and nothing is written", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      for (const seq of [Number.NaN, Number.POSITIVE_INFINITY]) {
        const error = yield* at(root, (cursors) => Effect.flip(cursors.setCursor("chat:a", seq)))
        assert.strictEqual(error._tag, "MemoryWriteError")
        assert.strictEqual(error.message, `reviewed.json: the cursor of chat:a must be a number, not ${seq}`)
      }
      assert.deepStrictEqual(yield* listing(root), [])
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.effect("failure records are set, replaced and cleared; last reviews are kept per agent", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (cursors) =>
        Effect.gen(function* () {
          yield* cursors.setFailure("chat:a", record)
          yield* cursors.setFailure("chat:b", { ...record, cursor: null })
          yield* cursors.setFailure("chat:a", { ...record, failures: 2, stopWarned: true })
          yield* cursors.setLastReview("agent-1", { at: 5, ok: false, reason: "the model failed: timeout" })
          yield* cursors.setLastReview("__proto__", { at: 6, ok: true, reason: null })
        })
      )
      const [a, b, one, proto, none] = yield* at(root, (cursors) =>
        Effect.all([
          cursors.failure("chat:a"),
          cursors.failure("chat:b"),
          cursors.lastReview("agent-1"),
          cursors.lastReview("__proto__"),
          cursors.lastReview("constructor")
        ])
      )
      assert.deepStrictEqual(a, { ...record, failures: 2, stopWarned: true })
      assert.deepStrictEqual(b, { ...record, cursor: null })
      assert.deepStrictEqual(one, { at: 5, ok: false, reason: "the model failed: timeout" })
      assert.deepStrictEqual(proto, { at: 6, ok: true, reason: null })
      assert.isNull(none)
      yield* at(root, (cursors) => cursors.setFailure("chat:a", undefined))
      assert.isUndefined(yield* at(root, (cursors) => cursors.failure("chat:a")))
      assert.deepStrictEqual(yield* at(root, (cursors) => cursors.failure("chat:b")), { ...record, cursor: null })
    }).pipe(Effect.provide(NodeServices.layer))
  )

  const encode = (text: string) => new TextEncoder().encode(text)
  for (const [name, bytes] of [
    ["not JSON", encode("{ this is not json")],
    ["JSON of the wrong shape", encode(JSON.stringify({ version: 1, cursors: { "chat:a": "x" }, failures: {} }))],
    ["not UTF-8", new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])]
  ] as const) {
    it.effect(`a damaged file (${name}) reads as empty with one warning, and is kept aside`, () =>
      Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        const root = yield* tempRoot
        yield* fs.writeFile(path.join(root, "reviewed.json"), bytes)
        yield* TestClock.setTime(1_767_225_600_000)
        const logged = warnings()
        const first = yield* at(root, (cursors) =>
          Effect.all([cursors.cursor("chat:a"), cursors.lastReview("x"), cursors.cursor("chat:a")])
        ).pipe(Effect.provide(logged.layer))
        assert.deepStrictEqual(first, [undefined, null, undefined])
        assert.strictEqual(logged.lines.length, 1)
        assert.isTrue(logged.lines[0]!.startsWith(Cursors.damagedWarning))
        assert.include(logged.lines[0]!, "reviewed.json.damaged-1767225600000")
        assert.deepStrictEqual(yield* listing(root), ["reviewed.json.damaged-1767225600000"])
        assert.deepStrictEqual(yield* fs.readFile(path.join(root, "reviewed.json.damaged-1767225600000")), bytes)
        yield* at(root, (cursors) => cursors.setCursor("chat:a", 4)).pipe(Effect.provide(logged.layer))
        assert.strictEqual(yield* at(root, (cursors) => cursors.cursor("chat:a")), 4)
        assert.strictEqual(logged.lines.length, 1)
        assert.deepStrictEqual(yield* listing(root), ["reviewed.json", "reviewed.json.damaged-1767225600000"])
      }).pipe(Effect.provide(NodeServices.layer))
    )
  }

  it.effect("a file from a newer format version is refused, not overwritten", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const root = yield* tempRoot
      const newer = JSON.stringify({ version: 2, cursors: { "chat:a": 5 } })
      yield* fs.writeFileString(path.join(root, "reviewed.json"), newer)
      const error = yield* at(root, (cursors) => Effect.flip(cursors.setCursor("chat:a", 9)))
      assert.strictEqual(error._tag, "MemoryWriteError")
      assert.strictEqual(
        error.message,
        "reviewed.json: was written by a newer mneme (format version 2); upgrade to read it"
      )
      assert.strictEqual(yield* fs.readFileString(path.join(root, "reviewed.json")), newer)
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.effect("a state file that is a link to a place outside the root is neither read nor written", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const root = yield* tempRoot
      const outside = yield* tempRoot
      const target = path.join(outside, "elsewhere.json")
      const original = JSON.stringify({ version: 1, cursors: { "chat:a": 1 }, failures: {}, lastReviews: {} })
      yield* fs.writeFileString(target, original)
      yield* fs.symlink(target, path.join(root, "reviewed.json"))
      const read = yield* at(root, (cursors) => Effect.flip(cursors.cursor("chat:a")))
      const write = yield* at(root, (cursors) => Effect.flip(cursors.setCursor("chat:a", 7)))
      for (const error of [read, write]) {
        assert.strictEqual(error._tag, "MemoryWriteError")
        assert.match(
          error.message,
          /^reviewed\.json: reviewed\.json leads through a link to .*, outside the memory root/
        )
      }
      assert.strictEqual(yield* fs.readFileString(target), original)
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.effect("many writes from concurrent fibers all land", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (cursors) =>
        Effect.forEach(
          Array.from({ length: 60 }, (_, i) => i),
          (i) =>
            i % 2 === 0
              ? cursors.setCursor(`chat:${i}`, i)
              : cursors.setLastReview(`agent-${i}`, { at: i, ok: true, reason: null }),
          { concurrency: "unbounded", discard: true }
        )
      )
      const cursors = yield* at(root, (cursors) =>
        Effect.forEach(
          Array.from({ length: 30 }, (_, i) => 2 * i),
          (i) => cursors.cursor(`chat:${i}`)
        )
      )
      assert.deepStrictEqual(
        cursors,
        Array.from({ length: 30 }, (_, i) => 2 * i)
      )
      const reviews = yield* at(root, (cursors) =>
        Effect.forEach(
          Array.from({ length: 30 }, (_, i) => 2 * i + 1),
          (i) => cursors.lastReview(`agent-${i}`)
        )
      )
      assert.deepStrictEqual(
        reviews.map((review) => review?.at),
        Array.from({ length: 30 }, (_, i) => 2 * i + 1)
      )
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.effect("a failed write or rename leaves the old state whole and no temporary file", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const root = yield* tempRoot
      yield* at(root, (cursors) => cursors.setCursor("chat:a", 3))
      const before = yield* fs.readFileString(path.join(root, "reviewed.json"))
      for (const call of ["open", "writeAll", "sync", "rename"] as const) {
        const services = failingServices((c, file) => c === call && path.basename(file).includes("reviewed.json"))
        const error = yield* at(root, (cursors) => Effect.flip(cursors.setCursor("chat:a", 8))).pipe(
          Effect.provide(services)
        )
        assert.strictEqual(error._tag, "MemoryWriteError")
        assert.match(error.message, /^reviewed\.json: could not write it \(the old file is unchanged\): Unknown: /)
        assert.strictEqual(yield* fs.readFileString(path.join(root, "reviewed.json")), before)
        assert.deepStrictEqual(yield* listing(root), ["reviewed.json"])
      }
      assert.strictEqual(yield* at(root, (cursors) => cursors.cursor("chat:a")), 3)
    }).pipe(Effect.provide(NodeServices.layer))
  )
})
