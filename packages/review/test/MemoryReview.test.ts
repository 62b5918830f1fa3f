import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { type Lines, ModelError } from "@mneme/core"
import { Effect, Exit, Layer, Metric, Stream } from "effect"
import { TestClock } from "effect/testing"
import { Agents } from "../src/Agents.ts"
import { Cursors } from "../src/Cursors.ts"
import { read } from "../src/internal/reviewRead.ts"
import * as MemoryReview from "../src/MemoryReview.ts"
import * as ReviewModel from "../src/ReviewModel.ts"
import * as Testing from "../src/testing.ts"
import { Transcript } from "../src/Transcript.ts"

const settings = { firstReviewLines: 6, contextLines: 4 }

/** Lines 1..n, user where `users` says, as a newest-first stream that counts what is pulled. */
const transcript = (n: number, users: ReadonlyArray<number>) => {
  const pulled: Array<number> = []
  const lines: Array<Lines.Line> = Array.from({ length: n }, (_, i) => ({
    seq: i + 1,
    who: users.includes(i + 1) ? "user" : "agent",
    text: `line ${i + 1}`
  }))
  const stream = Stream.fromIterable(lines.toReversed(), { chunkSize: 1 }).pipe(
    Stream.tap((line) => Effect.sync(() => pulled.push(line.seq)))
  )
  return { stream, pulled }
}

const seqs = (lines: ReadonlyArray<Lines.Line>) => lines.map((line) => line.seq)

describe("reading", () => {
  it.effect("with a cursor: the lines after it, and up to 4 before as context", () =>
    Effect.gen(function* () {
      const t = transcript(30, [28])
      const got = yield* read(t.stream, 25, settings)
      assert.deepStrictEqual(seqs(got.fresh), [26, 27, 28, 29, 30])
      assert.deepStrictEqual(seqs(got.context), [22, 23, 24, 25])
      assert.strictEqual(t.pulled.length, 9)
    })
  )

  it.effect("a cursor at the newest line: nothing new", () =>
    Effect.gen(function* () {
      const got = yield* read(transcript(5, [1]).stream, 5, settings)
      assert.deepStrictEqual(seqs(got.fresh), [])
      assert.deepStrictEqual(seqs(got.context), [2, 3, 4, 5])
    })
  )

  it.effect("a first review: the last 6 lines when they hold a user line", () =>
    Effect.gen(function* () {
      const t = transcript(30, [27])
      const got = yield* read(t.stream, undefined, settings)
      assert.deepStrictEqual(seqs(got.fresh), [25, 26, 27, 28, 29, 30])
      assert.deepStrictEqual(seqs(got.context), [21, 22, 23, 24])
      assert.strictEqual(t.pulled.length, 10)
    })
  )

  it.effect("a first review: extended back to the newest user line", () =>
    Effect.gen(function* () {
      const got = yield* read(transcript(30, [3, 20]).stream, undefined, settings)
      assert.deepStrictEqual(seqs(got.fresh), [20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30])
      assert.deepStrictEqual(seqs(got.context), [16, 17, 18, 19])
    })
  )

  it.effect("a first review of a short transcript, or of one without a user line, reads it all", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(seqs((yield* read(transcript(3, [1]).stream, undefined, settings)).fresh), [1, 2, 3])
      const none = yield* read(transcript(12, []).stream, undefined, settings)
      assert.strictEqual(none.fresh.length, 12)
      assert.deepStrictEqual(none.context, [])
    })
  )

  it.effect("no context lines when none are wanted", () =>
    Effect.gen(function* () {
      const t = transcript(30, [30])
      const got = yield* read(t.stream, 27, { firstReviewLines: 6, contextLines: 0 })
      assert.deepStrictEqual(seqs(got.fresh), [28, 29, 30])
      assert.deepStrictEqual(got.context, [])
      assert.strictEqual(t.pulled.length, 4)
    })
  )
})

const layer = (options: Testing.Options = {}) => Testing.layer(options).pipe(Layer.provideMerge(NodeServices.layer))

