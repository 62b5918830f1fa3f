/**
 * Groups as a port of their own: a host that provides none has no group conversation, so every conversation is
 * reviewed as its owning agent's; a host's `Groups.layer` makes a conversation a group of member agents.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import type { Lines } from "@mneme/core"
import { Effect, Layer, Stream } from "effect"
import { Agents } from "../src/Agents.ts"
import * as Groups from "../src/Groups.ts"
import * as Memory from "../src/Memory.ts"
import * as MemoryReview from "../src/MemoryReview.ts"
import { layerTest } from "../src/Platform.ts"
import * as Testing from "../src/testing.ts"
import { make as makeTranscript, Transcript } from "../src/Transcript.ts"
import { tempRoot } from "./fixtures/kit.ts"

const lines: ReadonlyArray<Lines.Line> = [
  { seq: 1, who: "user", text: "I always travel with my bike." },
  { seq: 2, who: "agent", text: "Noted." }
]

/** A host with a transcript, an agent and a model, and no groups: the composition over a temporary root. */
const withoutGroups = Layer.unwrap(Effect.map(tempRoot, (root) => Memory.layer({ root }))).pipe(
  Layer.provideMerge(
    Layer.mergeAll(
      Layer.succeed(Transcript)(
        makeTranscript({
          newestFirst: () => Stream.fromIterable(lines.toReversed()),
          agentOf: () => Effect.succeed("a1"),
          anchor: (id, seq) => Effect.succeed(`${id} #${seq}`)
        })
      ),
      Layer.succeed(Agents)(
        Agents.of({
          get: (agentId) => Effect.succeed(agentId === "a1" ? { id: "a1", name: "A1", mayWriteTeam: false } : undefined)
        })
      ),
      Testing.scriptedModel([], { otherwise: JSON.stringify({ changes: [] }) }),
      layerTest()
    )
  ),
  Layer.provide(NodeServices.layer)
)

describe("Groups", () => {
  it.effect("not provided, no conversation is a group: a conversation's one review is its owner's", () =>
    Effect.gen(function* () {
      const groups = yield* Groups.Groups
      assert.strictEqual(groups, Groups.none)
      assert.isUndefined(yield* groups.membersOf("c1"))
      assert.deepStrictEqual(yield* MemoryReview.targetsIn(groups, "c1"), [{ conversationId: "c1", member: undefined }])
    })
  )

  it.effect("a host's layer makes a conversation a group: one review per member", () =>
    Effect.gen(function* () {
      const groups = yield* Groups.Groups
      assert.deepStrictEqual(yield* MemoryReview.targetsIn(groups, "g1"), [
        { conversationId: "g1", member: "ada" },
        { conversationId: "g1", member: "bob" }
      ])
      assert.deepStrictEqual(yield* MemoryReview.targetsIn(groups, "c1"), [{ conversationId: "c1", member: undefined }])
    }).pipe(
      Effect.provide(
        Groups.layer((conversationId) => Effect.succeed(conversationId === "g1" ? ["ada", "bob"] : undefined))
      )
    )
  )

  it.effect("the composition over a host without groups reviews a conversation as its owner's", () =>
    Effect.gen(function* () {
      const review = yield* MemoryReview.MemoryReview
      const outcome = yield* review.reviewNow("c1")
      assert.deepStrictEqual([outcome._tag, outcome.agentId, outcome.cursor], ["Reviewed", "a1", 2])
      assert.strictEqual((yield* (yield* Testing.ScriptedModel).requests).length, 1)
    }).pipe(Effect.provide(withoutGroups))
  )
})
