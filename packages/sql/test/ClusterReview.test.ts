/**
 * The review on effect/cluster, in one process (`TestRunner`): a turn end is a message to the conversation's entity,
 * reviewed after the delay; a newer turn start or end supersedes a waiting one; one review at a time per
 * conversation; a group's turn end reaches each member's entity; the model calls in flight per runner are bounded;
 * and the entity obeys the settings given to the composition, not those around it. The README's runner code is
 * `fixtures/clusterExample.ts` (so the type-check covers it). The cluster's runner keeps its own time, so these tests
 * run on the real clock with short delays (and assert no timing); memory files are real, in a temporary folder.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Memory, MemoryReview, Platform, ReviewOutcome, ReviewState } from "@mneme/review"
import * as Testing from "@mneme/review/testing"
import { ClusterReview } from "@mneme/sql"
import { ModelError } from "@mneme/core"
import { Deferred, Duration, Effect, FileSystem, Layer, Ref } from "effect"
import { TestRunner } from "effect/cluster"
import { readFileSync } from "node:fs"

/**
 * The test kit's ports and a scripted model (its calls bounded to `inFlight` at once when given, as a host bounds the
 * model it gives the composition), mneme over a temporary folder, the entity on an in-process runner, and
 * `MemoryReview` over the cluster.
 */
const cluster = (options: Testing.Options = {}, inFlight?: number) => {
  const scripted = Testing.scriptedModel(
    options.answers,
    options.otherwise === undefined ? {} : { otherwise: options.otherwise }
  )
  const model =
    inFlight === undefined ? scripted : ClusterReview.boundedModel(inFlight).pipe(Layer.provideMerge(scripted))
  const memory = Layer.unwrap(
    Effect.map(
      Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped({ prefix: "mneme-cluster-" })),
      (root) =>
        Memory.layer({
          root,
          policy: options.policy,
          settings: { reviewDelay: Duration.millis(100), ...options.settings }
        })
    )
  ).pipe(Layer.provideMerge(Layer.mergeAll(Testing.transcriptMemory, model, Platform.layerTest())))
  return Layer.mergeAll(ClusterReview.entities(), ClusterReview.layer()).pipe(
    Layer.provideMerge(TestRunner.layer),
    Layer.provideMerge(memory),
    Layer.provideMerge(NodeServices.layer)
  )
}

const answer = (...changes: ReadonlyArray<object>) => JSON.stringify({ changes })

const setUp = (...conversations: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const host = yield* Testing.TranscriptMemory
    yield* host.addAgent({ id: "ada", name: "Ada" })
    for (const id of conversations) {
      yield* host.bind(id, "ada")
      yield* host.append(id, { who: "user", text: `In ${id}: I drink green tea every morning.` })
    }
  })

const cursorOf = (key: string) => Effect.flatMap(ReviewState.ReviewState, (state) => state.cursor(key))
const requests = Effect.flatMap(Testing.ScriptedModel, (model) => model.requests)

/** Ends a turn through `MemoryReview` and waits for its review. */
const turn = (id: string) =>
  Effect.gen(function* () {
    const review = yield* MemoryReview.MemoryReview
    yield* review.turnEnded(id)
    yield* review.awaitIdle
  })

