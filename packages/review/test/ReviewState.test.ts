import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import type { Backoff, StorageError } from "@mneme/core"
import { MemoryRoot, ReviewState } from "@mneme/review"
import { Effect, FileSystem, Layer, Path, type Scope } from "effect"
import { TestClock } from "effect/testing"
import { failingServices, listing, tempRoot, warnings } from "./fixtures/kit.ts"
import { rootLayer } from "./fixtures/store.ts"

type State = ReviewState.ReviewState["Service"]

/** Runs `body` with a fresh review state over `root` (a new instance each time, as after a restart). */
const at = <A, E, R>(root: string, body: (state: State) => Effect.Effect<A, E, R>) =>
  ReviewState.ReviewState.use(body).pipe(Effect.provide(ReviewState.layer.pipe(Layer.provide(rootLayer(root)))))

const stateFile = (root: string) => Effect.map(Path.Path, (path) => path.join(root, "reviewed.json"))

const readText = (root: string) =>
  Effect.flatMap(stateFile(root), (file) => Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(file)))

const writeState = (root: string, content: string | Uint8Array) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const file = yield* stateFile(root)
    yield* typeof content === "string" ? fs.writeFileString(file, content) : fs.writeFile(file, content)
  })

/** Checks a storage error: its tag, its reason's tag and its whole message. */
const assertStorageError = (error: StorageError, reason: StorageError["reason"]["_tag"], message: string) => {
  assert.strictEqual(error._tag, "StorageError")
  assert.strictEqual(error.reason._tag, reason)
  assert.strictEqual(error.message, message)
}

/** The warning a damaged state file gives, before what is wrong with it. */
const damagedWarning = "mneme: the review state file was damaged and starts empty"

const record: Backoff.FailureRecord = { cursor: 9, newestUserSeq: 10, times: [1_000], stopWarned: false }

/** A test on the real file system. */
const test = <A, E>(name: string, body: () => Effect.Effect<A, E, FileSystem.FileSystem | Path.Path | Scope.Scope>) =>
  it.effect(name, () => Effect.suspend(body).pipe(Effect.provide(NodeServices.layer)))

