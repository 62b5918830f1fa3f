/**
 * A full memory makes room: when a change finds MEMORY.md full (or it is past `consolidateAt` of its size), the review
 * runs a consolidation pass over it — merges, removals and moves to topics, answered by the scripted model — and then
 * tries the change again. Nothing is lost silently (every text removed is in the journal), the pass is undone as one
 * change, and at most one runs per scope per `consolidateEvery` (the test clock's).
 */
import { assert, describe, it } from "@effect/vitest"
import { Consolidation, MemoryScope, ModelError } from "@mneme/core"
import { MemoryReview, MemoryStore, ReviewOutcome, ReviewState } from "@mneme/review"
import * as Testing from "@mneme/review/testing"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import * as Kit from "./reviewKit.ts"

const memoryFile = "agents/a1/MEMORY.md"
const own = MemoryScope.own(Kit.agent.id)

const facts = [
  "The user likes tea",
  "The user likes tea a lot",
  "The user's flight to Oslo is on 2026-01-20",
  "The user's bike is a red Canyon road bike with 28 mm tyres and a Shimano 105 groupset"
]

/** MEMORY.md by hand: the facts above, then fillers up to `size` characters at most. */
const fullMemory = (size: number) =>
  Effect.gen(function* () {
    const lines = ["# Memory", "", ...facts.map((fact) => `- ${fact}`)]
    for (let i = 0; ; i++) {
      const next = `- Filler fact number ${String(i).padStart(3, "0")} about the user's habits`
      if ([...lines, next, "", "## Index", ""].join("\n").length > size) break
      lines.push(next)
    }
    const content = [...lines, "", "## Index", ""].join("\n")
    yield* Kit.writeFile(memoryFile, content)
    return content
  })

/** The consolidation's answer: merge 1 and 2, remove the stale 3, move the detail 4 to "bike", remove fillers 5, 6. */
const tidy = Kit.answer(
  { op: "edit", entry: 1, text: "The user likes tea a lot, green tea most" },
  { op: "remove", entry: 2 },
  { op: "remove", entry: 3 },
  { op: "move", entry: 4, topic: "bike" },
  { op: "remove", entry: 5 },
  { op: "remove", entry: 6 }
)

const entries = Effect.gen(function* () {
  const store = yield* MemoryStore.MemoryStore
  const scope = yield* store.load(own)
  return scope.files.flatMap((file) => file.parsed.entries.map((entry) => `${file.topic ?? "-"}: ${entry.text}`))
})

const journal = Effect.flatMap(MemoryStore.MemoryStore, (store) => store.journal())

