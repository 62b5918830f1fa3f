/**
 * Report 001: a review that kept failing at the same lines called the model on every turn end and never backed off.
 * Now two failures at one cursor stop the calls, the stop is warned once, and a success or a newer user line starts
 * the count again — also across a restart.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Memory, MemoryReview, Platform } from "@mneme/review"
import * as Testing from "@mneme/review/testing"
import { Effect, FileSystem, Layer } from "effect"
import * as Kit from "./reviewKit.ts"

const unusable = "I'm sorry, I can't help with that."
const malformed = "the model's answer is not a list of changes"

const lastReview = Effect.flatMap(MemoryReview.MemoryReview, (review) => review.lastReview(Kit.agent.id))

describe("report 001", () => {
  it.effect("a review that keeps failing gives up after two tries, warns once, and keeps the cursor", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      yield* Kit.append({ seq: 10, who: "user", text: "Call me Sam." }, { seq: 11, who: "agent", text: "Sure." })
      for (let i = 0; i < 4; i++) yield* Kit.turn()
      assert.strictEqual((yield* Kit.requests).length, 2)
      assert.strictEqual((yield* Kit.logged(MemoryReview.warnings.failed)).length, 2)
      const stopped = yield* Kit.logged(MemoryReview.warnings.stopped)
      assert.strictEqual(stopped.length, 1)
      assert.strictEqual(stopped[0]!.annotations.failures, 2)
      assert.strictEqual(yield* Kit.cursor, 9)
      const last = yield* lastReview
      assert.isFalse(last?.ok)
      assert.include(last?.reason, malformed)
      assert.include(last?.reason, MemoryReview.warnings.stopped)
    }).pipe(Effect.provide(Kit.layer({ otherwise: unusable })))
  )

  it.effect("a success clears the count, so a later failure still gets its two tries", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      const model = yield* Testing.ScriptedModel
      yield* Kit.append({ who: "user", text: "Call me Sam." }, { who: "agent", text: "Sure." })
      yield* Kit.turn()
      yield* model.push(Kit.answer({ op: "add", text: "The user wants to be called Sam" }))
      yield* Kit.append({ who: "user", text: "I work on ships." }, { who: "agent", text: "Nice." })
      yield* Kit.turn()
      assert.strictEqual(yield* Kit.cursor, 4)
      assert.isTrue((yield* lastReview)?.ok)
      yield* Kit.append({ who: "user", text: "I like fog." }, { who: "agent", text: "Noted." })
      for (let i = 0; i < 3; i++) yield* Kit.turn()
      assert.strictEqual((yield* Kit.requests).length, 4)
      assert.strictEqual((yield* Kit.logged(MemoryReview.warnings.stopped)).length, 1)
      assert.strictEqual(yield* Kit.cursor, 4)
    }).pipe(Effect.provide(Kit.layer({ answers: [unusable], otherwise: unusable })))
  )

  it.effect("a user line newer than the failed tries saw allows two more tries with the old lines and the new", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      yield* Kit.append({ seq: 10, who: "user", text: "Call me Sam." }, { seq: 11, who: "agent", text: "Sure." })
      for (let i = 0; i < 3; i++) yield* Kit.turn()
      assert.strictEqual((yield* Kit.requests).length, 2)
      yield* Kit.append({ who: "user", text: "And I live by the sea." }, { who: "agent", text: "Lovely." })
      for (let i = 0; i < 3; i++) yield* Kit.turn()
      const requests = yield* Kit.requests
      assert.strictEqual(requests.length, 4)
      for (const { request } of requests.slice(2)) {
        assert.include(request, "Call me Sam.")
        assert.include(request, "And I live by the sea.")
      }
      assert.strictEqual((yield* Kit.logged(MemoryReview.warnings.stopped)).length, 2, "each new stop is warned once")
      assert.strictEqual(yield* Kit.cursor, 9)
    }).pipe(Effect.provide(Kit.layer({ otherwise: unusable })))
  )

  it.effect("a restart over the same memory root still makes no call for the stopped cursor", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped({ prefix: "mneme-" })
      const ports = yield* Layer.build(
        Layer.merge(Testing.transcriptMemory, Testing.scriptedModel([], { otherwise: unusable }))
      )
      const host = Layer.mergeAll(Layer.succeedContext(ports), NodeServices.layer, Platform.layerTest())
      const session = (turns: number) =>
        Effect.gen(function* () {
          for (let i = 0; i < turns; i++) yield* Kit.turn()
          return yield* lastReview
        }).pipe(Effect.provide(Memory.layer({ root }).pipe(Layer.provideMerge(host))))

      yield* Effect.gen(function* () {
        const memory = yield* Testing.TranscriptMemory
        yield* memory.addAgent(Kit.agent)
        yield* memory.bind(Kit.conversation, Kit.agent.id)
        yield* memory.append(Kit.conversation, { seq: 10, who: "user", text: "Call me Sam." })
      }).pipe(Effect.provide(ports))
      const before = yield* session(3)
      const requests = Effect.provide(Kit.requests, ports)
      assert.strictEqual((yield* requests).length, 2)
      const after = yield* session(3)
      assert.strictEqual((yield* requests).length, 2, "the restarted service makes no call")
      assert.deepStrictEqual(after, before, "the last review is kept")
      assert.isFalse(after?.ok)
    }).pipe(Effect.provide(NodeServices.layer))
  )
})
