/**
 * Each fact cites its line (issue 27, item 1): the request numbers the lines it shows, an answer's `from` names the
 * lines a fact comes from, and the entry's source cites them by the transcript's anchor; a number the request did not
 * show is ignored with a warning and the source is the newest user line the model saw, as before. Time is the test
 * clock; memory files are real, in a temporary folder.
 */
import { assert, describe, it } from "@effect/vitest"
import { MemoryReview, ReviewState } from "@mneme/review"
import * as Testing from "@mneme/review/testing"
import { Effect } from "effect"
import * as Kit from "./reviewKit.ts"

const memoryFile = "agents/a1/MEMORY.md"
const review = MemoryReview.MemoryReview

/** Lines 1 to 11 of conversation "b2": Marco says what he does at #1; the pass's last user line is #11. */
const marco = Kit.append(
  { seq: 1, who: "user", text: "Hi, I'm Marco. I'm a backend developer." },
  { seq: 2, who: "agent", text: "Nice to meet you, Marco." },
  { seq: 3, who: "user", text: "I live in Turin." },
  { seq: 4, who: "agent", text: "Turin is lovely." },
  { seq: 5, who: "user", text: "Can you help me with a query?" },
  { seq: 6, who: "agent", text: "Of course." },
  { seq: 7, who: "user", text: "It joins orders and customers." },
  { seq: 8, who: "agent", text: "Here is a faster version." },
  { seq: 9, who: "user", text: "Thanks, that works." },
  { seq: 10, who: "agent", text: "Glad it helped." },
  { seq: 11, who: "user", text: "By the way, I prefer short answers." }
)

/** The conversation's cursor set to `seq`, as if the lines up to it had been reviewed. */
const reviewedTo = (seq: number) => Effect.flatMap(ReviewState.ReviewState, (state) => state.setCursor(Kit.key, seq))

/** The entry lines of the agent's MEMORY.md. */
const entries = Effect.map(Kit.file(memoryFile), (text) => text.split("\n").filter((line) => line.startsWith("- ")))

/** Drops the date an entry's metadata ends with, which the test clock sets. */
const undated = (line: string) => line.replace(/; added: \d{4}-\d{2}-\d{2}\]$/, "]")

