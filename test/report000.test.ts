/**
 * Report 000: one over-long entry in a review's answer discarded the whole answer, and the review never moved past
 * those lines. Now the entry is left out on its own with one warning, the rest lands, and the cursor moves on.
 */
import { assert, it } from "@effect/vitest"
import { MemoryReview, ReviewState } from "@mneme/review"
import * as Testing from "@mneme/review/testing"
import { Effect } from "effect"
import * as Kit from "./reviewKit.ts"

const long = `The user is planning a long trip ${"and wants every detail of it remembered ".repeat(8)}`.slice(0, 348)

it.effect("an entry memory cannot keep is left out, the rest of the answer lands, and the review moves on", () =>
  Effect.gen(function* () {
    assert.strictEqual(long.length, 348)
    yield* Kit.setUp({ entries: ["Likes tea"] })
    assert.include(yield* Kit.file("agents/a1/MEMORY.md"), "- Likes tea")
    yield* Kit.append(
      { seq: 10, who: "user", text: "I don't drink tea any more, only water. And remember my whole trip plan." },
      { seq: 11, who: "agent", text: "Noted." }
    )
    const during: Array<number | undefined> = []
    const model = yield* Testing.ScriptedModel
    const state = yield* ReviewState.ReviewState
    yield* model.push(
      Effect.map(Effect.orDie(state.cursor(Kit.key)), (cursor) => {
        during.push(cursor)
        return Kit.answer({ op: "add", text: long }, { op: "remove", entry: 1 })
      })
    )

    yield* Kit.turn()

    const requests = yield* Kit.requests
    assert.strictEqual(requests.length, 1)
    assert.include(requests[0]!.request, `1. own MEMORY.md: "Likes tea"`)
    const memory = yield* Kit.file("agents/a1/MEMORY.md")
    assert.notInclude(memory, "Likes tea")
    assert.notInclude(memory, "long trip")
    const leftOut = yield* Kit.logged(MemoryReview.warnings.leftOut)
    assert.strictEqual(leftOut.length, 1)
    assert.include(String(leftOut[0]!.annotations.problem), "348 characters, over the limit of 300")
    assert.strictEqual((yield* Kit.logged(MemoryReview.warnings.failed)).length, 0)
    assert.deepStrictEqual(during, [9])
    assert.strictEqual(yield* Kit.cursor, 11)
    const last = yield* (yield* MemoryReview.MemoryReview).lastReview(Kit.agent.id)
    assert.deepStrictEqual(last && { ok: last.ok, reason: last.reason }, { ok: true, reason: null })

    yield* Kit.turn()
    assert.strictEqual((yield* Kit.requests).length, 1, "a turn end with no new line makes no request")
  }).pipe(Effect.provide(Kit.layer()))
)
