/**
 * A consolidation over Postgres: its lines journaled `consolidate` in the journal table, its time kept in
 * `review_state` (the part `consolidated`), and an undo that reverts it whole.
 */
import { assert, describe, it } from "@effect/vitest"
import { MemoryConfig, MemoryScope } from "@mneme/core"
import { MemoryConsolidation, MemoryStore, ReviewState } from "@mneme/review"
import * as Testing from "@mneme/review/testing"
import { PostgresRoot } from "@mneme/sql"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { freshSchema, rootOptions, withClient } from "./fixtures/postgres.ts"

const noon = Date.UTC(2026, 11, 4, 12)
const own = MemoryScope.own("ada")
const facts = ["The user likes tea", "The user likes green tea a lot", "The user's flight to Oslo is on 2026-01-20"]
const tidy = JSON.stringify({
  changes: [
    { op: "edit", entry: 2, text: "The user likes tea, green tea most" },
    { op: "remove", entry: 1 },
    { op: "move", entry: 3, topic: "travel" }
  ]
})

describe("a consolidation over Postgres", () => {
  it.effect("journals its lines as one change an undo reverts, and keeps its time in the review state", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(noon)
      const schema = yield* freshSchema
      const layer = Layer.mergeAll(MemoryStore.layer, ReviewState.layer).pipe(
        Layer.provide(PostgresRoot.layer(rootOptions(schema))),
        Layer.provideMerge(MemoryConfig.layer({ timeZone: "UTC" })),
        Layer.merge(Testing.scriptedModel([tidy]))
      )
      yield* Effect.gen(function* () {
        const store = yield* MemoryStore.MemoryStore
        for (const text of facts) yield* store.add({ scope: own, text, actor: "test" })
        const result = yield* MemoryConsolidation.byHand(own, { dryRun: false, actor: "cli" })
        assert.strictEqual(result._tag, "Consolidated")
        const texts = (yield* store.load(own)).files.flatMap((file) =>
          file.parsed.entries.map((entry) => `${file.topic ?? "-"}: ${entry.text}`)
        )
        assert.deepStrictEqual(texts, ["-: The user likes tea, green tea most", `travel: ${facts[2]}`])
        const lines = (yield* store.journal()).filter((line) => line.op === "consolidate")
        assert.isAbove(lines.length, 3)
        const undone = yield* store.undo({ scope: own, actor: "test" })
        assert.include(undone[0]!.message, "the consolidation of agents/ada/MEMORY.md")
        const back = (yield* store.load(own)).files.flatMap((file) => file.parsed.entries.map((entry) => entry.text))
        assert.deepStrictEqual(back.toSorted(), facts.toSorted())
      }).pipe(Effect.provide(layer))
      const rows = yield* withClient(
        (sql) =>
          sql<{
            key: string
            value: number
          }>`SELECT key, value FROM ${sql(schema)}.review_state WHERE part = 'consolidated'`
      )
      assert.deepStrictEqual(
        rows.map((row) => [row.key, Number(row.value)]),
        [["agents/ada", noon]]
      )
    })
  )
})
