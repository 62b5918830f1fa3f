/** The one "review until done" loop: again while newer lines wait and the cursor moves, stopped between reviews. */
import { assert, describe, it } from "@effect/vitest"
import { ModelError } from "@mneme/core"
import { Effect, Ref } from "effect"
import * as MemoryReview from "../src/MemoryReview.ts"
import * as ReviewOutcome from "../src/ReviewOutcome.ts"

const common = (cursor: number | undefined, moreFollow: boolean) => ({
  conversationId: "c",
  agentId: "ada",
  cursor,
  passes: 1,
  modelCalls: 1,
  changes: ReviewOutcome.noChanges,
  moreFollow
})

/** A review that gives `outcomes` in turn, counting the reviews made. */
const scripted = (outcomes: ReadonlyArray<ReviewOutcome.Outcome>) =>
  Effect.map(Ref.make(0), (made) => ({
    made,
    review: Ref.getAndUpdate(made, (n) => n + 1).pipe(Effect.map((n) => outcomes[n]!))
  }))

describe("MemoryReview.untilDone", () => {
  it.effect("reviews again while newer lines wait and each review moves the cursor", () =>
    Effect.gen(function* () {
      const { made, review } = yield* scripted([
        ReviewOutcome.Outcome.Reviewed(common(10, true)),
        ReviewOutcome.Outcome.NoUserLine(common(20, true)),
        ReviewOutcome.Outcome.Reviewed(common(30, false))
      ])
      const done = yield* MemoryReview.untilDone(review, { from: 0 })
      assert.deepStrictEqual(
        done.outcomes.map((outcome) => [outcome._tag, outcome.cursor]),
        [
          ["Reviewed", 10],
          ["NoUserLine", 20],
          ["Reviewed", 30]
        ]
      )
      assert.isUndefined(done.stopped)
      assert.strictEqual(yield* Ref.get(made), 3)
    })
  )

  it.effect("stops at a failure, and at a review that left the cursor where it was", () =>
    Effect.gen(function* () {
      const failed = yield* scripted([
        ReviewOutcome.Outcome.Failed({
          ...common(5, false),
          error: new ModelError({ reason: "down" }),
          reason: "the model failed: down",
          stopped: false
        })
      ])
      const afterFailure = yield* MemoryReview.untilDone(failed.review)
      assert.deepStrictEqual(
        afterFailure.outcomes.map((outcome) => outcome._tag),
        ["Failed"]
      )
      const stuck = yield* scripted([ReviewOutcome.Outcome.Reviewed(common(7, true))])
      const unmoved = yield* MemoryReview.untilDone(stuck.review, { from: 7 })
      assert.strictEqual(unmoved.outcomes.length, 1)
      assert.strictEqual(yield* Ref.get(stuck.made), 1)
    })
  )

  it.effect("between two reviews, a check may stop the run, saying why", () =>
    Effect.gen(function* () {
      const { made, review } = yield* scripted([
        ReviewOutcome.Outcome.Reviewed(common(10, true)),
        ReviewOutcome.Outcome.Reviewed(common(20, true))
      ])
      const done = yield* MemoryReview.untilDone(review, {
        from: 0,
        between: (outcomes) => Effect.succeed(outcomes.length >= 1 ? "past the calls allowed" : undefined)
      })
      assert.strictEqual(done.stopped, "past the calls allowed")
      assert.strictEqual(done.outcomes.length, 1)
      assert.strictEqual(yield* Ref.get(made), 1)
    })
  )
})