describe("a full memory makes room", () => {
  it.effect("a change that finds MEMORY.md full is landed after a consolidation, within its bound", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      const original = yield* fullMemory(600)
      const scripted = yield* Testing.ScriptedModel
      yield* scripted.push(
        Effect.succeed({ text: Kit.answer({ op: "add", text: "The user moved to Lyon in 2026" }) }),
        Effect.succeed({ text: tidy })
      )
      yield* Kit.append({ who: "user", text: "I moved to Lyon this year." })
      const outcome = yield* (yield* MemoryReview.MemoryReview).reviewNow(Kit.conversation)
      assert.strictEqual(outcome._tag, "Reviewed", ReviewOutcome.reasonOf(outcome) ?? "")
      assert.strictEqual(outcome.modelCalls, 2)
      const requests = yield* Kit.requests
      assert.strictEqual(requests[1]!.system, Consolidation.system)
      assert.include(requests[1]!.request, `[4] "${facts[3]}"`)

      // The new fact landed, the detail moved, the merge and the removals are listed in the outcome.
      const now = yield* entries
      assert.include(now, "-: The user moved to Lyon in 2026")
      assert.include(now, `bike: ${facts[3]}`)
      assert.notInclude(now, `-: ${facts[2]}`)
      assert.deepStrictEqual(outcome.changes.added, [
        { scope: "own", topic: undefined, text: "The user moved to Lyon in 2026" }
      ])
      const [consolidated] = outcome.changes.consolidated ?? []
      assert.deepStrictEqual(
        consolidated?.removed.map((entry) => entry.text),
        [
          facts[1],
          facts[2],
          "Filler fact number 000 about the user's habits",
          "Filler fact number 001 about the user's habits"
        ]
      )
      assert.deepStrictEqual(consolidated?.edited, [
        { scope: "own", topic: undefined, before: facts[0]!, text: "The user likes tea a lot, green tea most" }
      ])
      assert.deepStrictEqual(consolidated?.moved, [{ text: facts[3]!, topic: "bike" }])
      assert.isBelow(consolidated!.after, consolidated!.before)
      assert.strictEqual((yield* Kit.logged(ReviewOutcome.warnings.consolidated)).length, 1)

      // Nothing lost silently: every text the consolidation took out of MEMORY.md is in its journal lines.
      const lines = (yield* journal).filter((line) => line.op === "consolidate")
      assert.isTrue(lines.every((line) => line.actor === "review"))
      const journaled = lines.flatMap((line) => [line.before ?? "", line.after ?? ""]).join("\n")
      const kept = new Set((yield* Kit.file(memoryFile)).split("\n"))
      const gone = original.split("\n").filter((line) => line.startsWith("- ") && !kept.has(line))
      assert.strictEqual(gone.length, 6)
      for (const line of gone) assert.include(journaled, line)

      // The bound: within the hour a full MEMORY.md is not consolidated again, and the change fails as before.
      yield* fullMemory(600)
      yield* scripted.push(Effect.succeed({ text: Kit.answer({ op: "add", text: "The user has a cat named Mia" }) }))
      yield* Kit.append({ who: "user", text: "I have a cat, Mia." })
      yield* TestClock.adjust("59 minutes")
      const bounded = yield* (yield* MemoryReview.MemoryReview).reviewNow(Kit.conversation)
      assert.strictEqual(bounded._tag, "Failed")
      assert.strictEqual(bounded._tag === "Failed" ? bounded.error._tag : "", "MemoryFull")
      assert.strictEqual((yield* Kit.requests).length, 3)
      // An hour after the last, it may run again.
      yield* TestClock.adjust("1 minute")
      yield* scripted.push(
        Effect.succeed({ text: Kit.answer({ op: "add", text: "The user has a cat named Mia" }) }),
        Effect.succeed({ text: tidy })
      )
      const again = yield* (yield* MemoryReview.MemoryReview).reviewNow(Kit.conversation)
      assert.strictEqual(again._tag, "Reviewed", ReviewOutcome.reasonOf(again) ?? "")
      assert.strictEqual((yield* Kit.requests)[4]!.system, Consolidation.system)
      assert.include(yield* entries, "-: The user has a cat named Mia")
    }).pipe(Effect.provide(Kit.layer({ settings: { memoryMax: 600, consolidateAt: 1, timeZone: "UTC" } })))
  )

  it.effect("a MEMORY.md past consolidateAt is consolidated before the review asks, and undone as one change", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      yield* fullMemory(590)
      const before = yield* entries
      const scripted = yield* Testing.ScriptedModel
      yield* scripted.push(
        Effect.succeed({ text: tidy }),
        Effect.succeed({ text: Kit.answer({ op: "add", text: "The user moved to Lyon in 2026" }) })
      )
      yield* Kit.append({ who: "user", text: "I moved to Lyon this year." })
      yield* Kit.turn()
      const requests = yield* Kit.requests
      assert.deepStrictEqual(
        requests.map((request) => request.system === Consolidation.system),
        [true, false]
      )
      // The review's request shows MEMORY.md as the consolidation left it.
      assert.notInclude(requests[1]!.request, facts[2]!)
      assert.include(yield* entries, "-: The user moved to Lyon in 2026")

      // Undo: the add, then the whole consolidation, as one change.
      const store = yield* MemoryStore.MemoryStore
      const undone = yield* store.undo({ scope: own, count: 2, actor: "test" })
      assert.strictEqual(undone.length, 2)
      assert.include(undone[1]!.message, "the consolidation of agents/a1/MEMORY.md")
      assert.deepStrictEqual((yield* entries).toSorted(), before.toSorted())
      assert.strictEqual((yield* Kit.file(memoryFile)).includes("[[bike]]"), false)
    }).pipe(Effect.provide(Kit.layer({ settings: { memoryMax: 600, timeZone: "UTC" } })))
  )

  it.effect("an answer that names an unlisted entry fails the consolidation whole, and changes nothing", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      const original = yield* fullMemory(590)
      yield* (yield* Testing.ScriptedModel).push(
        Effect.succeed({ text: Kit.answer({ op: "remove", entry: 2 }, { op: "move", entry: 99, topic: "bike" }) })
      )
      yield* Kit.append({ who: "user", text: "I moved to Lyon this year." })
      const outcome = yield* (yield* MemoryReview.MemoryReview).reviewNow(Kit.conversation)
      assert.strictEqual(outcome._tag, "Failed")
      if (outcome._tag !== "Failed") return
      assert.strictEqual(outcome.error._tag, "UnlistedEntry")
      assert.strictEqual(outcome.error.message, "the model's answer names entry 99, but the review listed 11 entries")
      assert.strictEqual(yield* Kit.file(memoryFile), original)
      assert.strictEqual(outcome.modelCalls, 1)
    }).pipe(Effect.provide(Kit.layer({ settings: { memoryMax: 600, timeZone: "UTC" } })))
  )
})

describe("a consolidation that fails", () => {
  it.effect("fails the review, counted by the failure policy, changes nothing, and is not tried again at once", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      const original = yield* fullMemory(590)
      yield* (yield* Testing.ScriptedModel).push(Effect.fail(new ModelError({ reason: "down", retryable: true })))
      yield* Kit.append({ who: "user", text: "I moved to Lyon this year." })
      yield* Kit.turn()
      const last = yield* (yield* MemoryReview.MemoryReview).lastReview(Kit.agent.id)
      assert.deepStrictEqual([last?.ok, last?.reason], [false, "the model failed: down"])
      assert.strictEqual((yield* (yield* ReviewState.ReviewState).failure(Kit.key))?.times.length, 1)
      assert.strictEqual(yield* Kit.file(memoryFile), original)
      // The next turn within the hour asks the review's own model, not another consolidation.
      yield* (yield* Testing.ScriptedModel).push(
        Effect.succeed({ text: Kit.answer({ op: "add", text: "The user moved to Lyon in 2026" }) })
      )
      yield* Kit.turn()
      const requests = yield* Kit.requests
      assert.deepStrictEqual(
        requests.map((request) => request.system === Consolidation.system),
        [true, false]
      )
      // Its add finds MEMORY.md full, and within the bound that fails the review as before: nothing is lost.
      const again = yield* (yield* MemoryReview.MemoryReview).lastReview(Kit.agent.id)
      assert.include(again?.reason, "agents/a1/MEMORY.md would hold")
      assert.strictEqual(yield* Kit.file(memoryFile), original)
    }).pipe(Effect.provide(Kit.layer({ settings: { memoryMax: 600, timeZone: "UTC" } })))
  )
})
