/**
 * No feedback loop (docs/spec.md 7, issue 12): the review never learns from memory's own output. Tool calls, tool results
 * (even where a host gives them as the user's, as some providers' logs do) and quoted memory are never new lines to
 * keep: a naive model that keeps every new user line it is shown keeps the user's words and nothing a recall gave
 * back, and a turn whose only new lines are tool lines makes no model call at all. What the agent remembered itself in
 * a turn is not added again by the review of that turn.
 */
import { assert, describe, it } from "@effect/vitest"
import { MemoryFile } from "@mneme/core"
import { MemoryReview, MemoryTools } from "@mneme/review"
import * as Testing from "@mneme/review/testing"
import { Effect } from "effect"
import * as Kit from "./reviewKit.ts"

const memoryFile = "agents/a1/MEMORY.md"

/** The new lines a request shows, each numbered (`[3] user: "…"`), as `[label, text]`. */
const newLines = (request: string) => {
  const start = request.indexOf("## New lines (oldest first)\n")
  const end = request.indexOf("\n\n", start)
  return request
    .slice(start, end)
    .split("\n")
    .slice(1, -1)
    .map((line) => {
      const numbered = /^\[\d+\] /.exec(line)
      assert.isNotNull(numbered, line)
      const at = line.indexOf(': "')
      return [line.slice(numbered![0].length, at), JSON.parse(line.slice(at + 2)) as string] as const
    })
}

/** A model that keeps every new user line it is shown, word for word: the feedback loop's worst case. */
const keepsEveryUserLine = Effect.gen(function* () {
  const model = yield* Testing.ScriptedModel
  return Effect.map(model.requests, (all) =>
    Kit.answer(
      ...newLines(all.at(-1)?.request ?? "")
        .filter(([label]) => label === "user")
        .map(([, text]) => ({ op: "add", text }))
    )
  )
})

const entries = Effect.map(Kit.file(memoryFile), (text) => MemoryFile.parse(text).entries.map((entry) => entry.text))

describe("no feedback loop (issue 12)", () => {
  it.effect("a recall result quoting memory, given as the user's, is never kept; the user's own words are", () =>
    Effect.gen(function* () {
      yield* Kit.setUp({ entries: ["The user likes green tea"] })
      const model = yield* Testing.ScriptedModel
      yield* model.push(yield* keepsEveryUserLine, yield* keepsEveryUserLine)
      const recalled = JSON.stringify({ entries: [{ scope: "own", text: "The user likes green tea" }] })
      yield* Kit.append(
        { who: "user", text: "I drink oolong in the evening" },
        { who: "agent", kind: "tool-call", text: '{"tool":"recall","query":"tea"}' },
        { who: "user", kind: "tool-result", text: recalled },
        { who: "agent", text: "You like green tea, and oolong in the evening." }
      )
      const first = yield* (yield* MemoryReview.MemoryReview).reviewNow(Kit.conversation)
      assert.strictEqual(first._tag, "Reviewed")
      const [request] = yield* Kit.requests
      assert.deepStrictEqual(newLines(request?.request ?? ""), [
        ["user", "I drink oolong in the evening"],
        ['agent "Ada"', "You like green tea, and oolong in the evening."]
      ])
      assert.deepStrictEqual(yield* entries, ["The user likes green tea", "I drink oolong in the evening"])
      assert.strictEqual(yield* Kit.cursor, 4)

      // A turn of tool lines only: the agent remembers, reads the result, quotes its memory section.
      yield* Kit.append(
        { who: "agent", kind: "tool-call", text: '{"tool":"remember","text":"The user likes green tea"}' },
        { who: "user", kind: "tool-result", text: '{"changed":false,"message":"nothing changed"}' },
        { who: "agent", kind: "memory", text: "## Long-term memory\n- The user likes green tea" },
        { who: "agent", text: "Noted." }
      )
      yield* Kit.turn()
      assert.strictEqual((yield* Kit.requests).length, 1, "no model call for tool lines")
      assert.strictEqual(yield* Kit.cursor, 8)
      assert.deepStrictEqual(yield* entries, ["The user likes green tea", "I drink oolong in the evening"])
    }).pipe(Effect.provide(Kit.layer()))
  )

  it.effect("what the agent remembered in a turn is not added again by that turn's review", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      const model = yield* Testing.ScriptedModel
      yield* model.push(yield* keepsEveryUserLine)
      yield* Kit.append({ who: "user", text: "The user moved to Lyon" })
      const turn = yield* MemoryTools.startTurn(Kit.agent.id)
      const remembered = yield* MemoryTools.call(turn, "remember", { text: "The user moved to Lyon" })
      assert.isFalse(remembered.isError)
      yield* Kit.append(
        { who: "agent", kind: "tool-call", text: '{"tool":"remember","text":"The user moved to Lyon"}' },
        { who: "agent", kind: "tool-result", text: JSON.stringify(remembered.result) },
        { who: "agent", text: "Noted: you live in Lyon now." }
      )
      const outcome = yield* (yield* MemoryReview.MemoryReview).reviewNow(Kit.conversation)
      assert.strictEqual(outcome._tag, "Reviewed")
      assert.deepStrictEqual(outcome.changes.added, [])
      assert.deepStrictEqual(
        outcome.changes.skipped.map((skipped) => skipped.reason),
        [`nothing changed: ${memoryFile} already holds "The user moved to Lyon"`]
      )
      assert.deepStrictEqual(yield* entries, ["The user moved to Lyon"])
    }).pipe(Effect.provide(Kit.layer()))
  )
})