describe("each fact cites its line", () => {
  it.effect("a fact said at #1 and cited from line 1 is stored with source #1, though the last user line is #11", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      yield* marco
      yield* reviewedTo(0)
      yield* (yield* Testing.ScriptedModel).push(
        Kit.answer(
          { op: "add", text: "Marco is a backend developer", from: 1 },
          { op: "add", text: "Marco prefers short answers" }
        )
      )
      const outcome = yield* (yield* review).reviewNow(Kit.conversation)
      assert.strictEqual(outcome._tag, "Reviewed")
      const [request] = yield* Kit.requests
      assert.include(request!.request, `\n[1] user: "Hi, I'm Marco. I'm a backend developer."\n`)
      assert.include(request!.request, `\n[11] user: "By the way, I prefer short answers."\n`)
      assert.deepStrictEqual((yield* entries).map(undated), [
        "- Marco is a backend developer [source: b2 #1]",
        "- Marco prefers short answers [source: b2 #11]"
      ])
      assert.deepStrictEqual(yield* Kit.logged(MemoryReview.warnings.unshownLine), [])
      assert.strictEqual(yield* Kit.cursor, 11)
    }).pipe(Effect.provide(Kit.layer()))
  )

  it.effect("the context lines are numbered first: several lines are cited in order, each once", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      yield* marco
      yield* reviewedTo(6)
      yield* (yield* Testing.ScriptedModel).push(
        Kit.answer({ op: "add", text: "Marco lives in Turin and writes SQL", from: [5, 1, "5", 3] })
      )
      yield* (yield* review).reviewNow(Kit.conversation)
      const [request] = yield* Kit.requests
      const numbered = request!.request.split("\n").filter((row) => row.startsWith("["))
      assert.deepStrictEqual(numbered, [
        `[1] user: "I live in Turin."`,
        `[2] agent "Ada": "Turin is lovely."`,
        `[3] user: "Can you help me with a query?"`,
        `[4] agent "Ada": "Of course."`,
        `[5] user: "It joins orders and customers."`,
        `[6] agent "Ada": "Here is a faster version."`,
        `[7] user: "Thanks, that works."`,
        `[8] agent "Ada": "Glad it helped."`,
        `[9] user: "By the way, I prefer short answers."`
      ])
      assert.include(request!.request, "## New lines (oldest first)\n[5] user:")
      assert.deepStrictEqual((yield* entries).map(undated), [
        "- Marco lives in Turin and writes SQL [source: b2 #3, b2 #5, b2 #7]"
      ])
    }).pipe(Effect.provide(Kit.layer()))
  )

  it.effect("an entry cites at most 4 lines, the first in the request's order", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      yield* marco
      yield* reviewedTo(0)
      yield* (yield* Testing.ScriptedModel).push(
        Kit.answer({ op: "add", text: "Marco talks a lot", from: [11, 9, 7, 5, 3, 1] })
      )
      yield* (yield* review).reviewNow(Kit.conversation)
      assert.deepStrictEqual((yield* entries).map(undated), [
        "- Marco talks a lot [source: b2 #1, b2 #3, b2 #5, b2 #7]"
      ])
    }).pipe(Effect.provide(Kit.layer()))
  )

  it.effect("a number the request did not show is ignored with a warning; with none shown, today's source", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      yield* marco
      yield* reviewedTo(0)
      yield* (yield* Testing.ScriptedModel).push(
        Kit.answer(
          { op: "add", text: "Marco is a backend developer", from: 12 },
          { op: "add", text: "Marco lives in Turin", from: [3, 40, 12] },
          { op: "add", text: "Marco prefers short answers", from: 11 }
        )
      )
      const outcome = yield* (yield* review).reviewNow(Kit.conversation)
      assert.strictEqual(outcome._tag, "Reviewed")
      assert.deepStrictEqual((yield* entries).map(undated), [
        "- Marco is a backend developer [source: b2 #11]",
        "- Marco lives in Turin [source: b2 #3]",
        "- Marco prefers short answers [source: b2 #11]"
      ])
      const warned = yield* Kit.logged(MemoryReview.warnings.unshownLine)
      assert.deepStrictEqual(
        warned.map((line) => [line.level, line.annotations.change, line.annotations.lines, line.annotations.shown]),
        [
          ["Warn", `add "Marco is a backend developer"`, [12], 11],
          ["Warn", `add "Marco lives in Turin"`, [12, 40], 11]
        ]
      )
      assert.strictEqual(warned[0]!.annotations.source, "b2 #11")
      assert.strictEqual(
        MemoryReview.warnings.unshownLine,
        "memory review ignored a line number the request did not show"
      )
      assert.strictEqual(yield* Kit.cursor, 11)
    }).pipe(Effect.provide(Kit.layer()))
  )

  it.effect("an edit with from cites its line in place of the old source, its other metadata kept", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      yield* Kit.writeFile(
        memoryFile,
        "# Memory\n\n- Marco is a junior developer [source: old #2; added: 2026-01-05]\n- Likes tea\n\n## Index\n"
      )
      yield* marco
      yield* reviewedTo(0)
      yield* (yield* Testing.ScriptedModel).push(
        Kit.answer(
          { op: "edit", entry: 1, text: "Marco is a backend developer", from: "1" },
          { op: "edit", entry: 2, text: "Marco likes green tea" }
        )
      )
      const outcome = yield* (yield* review).reviewNow(Kit.conversation)
      assert.strictEqual(outcome._tag, "Reviewed")
      assert.deepStrictEqual(yield* entries, [
        "- Marco is a backend developer [source: b2 #1; added: 2026-01-05]",
        "- Marco likes green tea [source: b2 #11; added: 1970-01-01]"
      ])
    }).pipe(Effect.provide(Kit.layer()))
  )

  it.effect("a malformed from fails the whole answer: nothing is written and the cursor stays", () =>
    Effect.gen(function* () {
      yield* Kit.setUp({ entries: ["Likes tea"] })
      const before = yield* Kit.file(memoryFile)
      yield* marco
      yield* reviewedTo(0)
      yield* (yield* Testing.ScriptedModel).push(
        Kit.answer({ op: "remove", entry: 1 }, { op: "add", text: "Marco is a backend developer", from: "L1" })
      )
      const outcome = yield* (yield* review).reviewNow(Kit.conversation)
      assert.strictEqual(outcome._tag, "Failed")
      if (outcome._tag !== "Failed") return
      assert.strictEqual(outcome.error._tag, "MalformedAnswer")
      assert.strictEqual(
        outcome.error._tag === "MalformedAnswer" ? outcome.error.reason : "",
        "changes[1].from: expected a string matching the RegExp ^[0-9]+$"
      )
      assert.include(outcome.reason, "the model's answer is not a list of changes (changes[1].from: expected a string")
      assert.strictEqual(yield* Kit.file(memoryFile), before)
      assert.strictEqual(yield* Kit.cursor, 0)
    }).pipe(Effect.provide(Kit.layer()))
  )
})