describe("MemoryReview over the cluster", () => {
  it.live("a turn end is reviewed by the conversation's entity after the delay, once", () =>
    Effect.gen(function* () {
      yield* setUp("b2")
      const review = yield* MemoryReview.MemoryReview
      yield* review.turnEnded("b2")
      assert.strictEqual(yield* review.pending, 1)
      yield* review.awaitIdle
      assert.strictEqual((yield* requests).length, 1)
      assert.strictEqual(yield* cursorOf("chat:b2"), 1)
      assert.strictEqual(yield* review.pending, 0)
      yield* turn("b2")
      // Nothing new: no second call.
      assert.strictEqual((yield* requests).length, 1)
    }).pipe(Effect.provide(cluster({ answers: [answer({ op: "add", text: "The user drinks green tea" })] })))
  )

  it.live("a turn start within the delay, or a newer turn end, supersedes a waiting turn end", () =>
    Effect.gen(function* () {
      yield* setUp("b2")
      const review = yield* MemoryReview.MemoryReview
      yield* review.turnEnded("b2")
      yield* review.turnStarted("b2")
      yield* review.awaitIdle
      assert.strictEqual((yield* requests).length, 0)
      assert.isUndefined(yield* cursorOf("chat:b2"))
      yield* review.turnEnded("b2")
      yield* review.turnEnded("b2")
      yield* review.awaitIdle
      assert.strictEqual((yield* requests).length, 1)
    }).pipe(Effect.provide(cluster({ otherwise: answer(), settings: { reviewDelay: Duration.seconds(1) } })))
  )

  it.live("runs one review at a time per conversation, however many turn ends arrive meanwhile", () =>
    Effect.gen(function* () {
      yield* setUp("b2")
      const inside = yield* Ref.make(0)
      const most = yield* Ref.make(0)
      const release = yield* Deferred.make<void>()
      const asked = yield* Deferred.make<void>()
      const slow = Effect.gen(function* () {
        yield* Deferred.succeed(asked, undefined)
        const now = yield* Ref.updateAndGet(inside, (n) => n + 1)
        yield* Ref.update(most, (m) => Math.max(m, now))
        yield* Deferred.await(release)
        yield* Ref.update(inside, (n) => n - 1)
        return answer()
      })
      const model = yield* Testing.ScriptedModel
      yield* model.push(slow, slow)
      const review = yield* MemoryReview.MemoryReview
      yield* review.turnEnded("b2")
      yield* Deferred.await(asked)
      // The first review waits in the model; new words and a second turn end come meanwhile.
      yield* Effect.flatMap(Testing.TranscriptMemory, (host) =>
        host.append("b2", { who: "user", text: "I also like oolong." })
      )
      yield* review.turnEnded("b2")
      yield* Effect.sleep("500 millis")
      assert.strictEqual(yield* Ref.get(most), 1)
      yield* Deferred.succeed(release, undefined)
      yield* review.awaitIdle
      assert.strictEqual(yield* Ref.get(most), 1)
      assert.strictEqual((yield* requests).length, 2)
      assert.strictEqual(yield* cursorOf("chat:b2"), 2)
    }).pipe(Effect.provide(cluster({ otherwise: answer() })))
  )

  it.live("a group's turn end reaches each member's entity, each with its own cursor", () =>
    Effect.gen(function* () {
      const host = yield* Testing.TranscriptMemory
      yield* host.addAgent({ id: "ada", name: "Ada" })
      yield* host.addAgent({ id: "bob", name: "Bob" })
      yield* host.bindGroup("g1", ["ada", "bob"])
      yield* host.append("g1", { who: "user", name: "Alice", text: "I always travel with my bike." })
      yield* turn("g1")
      assert.strictEqual((yield* requests).length, 2)
      assert.strictEqual(yield* cursorOf(ReviewOutcome.memberKey("g1", "ada")), 1)
      assert.strictEqual(yield* cursorOf(ReviewOutcome.memberKey("g1", "bob")), 1)
    }).pipe(Effect.provide(cluster({ otherwise: answer() })))
  )

  for (const inFlight of [1, 2]) {
    it.live(`bounds the model calls in flight on a runner: at most ${inFlight} across conversations`, () =>
      Effect.gen(function* () {
        yield* setUp("c1", "c2", "c3")
        const inside = yield* Ref.make(0)
        const most = yield* Ref.make(0)
        const slow = Effect.gen(function* () {
          const now = yield* Ref.updateAndGet(inside, (n) => n + 1)
          yield* Ref.update(most, (m) => Math.max(m, now))
          yield* Effect.sleep("300 millis")
          yield* Ref.update(inside, (n) => n - 1)
          return answer()
        })
        yield* Effect.flatMap(Testing.ScriptedModel, (model) => model.push(slow, slow, slow))
        const review = yield* MemoryReview.MemoryReview
        for (const id of ["c1", "c2", "c3"]) yield* review.turnEnded(id)
        yield* review.awaitIdle
        assert.strictEqual((yield* requests).length, 3)
        assert.strictEqual(yield* Ref.get(most), inFlight)
      }).pipe(Effect.provide(cluster({ otherwise: answer() }, inFlight)))
    )
  }
})

describe("the settings of the cluster's review", () => {
  it.live("a failure limit given only to the composition stops the entity's retries at it", () =>
    Effect.gen(function* () {
      yield* setUp("b2")
      yield* turn("b2")
      assert.strictEqual((yield* requests).length, 1)
      // Nothing new: with one failure allowed, the entity makes no second call for the same lines.
      yield* turn("b2")
      assert.strictEqual((yield* requests).length, 1, "the default limit (2) would have called again")
      // The lines are not passed unseen: the cursor stays before them.
      assert.strictEqual(yield* cursorOf("chat:b2"), 0)
    }).pipe(
      Effect.provide(
        cluster({
          otherwise: new ModelError({ reason: "the model is down", retryable: false }),
          settings: { failuresMax: 1 }
        })
      )
    )
  )

  it.live("a review delay given only to the composition is the entity's: a turn end waits for it", () =>
    Effect.gen(function* () {
      yield* setUp("b2")
      const review = yield* MemoryReview.MemoryReview
      yield* review.turnEnded("b2")
      // Longer than the default delay (2 s), shorter than the one given: only the default would have reviewed by now.
      yield* Effect.sleep("3 seconds")
      assert.strictEqual((yield* requests).length, 0)
      assert.strictEqual(yield* review.pending, 1)
      yield* review.turnStarted("b2")
      yield* review.awaitIdle
      assert.strictEqual((yield* requests).length, 0)
    }).pipe(Effect.provide(cluster({ otherwise: answer(), settings: { reviewDelay: Duration.seconds(6) } })))
  )
})

it("the README shows the runner of many machines as fixtures/clusterExample.ts holds it", () => {
  const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8")
  const example = readFileSync(new URL("fixtures/clusterExample.ts", import.meta.url), "utf8")
  assert.include(readme, "```ts\n" + example + "```")
})
