/**
 * The review's budget per agent and day over Postgres: what the reviews spent is kept in `review_state` (rows of the
 * part `usage`, one per agent), so another replica sees it and holds its reviews past the budget too.
 */
import { assert, describe, it } from "@effect/vitest"
import { MemoryConfig } from "@mneme/core"
import { Memory, MemoryReview, ReviewState } from "@mneme/review"
import * as Testing from "@mneme/review/testing"
import { PostgresRoot } from "@mneme/sql"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { freshSchema, rootOptions, withClient } from "./fixtures/postgres.ts"

const noon = Date.UTC(2026, 11, 4, 12)
const settings = { timeZone: "UTC", reviewBudget: { calls: 1 } } as const
const answer = (text: string) => ({
  text: JSON.stringify({ changes: [{ op: "add", text }] }),
  usage: { inputTokens: 400, outputTokens: 20 }
})

describe("the review budget over Postgres", () => {
  it.effect("what an agent's reviews spent is shared by replicas, which hold their reviews past it", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(noon)
      const schema = yield* freshSchema
      const replica = Memory.layerOver(PostgresRoot.layer(rootOptions(schema)), { settings }).pipe(
        Layer.provideMerge(
          Layer.merge(
            Testing.transcriptMemory,
            Testing.scriptedModel([Effect.succeed(answer("The user prefers dark mode"))])
          )
        )
      )
      const turn = (...texts: ReadonlyArray<string>) =>
        Effect.gen(function* () {
          const host = yield* Testing.TranscriptMemory
          yield* host.addAgent({ id: "ada", name: "Ada", mayWriteTeam: false })
          yield* host.bind("chat-1", "ada")
          // Each replica's host has the conversation's log whole.
          yield* host.append("chat-1", ...texts.map((text) => ({ who: "user" as const, text })))
          const review = yield* MemoryReview.MemoryReview
          yield* review.turnEnded("chat-1")
          yield* TestClock.adjust("2 seconds")
          yield* review.awaitIdle
          return yield* review.lastReview("ada")
        })
      const first = yield* turn("I prefer dark mode").pipe(Effect.provide(replica))
      assert.deepStrictEqual(first, { at: noon + 2_000, ok: true, reason: null })
      // Another replica: the day's one call is spent, so its review waits, without asking its model.
      const second = yield* turn("I prefer dark mode", "I like tea").pipe(Effect.provide(replica))
      assert.strictEqual(
        second?.reason,
        "the agent's review budget for 2026-12-04 is spent (1 of 1 model calls): its reviews wait for the next day, or a person's review"
      )
      const usage = yield* ReviewState.ReviewState.use((state) => state.usage("ada", "2026-12-04")).pipe(
        Effect.provide(
          ReviewState.layer.pipe(
            Layer.provide(PostgresRoot.layer(rootOptions(schema))),
            Layer.provide(MemoryConfig.layer(settings))
          )
        )
      )
      assert.deepStrictEqual(usage, { calls: 1, tokens: 420, warned: true })
      const rows = yield* withClient(
        (sql) => sql<{ key: string }>`SELECT key FROM ${sql(schema)}.review_state WHERE part = 'usage'`
      )
      assert.deepStrictEqual(
        rows.map((row) => row.key),
        ["ada"]
      )
    })
  )
})