describe("each fact cites its line, in a group", () => {
  const group = "g1"
  it.effect("a member's view numbers the lines the same way, and its entry cites the group's line", () =>
    Effect.gen(function* () {
      const host = yield* Testing.TranscriptMemory
      yield* host.addAgent({ id: "ada", name: "Ada" })
      yield* host.addAgent({ id: "bob", name: "Bob" })
      yield* host.bindGroup(group, ["ada", "bob"])
      yield* host.append(
        group,
        { seq: 1, who: "user", name: "Alice", text: "I always travel with my bike." },
        { seq: 2, who: "agent", name: "ada", text: "Booked the 9:10 train." },
        { seq: 3, who: "agent", name: "bob", text: "Found a hotel near the station." },
        { seq: 4, who: "user", name: "Alice", text: "Thanks both." }
      )
      const model = yield* Testing.ScriptedModel
      yield* model.push(
        Kit.answer({ op: "add", text: "Alice travels with her bike", from: 1 }),
        Kit.answer({ op: "add", text: "Alice stays near stations", from: [3, 1] })
      )
      yield* Kit.turn(group)
      const [forAda, forBob] = (yield* Kit.requests).map((request) =>
        request.request.split("\n").filter((row) => row.startsWith("["))
      )
      assert.deepStrictEqual(forAda, [
        `[1] user "Alice": "I always travel with my bike."`,
        `[2] agent "Ada": "Booked the 9:10 train."`,
        `[3] other "Bob": "Found a hotel near the station."`,
        `[4] user "Alice": "Thanks both."`
      ])
      assert.deepStrictEqual(forBob, [
        `[1] user "Alice": "I always travel with my bike."`,
        `[2] other "Ada": "Booked the 9:10 train."`,
        `[3] agent "Bob": "Found a hotel near the station."`,
        `[4] user "Alice": "Thanks both."`
      ])
      assert.deepStrictEqual(
        (yield* Kit.file("agents/ada/MEMORY.md"))
          .split("\n")
          .filter((l) => l.startsWith("- "))
          .map(undated),
        ["- Alice travels with her bike [source: g1 #1]"]
      )
      assert.deepStrictEqual(
        (yield* Kit.file("agents/bob/MEMORY.md"))
          .split("\n")
          .filter((l) => l.startsWith("- "))
          .map(undated),
        ["- Alice stays near stations [source: g1 #1, g1 #3]"]
      )
    }).pipe(Effect.provide(Kit.layer()))
  )
})
