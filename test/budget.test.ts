/**
 * The review's cost budget per agent per day (`MemoryConfig.reviewBudget`): calls and tokens counted per agent and day
 * across its conversations, reviews past it waiting for the next day (warned once, kept as the last review's reason),
 * a person's review still running. The day is the test clock's, in the settings' time zone.
 */
import { assert, describe, it } from "@effect/vitest"
import { MemoryReview, type MemoryRoot, ReviewBudget, ReviewOutcome, ReviewState } from "@mneme/review"
import * as Testing from "@mneme/review/testing"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import * as Kit from "./reviewKit.ts"

const day = 24 * 60 * 60 * 1000
const state = ReviewState.ReviewState

/** The scripted answer adding `text`, with the tokens the model reports. */
const adding = (text: string, usage?: { inputTokens: number; outputTokens: number }) =>
  Effect.succeed({ text: Kit.answer({ op: "add", text }), ...(usage === undefined ? {} : { usage }) })

/** A second conversation "c2" of agent a1. */
const secondConversation = Effect.flatMap(Testing.TranscriptMemory, (host) => host.bind("c2", Kit.agent.id))

const appendTo = (id: string, text: string) =>
  Effect.flatMap(Testing.TranscriptMemory, (host) => host.append(id, { who: "user", text }))

describe("a cost budget per agent", () => {
  it.effect("calls across conversations stop at the budget until the next day; a person's review still runs", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      yield* secondConversation
      const scripted = yield* Testing.ScriptedModel
      yield* scripted.push(
        adding("The user likes maps", { inputTokens: 900, outputTokens: 20 }),
        adding("The user lives in Lyon", { inputTokens: 800, outputTokens: 30 }),
        adding("The user has a cat", { inputTokens: 700, outputTokens: 10 }),
        adding("The user rides a bike", { inputTokens: 600, outputTokens: 10 })
      )
      yield* Kit.append({ who: "user", text: "I like maps." })
      yield* Kit.turn()
      yield* appendTo("c2", "I live in Lyon.")
      yield* Kit.turn("c2")
      const today = ReviewBudget.dayOf(0, "UTC")
      assert.deepStrictEqual(yield* (yield* state).usage(Kit.agent.id, today), { calls: 2, tokens: 1_750 })

      // The third review of the day waits: no call, a warning once, the reason kept as the last review.
      yield* Kit.append({ who: "user", text: "I have a cat." })
      yield* Kit.turn()
      yield* Kit.append({ who: "user", text: "Her name is Mia." })
      yield* Kit.turn()
      assert.strictEqual((yield* Kit.requests).length, 2)
      const warned = yield* Kit.logged(ReviewOutcome.warnings.overBudget)
      assert.strictEqual(warned.length, 1)
      const reason =
        "the agent's review budget for 1970-01-01 is spent (2 of 2 model calls): its reviews wait for the next day, or a person's review"
      assert.deepStrictEqual(warned[0]!.annotations["reason"], reason)
      assert.deepStrictEqual(yield* (yield* state).lastReview(Kit.agent.id), { at: 6_000, ok: false, reason })
      assert.strictEqual(yield* Kit.cursor, 1)

      // A person's review is not held back, and is counted.
      const asked = yield* (yield* MemoryReview.MemoryReview).reviewNow(Kit.conversation)
      assert.strictEqual(asked._tag, "Reviewed")
      assert.deepStrictEqual(yield* (yield* state).usage(Kit.agent.id, today), {
        calls: 3,
        tokens: 2_460,
        warned: true
      })

      // The next day the held lines are reviewed.
      yield* TestClock.adjust(day)
      yield* Kit.append({ who: "user", text: "I ride a bike." })
      yield* Kit.turn()
      assert.strictEqual((yield* Kit.requests).length, 4)
      assert.strictEqual(yield* Kit.cursor, 4)
      const week = ReviewBudget.summary(yield* (yield* state).snapshot, Kit.agent.id, ReviewBudget.dayOf(day, "UTC"))
      assert.deepStrictEqual(week, { today: { calls: 1, tokens: 610 }, week: { calls: 4, tokens: 3_070 } })
      assert.strictEqual((yield* Kit.logged(ReviewOutcome.warnings.overBudget)).length, 1)
    }).pipe(Effect.provide(Kit.layer({ settings: { reviewBudget: { calls: 2 }, timeZone: "UTC" } })))
  )

  it.effect("tokens the model does not report are estimated, and a token budget stops an extra pass", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      const scripted = yield* Testing.ScriptedModel
      const eight = Array.from({ length: 8 }, (_, i) => ({ op: "add", text: `The user knows fact ${i + 1}` }))
      yield* scripted.push(Effect.succeed({ text: Kit.answer(...eight) }))
      yield* Kit.append({ who: "user", text: "Here are eight facts." })
      yield* Kit.turn()
      const requests = yield* Kit.requests
      // Over the budget after one call: the answer at the cap earns no extra pass, and the cursor still moves.
      assert.strictEqual(requests.length, 1)
      assert.strictEqual(yield* Kit.cursor, 1)
      const sent = requests[0]!
      const expected =
        ReviewBudget.estimateTokens([...sent.system].length + [...sent.request].length) +
        ReviewBudget.estimateTokens([...Kit.answer(...eight)].length)
      const usage = yield* (yield* state).usage(Kit.agent.id, ReviewBudget.dayOf(0, "UTC"))
      assert.deepStrictEqual(usage, { calls: 1, tokens: expected })
      const outcome = yield* (yield* MemoryReview.MemoryReview).lastReview(Kit.agent.id)
      assert.deepStrictEqual(outcome?.ok, true)
    }).pipe(Effect.provide(Kit.layer({ settings: { reviewBudget: { tokens: 100 }, timeZone: "UTC" } })))
  )

  it.effect("a failed call counts too, and the day follows the time zone", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      yield* (yield* Testing.ScriptedModel).push(Effect.succeed({ text: "no json here" }))
      yield* TestClock.adjust(23 * 60 * 60 * 1000)
      yield* Kit.append({ who: "user", text: "I like maps." })
      yield* Kit.turn()
      // 23:00 UTC is the next day in Tokyo.
      const usage = yield* (yield* state).usage(Kit.agent.id, "1970-01-02")
      assert.strictEqual(usage.calls, 1)
      assert.isAbove(usage.tokens, 0)
    }).pipe(Effect.provide(Kit.layer({ settings: { timeZone: "Asia/Tokyo" } })))
  )
})