describe("the test kit", () => {
  it.effect("the scripted model answers in order, then with `otherwise`, and records every request", () =>
    Effect.gen(function* () {
      const model = yield* ReviewModel.ReviewModel
      const scripted = yield* Testing.ScriptedModel
      yield* scripted.push(Effect.succeed({ text: "three", usage: { inputTokens: 5 } }))
      const ask = (request: string) => Effect.exit(model.generate({ system: "s", request }))
      assert.deepStrictEqual(yield* ask("a"), Exit.succeed({ text: "one" }))
      const failed = yield* Effect.flip(model.generate({ system: "s", request: "b" }))
      assert.strictEqual(failed._tag, "ModelError")
      assert.strictEqual(failed.message, "the model failed: down")
      assert.deepStrictEqual(yield* ask("c"), Exit.succeed({ text: "three", usage: { inputTokens: 5 } }))
      assert.deepStrictEqual(yield* ask("d"), Exit.succeed({ text: "again" }))
      assert.deepStrictEqual(
        (yield* scripted.requests).map((r) => r.request),
        ["a", "b", "c", "d"]
      )
    }).pipe(Effect.provide(Testing.scriptedModel(["one", new ModelError({ reason: "down" })], { otherwise: "again" })))
  )

  it.effect("with no answer left and no `otherwise`, the scripted model fails", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        ReviewModel.ReviewModel.use((model) => model.generate({ system: "s", request: "r" }))
      )
      assert.strictEqual(error, Testing.noAnswerLeft)
      assert.strictEqual(error.message, "the model failed: the scripted model has no answer left")
    }).pipe(Effect.provide(Testing.scriptedModel()))
  )

  it.effect("the in-memory transcript numbers lines, knows its agents, and can fail its reads", () =>
    Effect.gen(function* () {
      const host = yield* Testing.TranscriptMemory
      const transcript = yield* Transcript
      const agents = yield* Agents
      yield* host.addAgent({ id: "a1", role: "helper" })
      yield* host.bind("c", "a1")
      const added = yield* host.append(
        "c",
        { who: "user", text: "hi" },
        { seq: 10, who: "agent", text: "yo" },
        { who: "other", name: "Bo", text: "hey" }
      )
      assert.deepStrictEqual(seqs(added), [1, 10, 11])
      assert.deepStrictEqual(added[2], { seq: 11, who: "other", name: "Bo", text: "hey" })
      assert.deepStrictEqual(seqs(yield* Stream.runCollect(transcript.newestFirst("c"))), [11, 10, 1])
      assert.strictEqual(yield* transcript.agentOf("c"), "a1")
      assert.strictEqual(yield* transcript.anchor("c", 10), "c #10")
      assert.deepStrictEqual(yield* agents.get("a1"), { id: "a1", name: "a1", role: "helper", mayWriteTeam: false })
      const unknown = yield* Effect.flip(transcript.agentOf("x"))
      assert.strictEqual(unknown._tag, "TranscriptError")
      assert.strictEqual(unknown.message, `the transcript could not be read: no conversation "x"`)
      yield* host.breakReads("c", "disk gone")
      const broken = yield* Effect.flip(Stream.runCollect(transcript.newestFirst("c")))
      assert.strictEqual(broken._tag, "TranscriptError")
      assert.strictEqual(broken.message, "the transcript could not be read: disk gone")
      yield* host.removeAgent("a1")
      assert.isUndefined(yield* agents.get("a1"))
    }).pipe(Effect.provide(Testing.transcriptMemory))
  )
})

describe("MemoryReview", () => {
  it.effect("a long backlog without a user line is passed at once, with no model call", () =>
    Effect.gen(function* () {
      const host = yield* Testing.TranscriptMemory
      yield* host.addAgent({ id: "a1" })
      yield* host.bind("c", "a1")
      yield* host.append("c", ...Array.from({ length: 40 }, () => ({ who: "agent" as const, text: "x".repeat(800) })))
      const review = yield* MemoryReview.MemoryReview
      const outcome = yield* review.reviewNow("c")
      assert.strictEqual(outcome.status, "no-user-line")
      assert.isFalse(outcome.moreFollow)
      assert.strictEqual(yield* (yield* Cursors).cursor("chat:c"), 40)
      assert.deepStrictEqual(yield* (yield* Testing.ScriptedModel).requests, [])
    }).pipe(Effect.provide(layer()))
  )

  it.effect("nothing new, no call; a conversation nobody owns fails the review", () =>
    Effect.gen(function* () {
      const host = yield* Testing.TranscriptMemory
      yield* host.addAgent({ id: "a1" })
      yield* host.bind("c", "a1")
      const review = yield* MemoryReview.MemoryReview
      const empty = yield* review.reviewNow("c")
      assert.deepStrictEqual([empty.status, empty.ok, empty.cursor], ["nothing-new", true, undefined])
      const unknown = yield* review.reviewNow("nobody")
      assert.strictEqual(unknown.status, "failed")
      assert.strictEqual(unknown.reason, `the transcript could not be read: no conversation "nobody"`)
      assert.deepStrictEqual(yield* (yield* Testing.ScriptedModel).requests, [])
    }).pipe(Effect.provide(layer()))
  )

  it.effect("the tokens a model reports are counted", () =>
    Effect.gen(function* () {
      const host = yield* Testing.TranscriptMemory
      yield* host.addAgent({ id: "a1" })
      yield* host.bind("c", "a1")
      yield* host.append("c", { who: "user", text: "I like maps." })
      yield* (yield* Testing.ScriptedModel).push(
        Effect.succeed({ text: `{"changes":[]}`, usage: { inputTokens: 700, outputTokens: 12 } })
      )
      const review = yield* MemoryReview.MemoryReview
      yield* review.turnEnded("c")
      yield* TestClock.adjust("2 seconds")
      yield* review.awaitIdle
      assert.strictEqual((yield* Metric.value(MemoryReview.metrics.inputTokens)).count, 700)
      assert.strictEqual((yield* Metric.value(MemoryReview.metrics.outputTokens)).count, 12)
      assert.strictEqual((yield* Metric.value(MemoryReview.metrics.promptSize)).count, 1)
    }).pipe(Effect.provide(layer()), Effect.provideService(Metric.MetricRegistry, new Map()))
  )
})