describe("ReviewState", () => {
  // On the real clock: the state file read is kept while its stamp says it is unchanged, and trusted only once its
  // change time is older than when it was read.
  it.live("a state file a person changes on disk (same size, same change time) is seen by the next read", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* tempRoot
      const file = yield* stateFile(root)
      const state = (cursor: number) => `{"version":2,"cursors":{"chat:a":${cursor}},"failures":{},"lastReviews":{}}`
      const time = new Date()
      yield* writeState(root, state(12))
      yield* fs.utimes(file, time, time)
      const seen = yield* ReviewState.ReviewState.use((reviewState) =>
        Effect.gen(function* () {
          const before = yield* reviewState.cursor("chat:a")
          yield* writeState(root, state(34))
          yield* fs.utimes(file, time, time)
          const after = yield* reviewState.cursor("chat:a")
          return [before, after]
        })
      ).pipe(Effect.provide(ReviewState.layer.pipe(Layer.provide(rootLayer(root)))))
      assert.deepStrictEqual(seen, [12, 34])
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  )

  test("a missing file reads as empty state, and reading writes nothing", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const root = yield* tempRoot
      const seen = yield* at(root, (state) =>
        Effect.all([state.cursor("chat:a"), state.failure("chat:a"), state.lastReview("agent"), state.snapshot])
      )
      assert.deepStrictEqual(seen, [undefined, undefined, null, MemoryRoot.emptyState])
      assert.deepStrictEqual(MemoryRoot.emptyState, { version: 2, cursors: {}, failures: {}, lastReviews: {} })
      assert.deepStrictEqual(yield* listing(root), [])
      const notYet = path.join(root, "not-yet")
      assert.deepStrictEqual(yield* at(notYet, (state) => state.snapshot), MemoryRoot.emptyState)
      assert.isFalse(yield* fs.exists(notYet))
    }))

  test("a cursor moves forward only, and is read back after a restart", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (state) =>
        Effect.gen(function* () {
          yield* state.setCursor("chat:a", 11)
          yield* state.setCursor("chat:a", 9)
          yield* state.setCursor("chat:a", 11)
          yield* state.setCursor("chat:b", 3)
          assert.strictEqual(yield* state.cursor("chat:a"), 11)
          yield* state.setCursor("chat:a", 12)
        })
      )
      assert.deepStrictEqual(
        yield* at(root, (state) => Effect.all([state.cursor("chat:a"), state.cursor("chat:b")])),
        [12, 3]
      )
      assert.strictEqual(
        yield* readText(root),
        `{"version":2,"cursors":{"chat:a":12,"chat:b":3},"failures":{},"lastReviews":{}}`
      )
      assert.deepStrictEqual(yield* listing(root), ["reviewed.json"])
    }))

  test("a cursor that is not a finite number is refused and nothing is written", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      for (const seq of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
        const error = yield* at(root, (state) => Effect.flip(state.setCursor("chat:a", seq)))
        assertStorageError(
          error,
          "WriteFailed",
          `reviewed.json: could not write it (nothing was changed): the cursor of chat:a must be a number, not ${seq}`
        )
      }
      assert.deepStrictEqual(yield* listing(root), [])
      yield* at(root, (state) => state.setCursor("chat:a", 2))
      const before = yield* readText(root)
      yield* at(root, (state) => Effect.flip(state.setCursor("chat:a", Number.NaN)))
      assert.strictEqual(yield* readText(root), before)
      assert.strictEqual(yield* at(root, (state) => state.cursor("chat:a")), 2)
    }))

  test("failure records are set, replaced and cleared; last reviews are kept per agent", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (state) => state.setFailure("chat:none", undefined))
      assert.deepStrictEqual(yield* listing(root), [])
      yield* at(root, (state) =>
        Effect.gen(function* () {
          yield* state.setFailure("chat:a", record)
          yield* state.setFailure("chat:b", { ...record, cursor: null })
          yield* state.setFailure("chat:a", { ...record, times: [1_000, 2_000], stopWarned: true })
          yield* state.setLastReview("agent-1", { at: 5, ok: false, reason: "the model failed: timeout" })
          yield* state.setLastReview("__proto__", { at: 6, ok: true, reason: null })
        })
      )
      const [a, b, one, proto, none, protoCursor, protoFailure] = yield* at(root, (state) =>
        Effect.all([
          state.failure("chat:a"),
          state.failure("chat:b"),
          state.lastReview("agent-1"),
          state.lastReview("__proto__"),
          state.lastReview("constructor"),
          state.cursor("__proto__"),
          state.failure("constructor")
        ])
      )
      assert.deepStrictEqual(a, { ...record, times: [1_000, 2_000], stopWarned: true })
      assert.deepStrictEqual(b, { ...record, cursor: null })
      assert.deepStrictEqual(one, { at: 5, ok: false, reason: "the model failed: timeout" })
      assert.deepStrictEqual(proto, { at: 6, ok: true, reason: null })
      assert.isNull(none)
      assert.isUndefined(protoCursor)
      assert.isUndefined(protoFailure)
      const written = JSON.parse(yield* readText(root))
      assert.isTrue(Object.hasOwn(written.lastReviews, "__proto__"))
      assert.deepStrictEqual(written.lastReviews["__proto__"], { at: 6, ok: true, reason: null })

      yield* at(root, (state) => state.setLastReview("constructor", { at: 7, ok: false, reason: "no lines" }))
      yield* at(root, (state) => state.setLastReview("agent-1", { at: 8, ok: true, reason: null }))
      yield* at(root, (state) => state.setFailure("chat:a", undefined))
      const after = yield* at(root, (state) =>
        Effect.all([
          state.failure("chat:a"),
          state.failure("chat:b"),
          state.lastReview("constructor"),
          state.lastReview("agent-1"),
          state.lastReview("__proto__")
        ])
      )
      assert.deepStrictEqual(after, [
        undefined,
        { ...record, cursor: null },
        { at: 7, ok: false, reason: "no lines" },
        { at: 8, ok: true, reason: null },
        { at: 6, ok: true, reason: null }
      ])
    }))

  test("a last review's reason is masked for secrets before it is kept", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (state) =>
        Effect.gen(function* () {
          yield* state.setLastReview("agent-1", { at: 1, ok: false, reason: "the model failed: password is hunter2zz" })
          yield* state.setLastReview("agent-2", { at: 2, ok: false, reason: "key AKIAIOSFODNN7EXAMPLE was refused" })
          yield* state.setLastReview("agent-3", { at: 3, ok: false, reason: "the model failed: timeout" })
          yield* state.setLastReview("agent-4", { at: 4, ok: true, reason: null })
        })
      )
      const reviews = yield* at(root, (state) =>
        Effect.forEach(["agent-1", "agent-2", "agent-3", "agent-4"], (agentId) => state.lastReview(agentId))
      )
      assert.deepStrictEqual(reviews, [
        { at: 1, ok: false, reason: "the model failed: password is [secret]" },
        { at: 2, ok: false, reason: "key [secret] was refused" },
        { at: 3, ok: false, reason: "the model failed: timeout" },
        { at: 4, ok: true, reason: null }
      ])
      const text = yield* readText(root)
      assert.notInclude(text, "hunter2zz")
      assert.notInclude(text, "AKIAIOSFODNN7EXAMPLE")
    }))

  const encode = (text: string) => new TextEncoder().encode(text)
  const time = 1_767_225_600_000
  const aside = `reviewed.json.damaged-${time}`
  for (const [name, bytes, detail] of [
    ["not JSON", encode("{ this is not json"), "Expected a valid JSON string"],
    [
      "JSON of the wrong shape",
      encode(JSON.stringify({ version: 2, cursors: { "chat:a": "x" }, failures: {}, lastReviews: {} })),
      'Expected number\n  at ["cursors"]["chat:a"]'
    ],
    [
      "a version 1 file of the wrong shape",
      encode(JSON.stringify({ version: 1, cursors: {}, failures: {} })),
      'Missing key\n  at ["lastReviews"]'
    ],
    ["JSON that is not an object", encode("[]"), "Expected object"],
    ["not UTF-8", new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), "it is not UTF-8 text"]
  ] as const) {
    test(`a damaged file (${name}) reads as empty with one warning, and is kept aside`, () =>
      Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        const root = yield* tempRoot
        yield* writeState(root, bytes)
        yield* TestClock.setTime(time)
        const logged = warnings()
        const first = yield* at(root, (state) =>
          Effect.all([state.cursor("chat:a"), state.lastReview("x"), state.cursor("chat:a"), state.snapshot])
        ).pipe(Effect.provide(logged.layer))
        assert.deepStrictEqual(first, [undefined, null, undefined, MemoryRoot.emptyState])
        assert.strictEqual(logged.lines.length, 1)
        assert.deepStrictEqual(logged.lines, [`${damagedWarning} (${detail}); the damaged file is kept as ${aside}`])
        assert.deepStrictEqual(yield* listing(root), [aside])
        assert.deepStrictEqual(yield* fs.readFile(path.join(root, aside)), bytes)
        yield* at(root, (state) => state.setCursor("chat:a", 4)).pipe(Effect.provide(logged.layer))
        assert.strictEqual(yield* at(root, (state) => state.cursor("chat:a")), 4)
        assert.strictEqual(logged.lines.length, 1)
        assert.deepStrictEqual(yield* listing(root), [aside, "reviewed.json"].sort())
      }))
  }

  test("a second damaged file at the same instant is kept aside under a name of its own", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const root = yield* tempRoot
      yield* TestClock.setTime(time)
      yield* writeState(root, "{ first")
      yield* at(root, (state) => state.snapshot).pipe(Effect.provide(warnings().layer))
      yield* writeState(root, "{ second")
      const logged = warnings()
      yield* at(root, (state) => state.snapshot).pipe(Effect.provide(logged.layer))
      assert.deepStrictEqual(yield* listing(root), [aside, `${aside}-2`])
      assert.strictEqual(yield* fs.readFileString(path.join(root, aside)), "{ first")
      assert.strictEqual(yield* fs.readFileString(path.join(root, `${aside}-2`)), "{ second")
      assert.include(logged.lines[0]!, `the damaged file is kept as ${aside}-2`)
    }))

  test("a damaged file met first by a write is kept aside, with one warning, and the write lands", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const root = yield* tempRoot
      yield* writeState(root, "{ this is not json")
      yield* TestClock.setTime(time)
      const logged = warnings()
      yield* at(root, (state) => state.setCursor("chat:a", 4)).pipe(Effect.provide(logged.layer))
      assert.deepStrictEqual(logged.lines, [
        `${damagedWarning} (Expected a valid JSON string); the damaged file is kept as ${aside}`
      ])
      assert.strictEqual(yield* fs.readFileString(path.join(root, aside)), "{ this is not json")
      assert.strictEqual(yield* readText(root), `{"version":2,"cursors":{"chat:a":4},"failures":{},"lastReviews":{}}`)
    }))

  test("a version 1 file is read as version 2, left as it is until the next write, which writes version 2", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const one = JSON.stringify({
        version: 1,
        cursors: { "chat:a": 7 },
        failures: {
          "chat:a": { cursor: 7, newestUserSeq: 9, failures: 2, stopWarned: true, at: 1_000 },
          "chat:b": { cursor: null, newestUserSeq: 3, failures: 0, stopWarned: false, at: 500 }
        },
        lastReviews: { "agent-1": { at: 5, ok: false, reason: "the model failed: timeout" } }
      })
      yield* writeState(root, one)
      const logged = warnings()
      const upgraded = {
        version: 2,
        cursors: { "chat:a": 7 },
        failures: {
          "chat:a": { cursor: 7, newestUserSeq: 9, times: [1_000, 1_000], stopWarned: true },
          "chat:b": { cursor: null, newestUserSeq: 3, times: [], stopWarned: false }
        },
        lastReviews: { "agent-1": { at: 5, ok: false, reason: "the model failed: timeout" } }
      } as const
      const seen = yield* at(root, (state) =>
        Effect.all([state.snapshot, state.cursor("chat:a"), state.failure("chat:a"), state.lastReview("agent-1")])
      ).pipe(Effect.provide(logged.layer))
      assert.deepStrictEqual(seen, [upgraded, 7, upgraded.failures["chat:a"], upgraded.lastReviews["agent-1"]])
      assert.deepStrictEqual(logged.lines, [])
      assert.strictEqual(yield* readText(root), one)
      assert.deepStrictEqual(yield* listing(root), ["reviewed.json"])
      yield* at(root, (state) => state.setCursor("chat:b", 4))
      assert.strictEqual(yield* readText(root), JSON.stringify({ ...upgraded, cursors: { "chat:a": 7, "chat:b": 4 } }))
      assert.deepStrictEqual(yield* listing(root), ["reviewed.json"])
    }))

  test("a version 1 record's count of failures is read as at most 100, however large the file says it is", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const record = { cursor: 7, newestUserSeq: 9, failures: 1e10, stopWarned: true, at: 1_000 }
      yield* writeState(
        root,
        JSON.stringify({ version: 1, cursors: { "chat:a": 7 }, failures: { "chat:a": record }, lastReviews: {} })
      )
      const failure = yield* at(root, (state) => state.failure("chat:a"))
      assert.deepStrictEqual(failure, {
        cursor: 7,
        newestUserSeq: 9,
        times: Array.from({ length: 100 }, () => 1_000),
        stopWarned: true
      })
    }))

  test("a file from a newer format version is refused, not overwritten", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const newer = JSON.stringify({ version: 3, cursors: { "chat:a": 5 } })
      yield* writeState(root, newer)
      const logged = warnings()
      const errors = yield* at(root, (state) =>
        Effect.all([
          Effect.flip(state.cursor("chat:a")),
          Effect.flip(state.snapshot),
          Effect.flip(state.setCursor("chat:a", 9)),
          Effect.flip(state.setLastReview("agent", { at: 1, ok: true, reason: null }))
        ])
      ).pipe(Effect.provide(logged.layer))
      for (const error of errors) {
        assertStorageError(
          error,
          "NewerFormat",
          "reviewed.json was written by a newer mneme (format version 3); upgrade to read it"
        )
      }
      assert.strictEqual(yield* readText(root), newer)
      assert.deepStrictEqual(yield* listing(root), ["reviewed.json"])
      assert.deepStrictEqual(logged.lines, [])
    }))

  test("a state file that is a link to a place outside the root is neither read nor written", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const root = yield* tempRoot
      const outside = yield* tempRoot
      const target = path.join(outside, "elsewhere.json")
      const original = JSON.stringify({ version: 2, cursors: { "chat:a": 1 }, failures: {}, lastReviews: {} })
      yield* fs.writeFileString(target, original)
      yield* fs.symlink(target, path.join(root, "reviewed.json"))
      const real = yield* fs.realPath(target)
      const errors = yield* at(root, (state) =>
        Effect.all([
          Effect.flip(state.cursor("chat:a")),
          Effect.flip(state.snapshot),
          Effect.flip(state.setCursor("chat:a", 7))
        ])
      )
      for (const error of errors) {
        assertStorageError(
          error,
          "OutsideRoot",
          `reviewed.json leads through a link to ${real}, outside the memory root; nothing there is read or written`
        )
      }
      assert.strictEqual(yield* fs.readFileString(target), original)
      assert.deepStrictEqual(yield* listing(outside), ["elsewhere.json"])
      assert.deepStrictEqual(yield* listing(root), ["reviewed.json"])
      assert.strictEqual(yield* fs.readLink(path.join(root, "reviewed.json")), target)
    }))

  test("a state file that is a link to another file in the root is neither read nor written", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const root = yield* tempRoot
      const original = JSON.stringify({ version: 2, cursors: { "chat:a": 1 }, failures: {}, lastReviews: {} })
      yield* fs.writeFileString(path.join(root, "other.json"), original)
      yield* fs.symlink(path.join(root, "other.json"), path.join(root, "reviewed.json"))
      const errors = yield* at(root, (state) =>
        Effect.all([Effect.flip(state.cursor("chat:a")), Effect.flip(state.setCursor("chat:a", 7))])
      )
      for (const error of errors) {
        assertStorageError(
          error,
          "LinkedFile",
          "reviewed.json is a link to other.json; mneme does not write through links: replace the link with the file, or remove it"
        )
      }
      assert.strictEqual(yield* fs.readFileString(path.join(root, "other.json")), original)
    }))

  test("many writes from concurrent fibers all land", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const indexes = Array.from({ length: 60 }, (_, i) => i)
      yield* at(root, (state) =>
        Effect.forEach(
          indexes,
          (i) =>
            i % 3 === 0
              ? state.setCursor(`chat:${i}`, i)
              : i % 3 === 1
                ? state.setLastReview(`agent-${i}`, { at: i, ok: true, reason: null })
                : state.setFailure(`chat:${i}`, { ...record, newestUserSeq: i }),
          { concurrency: "unbounded", discard: true }
        )
      )
      const kind = (k: number) => indexes.filter((i) => i % 3 === k)
      const expected: MemoryRoot.ReviewStateDocument = {
        version: 2,
        cursors: Object.fromEntries(kind(0).map((i) => [`chat:${i}`, i])),
        failures: Object.fromEntries(kind(2).map((i) => [`chat:${i}`, { ...record, newestUserSeq: i }])),
        lastReviews: Object.fromEntries(kind(1).map((i) => [`agent-${i}`, { at: i, ok: true, reason: null }]))
      }
      assert.deepStrictEqual(yield* at(root, (state) => state.snapshot), expected)
      assert.deepStrictEqual(JSON.parse(yield* readText(root)), expected)
      assert.deepStrictEqual(yield* listing(root), ["reviewed.json"])
    }))

  test("a failed write or rename leaves the old state whole and no temporary file", () =>
    Effect.gen(function* () {
      const path = yield* Path.Path
      const root = yield* tempRoot
      const failing = (call: string) =>
        failingServices((c, file) => c === call && path.basename(file).includes("reviewed.json"))
      const message = "reviewed.json: could not write it (nothing was changed): Unknown: injected failure"
      const first = yield* at(root, (state) => Effect.flip(state.setCursor("chat:a", 1))).pipe(
        Effect.provide(failing("rename"))
      )
      assertStorageError(first, "WriteFailed", message)
      assert.deepStrictEqual(yield* listing(root), [])
      yield* at(root, (state) => state.setCursor("chat:a", 3))
      const before = yield* readText(root)
      for (const call of ["open", "writeAll", "sync", "rename"] as const) {
        const error = yield* at(root, (state) => Effect.flip(state.setCursor("chat:a", 8))).pipe(
          Effect.provide(failing(call))
        )
        assertStorageError(error, "WriteFailed", message)
        assert.strictEqual(yield* readText(root), before)
        assert.deepStrictEqual(yield* listing(root), ["reviewed.json"])
      }
      assert.strictEqual(yield* at(root, (state) => state.cursor("chat:a")), 3)
    }))

  test("the snapshot gives the whole document", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const snapshot = yield* at(root, (state) =>
        Effect.gen(function* () {
          yield* state.setCursor("chat:a", 12)
          yield* state.setFailure("chat:b", record)
          yield* state.setLastReview("agent-1", { at: 5, ok: false, reason: "the model failed: timeout" })
          return yield* state.snapshot
        })
      )
      const expected: MemoryRoot.ReviewStateDocument = {
        version: 2,
        cursors: { "chat:a": 12 },
        failures: { "chat:b": record },
        lastReviews: { "agent-1": { at: 5, ok: false, reason: "the model failed: timeout" } }
      }
      assert.deepStrictEqual(snapshot, expected)
      assert.deepStrictEqual(yield* at(root, (state) => state.snapshot), expected)
      assert.deepStrictEqual(JSON.parse(yield* readText(root)), expected)
    }))
})