describe("the budget's days", () => {
  it("keeps the last 8 days and adds up a week", () => {
    let doc: MemoryRoot.ReviewStateDocument = { version: 2, cursors: {}, failures: {}, lastReviews: {} }
    for (let i = 1; i <= 10; i++) {
      doc = ReviewBudget.withSpent("a1", `2026-12-${String(i).padStart(2, "0")}`, { calls: i, tokens: 10 * i })(doc)
    }
    assert.deepStrictEqual(Object.keys(doc.usage!["a1"]!), [
      "2026-12-03",
      "2026-12-04",
      "2026-12-05",
      "2026-12-06",
      "2026-12-07",
      "2026-12-08",
      "2026-12-09",
      "2026-12-10"
    ])
    const seven = 4 + 5 + 6 + 7 + 8 + 9 + 10
    assert.deepStrictEqual(ReviewBudget.summary(doc, "a1", "2026-12-10"), {
      today: { calls: 10, tokens: 100 },
      week: { calls: seven, tokens: 10 * seven }
    })
    assert.strictEqual(ReviewBudget.daysBefore("2026-03-01", 1), "2026-02-28")
    assert.strictEqual(
      ReviewBudget.overBudget({ calls: 1, tokens: 5 }, { calls: 2, tokens: 10 }, "2026-12-10"),
      undefined
    )
    assert.strictEqual(ReviewBudget.overBudget({ calls: 1, tokens: 5 }, undefined, "2026-12-10"), undefined)
    assert.strictEqual(ReviewBudget.nextDayAt(Date.UTC(2026, 11, 10, 23), "Asia/Tokyo"), Date.UTC(2026, 11, 11, 15))
  })
})
