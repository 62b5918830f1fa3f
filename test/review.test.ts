/**
 * The memory review's acceptance tests (docs/spec.md 4): when it runs, what it reads, how an answer applies or fails, when it
 * stops retrying, and what the host sees. Time is the test clock; files are real, in a temporary folder.
 */
import { assert, describe, it } from "@effect/vitest"
import { Backoff, MemoryConfig, ModelError, Prompt } from "@mneme/core"
import { MemoryReview, MemoryStore, ReviewOutcome, ReviewState } from "@mneme/review"
import * as Testing from "@mneme/review/testing"
import { Context, Deferred, Duration, Effect, Exit, Layer, Metric, Scope } from "effect"
import { TestClock } from "effect/testing"
import * as Kit from "./reviewKit.ts"

const memoryFile = "agents/a1/MEMORY.md"
const teamFile = "team/MEMORY.md"

/** Writes MEMORY.md by hand: "Likes tea" first, then filler entries up to about `size` characters. */
const fillMemory = (size: number) =>
  Effect.gen(function* () {
    const lines = ["# Memory", "", "- Likes tea"]
    for (let i = 0; lines.join("\n").length < size - 80; i++) {
      lines.push(`- Filler fact number ${String(i).padStart(3, "0")} about the user's many habits`)
    }
    const content = [...lines, "", "## Index", ""].join("\n")
    yield* Kit.writeFile(memoryFile, content)
    return content
  })

/** The section of a request that starts with `heading`, up to the next blank line. */
const section = (request: string, heading: string) => {
  const start = request.indexOf(heading)
  const end = request.indexOf("\n\n", start)
  return start < 0 ? "" : request.slice(start, end < 0 ? undefined : end)
}
const newLines = (request: string) => section(request, "## New lines")
const context = (request: string) => section(request, "## Context")

const journal = Effect.flatMap(MemoryStore.MemoryStore, (store) => store.journal())
const review = MemoryReview.MemoryReview
const warns = Effect.map(Kit.Logs, (all) => all.filter((line) => line.level === "Warn"))

/** The model's calls see the cursor: an answer that records it, then gives `text`. */
const watching = (seen: Array<number | undefined>, text: string) =>
  Effect.map(ReviewState.ReviewState, (state) =>
    Effect.map(Effect.orDie(state.cursor(Kit.key)), (cursor) => {
      seen.push(cursor)
      return text
    })
  )

const firstLines = Kit.append(
  { seq: 10, who: "user", text: "I switched from tea to coffee last month." },
  { seq: 11, who: "agent", text: "Good to know." }
)

describe("an answer that cannot land", () => {
  const cases = [
    { name: "a malformed answer", answer: "Sure, I will remember that.", reason: "not a list of changes" },
    {
      name: "an unlisted entry",
      answer: Kit.answer({ op: "add", text: "The user drinks coffee" }, { op: "remove", entry: 2 }),
      reason: "names entry 2, but the review listed 1 entry"
    },
    {
      name: "a bad topic",
      answer: Kit.answer({ op: "add", text: "The user drinks coffee" }, { op: "add", text: "x", topic: "../etc" }),
      reason: "is not a topic name"
    },
    {
      name: "a full MEMORY.md",
      answer: Kit.answer({ op: "add", text: `The user drinks coffee ${"every single morning ".repeat(8)}`.trim() }),
      reason: "would hold",
      full: true
    }
  ]
  for (const { name, answer, reason, full } of cases) {
    it.effect(`${name} fails the review, writes nothing and keeps the cursor`, () =>
      Effect.gen(function* () {
        yield* Kit.setUp({ entries: full === true ? [] : ["Likes tea"] })
        const before = full === true ? yield* fillMemory(3_950) : yield* Kit.file(memoryFile)
        const journalBefore = yield* journal
        yield* firstLines
        yield* Kit.turn()
        assert.strictEqual((yield* Kit.requests).length, 1)
        assert.strictEqual(yield* Kit.file(memoryFile), before)
        assert.deepStrictEqual(yield* journal, journalBefore)
        assert.strictEqual(yield* Kit.cursor, 9)
        const failed = yield* Kit.logged(MemoryReview.warnings.failed)
        assert.strictEqual(failed.length, 1)
        assert.include(String(failed[0]!.annotations.reason), reason)
        const last = yield* (yield* review).lastReview(Kit.agent.id)
        assert.isFalse(last?.ok)
        assert.include(last?.reason, reason)
      }).pipe(Effect.provide(Kit.layer({ answers: [answer], settings: { consolidateEnabled: false } })))
    )
  }

  it.effect("a line the host's own secret test finds secret is kept from the model whole", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      yield* Kit.append({ seq: 10, who: "user", text: "My door badge is BADGE-4821" })
      yield* Kit.append({ seq: 11, who: "user", text: "I prefer dark mode" })
      yield* (yield* Testing.ScriptedModel).push(Kit.answer({ op: "add", text: "The user prefers dark mode" }))
      const outcome = yield* (yield* review).reviewNow(Kit.conversation)
      assert.strictEqual(outcome._tag, "Reviewed")
      const [request] = yield* Kit.requests
      assert.notInclude(request!.request, "BADGE-4821")
      assert.include(request!.request, "[secret]")
      assert.include(request!.request, "dark mode")
      assert.strictEqual(yield* Kit.cursor, 11)
    }).pipe(Effect.provide(Kit.layer({ settings: { isSecret: (text) => text.includes("BADGE-") } })))
  )

  it.effect("a full file is remembered while the rest of the answer is tried, then fails the review", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      yield* fillMemory(3_950)
      yield* firstLines
      yield* (yield* Testing.ScriptedModel).push(
        Kit.answer(
          { op: "add", text: `The user drinks coffee ${"every single morning ".repeat(8)}`.trim() },
          { op: "remove", entry: 1 }
        )
      )
      const outcome = yield* (yield* review).reviewNow(Kit.conversation)
      assert.strictEqual(outcome._tag, "Failed")
      assert.include(ReviewOutcome.reasonOf(outcome), "MEMORY.md would hold")
      assert.deepStrictEqual(outcome.changes.removed, [{ scope: "own", topic: undefined, text: "Likes tea" }])
      const memory = yield* Kit.file(memoryFile)
      assert.notInclude(memory, "Likes tea")
      assert.notInclude(memory, "coffee")
      assert.strictEqual(yield* Kit.cursor, 9)
    }).pipe(Effect.provide(Kit.layer({ settings: { consolidateEnabled: false } })))
  )
})

describe("applying an answer", () => {
  it.effect(
    "a secret entry is dropped silently while the rest applies, and secrets in lines never reach the model",
    () =>
      Effect.gen(function* () {
        const key = `sk-proj-${"Ab3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5oQ7s"}`
        yield* Kit.setUp({ entries: ["Likes tea"] })
        yield* Kit.append({ seq: 10, who: "user", text: `My key is ${key} and I prefer dark mode. No more tea.` })
        yield* (yield* Testing.ScriptedModel).push(
          Kit.answer(
            { op: "add", text: `The user's OpenAI key is ${key}` },
            { op: "add", text: "The user prefers dark mode" },
            { op: "remove", entry: 1 }
          )
        )
        const outcome = yield* (yield* review).reviewNow(Kit.conversation)
        assert.strictEqual(outcome.changes.secretsDropped, 1)
        assert.deepStrictEqual(outcome.changes.leftOut, [])
        const [request] = yield* Kit.requests
        assert.notInclude(request!.request, key)
        assert.include(request!.request, "dark mode")
        const memory = yield* Kit.file(memoryFile)
        assert.notInclude(memory, key)
        assert.include(memory, "- The user prefers dark mode [source: b2 #10; added: ")
        assert.notInclude(memory, "Likes tea")
        assert.deepStrictEqual(yield* warns, [])
        assert.strictEqual(yield* Kit.cursor, 10)
      }).pipe(Effect.provide(Kit.layer()))
  )

  it.effect("a change whose entry has gone is skipped with a warning, and the rest applies", () =>
    Effect.gen(function* () {
      yield* Kit.setUp({ entries: ["Likes tea"] })
      yield* firstLines
      const emptied = Kit.writeFile(memoryFile, "# Memory\n\n## Index\n").pipe(
        Effect.provideContext(yield* Effect.context<Kit.Services>())
      )
      yield* (yield* Testing.ScriptedModel).push(
        Effect.as(
          Effect.orDie(emptied),
          Kit.answer({ op: "remove", entry: 1 }, { op: "add", text: "The user drinks coffee" })
        )
      )
      const outcome = yield* (yield* review).reviewNow(Kit.conversation)
      assert.strictEqual(outcome._tag, "Reviewed")
      assert.strictEqual(outcome.changes.skipped.length, 1)
      const skipped = yield* Kit.logged(MemoryReview.warnings.skipped)
      assert.strictEqual(skipped.length, 1)
      assert.strictEqual(skipped[0]!.annotations.change, "remove entry 1")
      assert.include(String(skipped[0]!.annotations.reason), "Likes tea")
      assert.include(yield* Kit.file(memoryFile), "- The user drinks coffee")
      assert.strictEqual(yield* Kit.cursor, 11)
    }).pipe(Effect.provide(Kit.layer()))
  )

  it.effect("an agent that may not write team memory adds to its own, and may not change a team entry", () =>
    Effect.gen(function* () {
      yield* Kit.setUp({ entries: ["Likes tea"] })
      const store = yield* MemoryStore.MemoryStore
      yield* store.add({ scope: { kind: "team" }, text: "The team ships on Fridays", actor: "test" })
      const team = yield* Kit.file(teamFile)
      yield* firstLines
      yield* (yield* Testing.ScriptedModel).push(
        Kit.answer({ op: "add", text: "The user drinks coffee", team: true }, { op: "remove", entry: 2 })
      )
      yield* Kit.turn()
      assert.include((yield* Kit.requests)[0]!.request, `2. team MEMORY.md: "The team ships on Fridays"`)
      assert.include(yield* Kit.file(memoryFile), "- The user drinks coffee [source: b2 #10;")
      assert.strictEqual(yield* Kit.file(teamFile), team)
      const skipped = yield* Kit.logged(MemoryReview.warnings.skipped)
      assert.strictEqual(skipped.length, 1)
      assert.include(String(skipped[0]!.annotations.reason), "may not change team memory")
      assert.strictEqual(yield* Kit.cursor, 11)
    }).pipe(Effect.provide(Kit.layer()))
  )

  it.effect("an agent that may write team memory adds there, and edits act where their entry is", () =>
    Effect.gen(function* () {
      yield* Kit.setUp({ mayWriteTeam: true, entries: ["Likes tea"] })
      yield* (yield* MemoryStore.MemoryStore).add({
        scope: { kind: "team" },
        text: "The team ships on Fridays",
        actor: "test"
      })
      yield* firstLines
      yield* (yield* Testing.ScriptedModel).push(
        Kit.answer(
          { op: "add", text: "The team drinks coffee", team: true, topic: "habits" },
          { op: "edit", entry: 1, text: "The user drinks coffee, not tea" },
          { op: "edit", entry: 2, text: "The team ships on Thursdays" }
        )
      )
      const outcome = yield* (yield* review).reviewNow(Kit.conversation)
      assert.strictEqual(outcome._tag, "Reviewed")
      assert.deepStrictEqual(outcome.changes.added, [
        { scope: "team", topic: "habits", text: "The team drinks coffee" }
      ])
      assert.strictEqual(outcome.changes.edited.length, 2)
      assert.include(yield* Kit.file("team/habits.md"), "- The team drinks coffee [source: b2 #10; by: a1; added: ")
      assert.include(yield* Kit.file(teamFile), "- The team ships on Thursdays [")
      assert.include(yield* Kit.file(teamFile), "[[habits]]")
      const memory = yield* Kit.file(memoryFile)
      assert.include(memory, "- The user drinks coffee, not tea [")
      assert.include(memory, "source: b2 #10")
      const entries = (yield* journal).filter((line) => line.actor === "review")
      assert.deepStrictEqual(
        entries.map((line) => [line.op, line.file, line.auto]),
        [
          ["add", "team/habits.md", true],
          ["add", "team/MEMORY.md", true],
          ["replace", memoryFile, true],
          ["replace", teamFile, true]
        ]
      )
    }).pipe(Effect.provide(Kit.layer()))
  )

  it.effect("an agent deleted meanwhile stops the review, keeps nothing more, and is no failure", () =>
    Effect.gen(function* () {
      yield* Kit.setUp({ entries: ["Likes tea"] })
      yield* firstLines
      const host = yield* Testing.TranscriptMemory
      yield* (yield* Testing.ScriptedModel).push(
        Effect.as(
          host.removeAgent(Kit.agent.id),
          Kit.answer({ op: "remove", entry: 1 }, { op: "add", text: "The user drinks coffee" })
        )
      )
      yield* Kit.turn()
      assert.strictEqual((yield* Kit.requests).length, 1)
      const memory = yield* Kit.file(memoryFile)
      assert.include(memory, "Likes tea")
      assert.notInclude(memory, "coffee")
      assert.deepStrictEqual(yield* warns, [])
      assert.isNull(yield* (yield* review).lastReview(Kit.agent.id))
      assert.strictEqual(yield* Kit.cursor, 9)
      yield* Kit.append({ who: "user", text: "Hello?" })
      const outcome = yield* (yield* review).reviewNow(Kit.conversation)
      assert.strictEqual(outcome._tag, "AgentGone")
      assert.strictEqual((yield* Kit.requests).length, 1)
    }).pipe(Effect.provide(Kit.layer()))
  )

  it.effect(
    "an answer at the cap that changed something is reviewed again over the same lines, at most 4 more times",
    () =>
      Effect.gen(function* () {
        yield* Kit.setUp()
        yield* firstLines
        const seen: Array<number | undefined> = []
        const state = yield* ReviewState.ReviewState
        const eight = Effect.map(Effect.orDie(state.cursor(Kit.key)), (cursor) => {
          seen.push(cursor)
          const pass = seen.length
          return Kit.answer(...Array.from({ length: 8 }, (_, i) => ({ op: "add", text: `Fact ${pass}.${i}` })))
        })
        yield* (yield* Testing.ScriptedModel).push(eight, eight, eight, eight, eight, eight)
        const outcome = yield* (yield* review).reviewNow(Kit.conversation)
        assert.strictEqual(outcome.modelCalls, 5)
        assert.strictEqual(outcome.passes, 5)
        assert.strictEqual(outcome.changes.added.length, 40)
        assert.deepStrictEqual(seen, [9, 9, 9, 9, 9])
        assert.strictEqual(yield* Kit.cursor, 11)
        assert.include((yield* Kit.requests)[4]!.request, `"Fact 4.7"`)
      }).pipe(Effect.provide(Kit.layer()))
  )

  it.effect("an answer at the cap that changed nothing ends the review", () =>
    Effect.gen(function* () {
      yield* Kit.setUp({ entries: ["Likes tea"] })
      yield* firstLines
      const same = Kit.answer(...Array.from({ length: 9 }, () => ({ op: "add", text: "Likes tea" })))
      yield* (yield* Testing.ScriptedModel).push(same)
      const outcome = yield* (yield* review).reviewNow(Kit.conversation)
      assert.strictEqual(outcome._tag, "Reviewed")
      assert.strictEqual(outcome.modelCalls, 1)
      assert.strictEqual(yield* Kit.cursor, 11)
    }).pipe(Effect.provide(Kit.layer()))
  )
})

describe("reading", () => {
  it.effect("a backlog over 16,000 characters is reviewed in passes, oldest first, never passing an unseen line", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      yield* (yield* ReviewState.ReviewState).setCursor(Kit.key, 0)
      const label = (n: number) => `line ${String(n).padStart(2, "0")} `
      yield* Kit.append(
        ...Array.from({ length: 10 }, (_, i) => ({ who: "user" as const, text: label(i + 1).padEnd(2_500, "x") }))
      )
      const seen: Array<number | undefined> = []
      const none = Kit.answer()
      yield* (yield* Testing.ScriptedModel).push(yield* watching(seen, none), yield* watching(seen, none))
      yield* Kit.turn()
      const requests = yield* Kit.requests
      assert.strictEqual(requests.length, 2)
      assert.deepStrictEqual(seen, [0, 6])
      const [first, second] = requests.map((r) => r.request)
      for (let n = 1; n <= 6; n++) assert.include(newLines(first!), label(n))
      assert.notInclude(first!, label(7))
      assert.include(first!, Prompt.moreFollowSentence)
      for (let n = 7; n <= 10; n++) assert.include(newLines(second!), label(n))
      for (let n = 1; n <= 6; n++) assert.notInclude(newLines(second!), label(n))
      assert.include(context(second!), label(6))
      assert.notInclude(second!, Prompt.moreFollowSentence)
      assert.strictEqual(yield* Kit.cursor, 10)
    }).pipe(Effect.provide(Kit.layer()))
  )

  it.effect("a first review reads the last 6 lines, back to a user line, with 4 lines of context", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      const host = yield* Testing.TranscriptMemory
      yield* Kit.append(
        ...Array.from({ length: 20 }, (_, i) => ({
          who: i + 1 === 12 ? ("user" as const) : ("agent" as const),
          text: `said ${String(i + 1).padStart(2, "0")}`
        }))
      )
      yield* Kit.turn()
      const [request] = (yield* Kit.requests).map((r) => r.request)
      for (let n = 12; n <= 20; n++) assert.include(newLines(request!), `said ${n}`)
      for (let n = 8; n <= 11; n++) assert.include(context(request!), `said ${String(n).padStart(2, "0")}`)
      assert.notInclude(request!, "said 07")
      assert.strictEqual(yield* host.pulled(Kit.conversation), 13)
      assert.strictEqual(yield* Kit.cursor, 20)
    }).pipe(Effect.provide(Kit.layer({ answers: [Kit.answer()] })))
  )

  it.effect("only the lines after the cursor and their context are read", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      const host = yield* Testing.TranscriptMemory
      yield* Kit.append(...Array.from({ length: 100 }, (_, i) => ({ who: "user" as const, text: `line ${i + 1}` })))
      yield* (yield* ReviewState.ReviewState).setCursor(Kit.key, 95)
      yield* Kit.turn()
      // From the cursor on: lines 96–100, the newest line again (a user line ends the search for one), and 92–95.
      assert.strictEqual(yield* host.pulled(Kit.conversation), 10)
      const [request] = (yield* Kit.requests).map((r) => r.request)
      assert.include(context(request!), `"line 92"`)
      assert.notInclude(request!, `"line 91"`)
      assert.include(newLines(request!), `"line 96"`)
      assert.strictEqual(yield* Kit.cursor, 100)
    }).pipe(Effect.provide(Kit.layer({ answers: [Kit.answer()] })))
  )

  it.effect("new lines without a user line make no model call and the cursor moves past them", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      yield* firstLines
      yield* Kit.turn()
      yield* Kit.append({ who: "agent", text: "Anything else?" }, { who: "other", name: "Bob", text: "Hi all" })
      yield* Kit.turn()
      assert.strictEqual((yield* Kit.requests).length, 1)
      assert.strictEqual(yield* Kit.cursor, 13)
    }).pipe(Effect.provide(Kit.layer({ answers: [Kit.answer()] })))
  )

  it.effect("an unreadable transcript fails the review without a model call, and is bounded like any failure", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      yield* firstLines
      const host = yield* Testing.TranscriptMemory
      yield* host.breakReads(Kit.conversation, "the log is locked")
      for (let i = 0; i < 3; i++) yield* Kit.turn()
      const failed = yield* Kit.logged(MemoryReview.warnings.failed)
      assert.strictEqual(failed.length, 3)
      assert.include(String(failed[0]!.annotations.reason), "the transcript could not be read: the log is locked")
      assert.strictEqual((yield* Kit.logged(MemoryReview.warnings.stopped)).length, 1)
      assert.strictEqual((yield* Kit.requests).length, 0)
      yield* host.breakReads(Kit.conversation, undefined)
      yield* Kit.turn()
      assert.strictEqual((yield* Kit.requests).length, 1)
      assert.strictEqual(yield* Kit.cursor, 11)
    }).pipe(Effect.provide(Kit.layer({ answers: [Kit.answer()] })))
  )
})

describe("scheduling", () => {
  it.effect("a review is queued 2 s after a turn ends, and a turn that starts within the delay postpones it", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      yield* firstLines
      const memory = yield* review
      yield* memory.turnEnded(Kit.conversation)
      assert.strictEqual(yield* memory.pending, 1)
      yield* TestClock.adjust("1 second")
      yield* memory.turnStarted(Kit.conversation)
      assert.strictEqual(yield* memory.pending, 0)
      yield* TestClock.adjust("10 seconds")
      assert.strictEqual((yield* Kit.requests).length, 0)
      yield* memory.turnEnded(Kit.conversation)
      yield* TestClock.adjust("1999 millis")
      assert.strictEqual((yield* Kit.requests).length, 0)
      assert.strictEqual(yield* memory.pending, 1)
      yield* TestClock.adjust("1 milli")
      yield* memory.awaitIdle
      assert.strictEqual(yield* memory.pending, 0)
      assert.strictEqual((yield* Kit.requests).length, 1)
    }).pipe(Effect.provide(Kit.layer({ answers: [Kit.answer()] })))
  )

  it.effect("reviews run one at a time, and two turn ends while queued give one review", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      const host = yield* Testing.TranscriptMemory
      yield* host.bind("c3", Kit.agent.id)
      yield* host.append("c3", { who: "user", text: "Another chat." })
      yield* firstLines
      const started = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      yield* (yield* Testing.ScriptedModel).push(
        Deferred.succeed(started, undefined).pipe(Effect.andThen(Deferred.await(release)), Effect.as(Kit.answer()))
      )
      const memory = yield* review
      yield* memory.turnEnded("c3")
      yield* TestClock.adjust("2 seconds")
      yield* Deferred.await(started)
      yield* memory.turnEnded(Kit.conversation)
      yield* TestClock.adjust("2 seconds")
      yield* memory.turnEnded(Kit.conversation)
      yield* TestClock.adjust("2 seconds")
      assert.strictEqual(yield* memory.pending, 2)
      assert.strictEqual((yield* Kit.requests).length, 1)
      yield* Deferred.succeed(release, undefined)
      yield* memory.awaitIdle
      assert.strictEqual(yield* memory.pending, 0)
      const requests = yield* Kit.requests
      assert.strictEqual(requests.length, 2)
      assert.include(requests[1]!.request, "tea to coffee")
    }).pipe(Effect.provide(Kit.layer({ otherwise: Kit.answer() })))
  )

  it.effect("a turn end while its review runs counts that review once, and reviews again after it", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      yield* firstLines
      const started = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      yield* (yield* Testing.ScriptedModel).push(
        Deferred.succeed(started, undefined).pipe(Effect.andThen(Deferred.await(release)), Effect.as("no"))
      )
      const memory = yield* review
      yield* memory.turnEnded(Kit.conversation)
      yield* TestClock.adjust("2 seconds")
      yield* Deferred.await(started)
      yield* memory.turnEnded(Kit.conversation)
      yield* memory.turnEnded(Kit.conversation)
      yield* TestClock.adjust("2 seconds")
      yield* Deferred.succeed(release, undefined)
      yield* memory.awaitIdle
      yield* Kit.turn()
      assert.strictEqual((yield* Kit.requests).length, 2)
      const record = yield* (yield* ReviewState.ReviewState).failure(Kit.key)
      assert.strictEqual(record?.times.length, 2)
    }).pipe(Effect.provide(Kit.layer({ otherwise: "no" })))
  )

  it.effect("closing the service cancels the waiting timers: nothing waits, and no review runs later", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const services = yield* Layer.buildWithScope(Kit.layer({ otherwise: Kit.answer() }), scope)
      const memory = Context.get(services, MemoryReview.MemoryReview)
      const requests = Context.get(services, Testing.ScriptedModel).requests
      yield* Effect.gen(function* () {
        yield* Kit.setUp()
        yield* firstLines
        yield* memory.turnEnded(Kit.conversation)
      }).pipe(Effect.provide(services))
      assert.strictEqual(yield* memory.pending, 1)
      yield* Scope.close(scope, Exit.void)
      assert.strictEqual(yield* memory.pending, 0, "nothing waits once the service is closed")
      yield* TestClock.adjust("10 seconds")
      assert.strictEqual(yield* memory.pending, 0, "a timer left running would have queued the review")
      assert.strictEqual((yield* requests).length, 0)
    })
  )

  it.effect("with the review turned off, turn ends queue nothing, and a review asked for still runs", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      yield* firstLines
      const memory = yield* review
      yield* memory.turnEnded(Kit.conversation)
      assert.strictEqual(yield* memory.pending, 0)
      yield* TestClock.adjust("10 seconds")
      assert.strictEqual((yield* Kit.requests).length, 0)
      const outcome = yield* memory.reviewNow(Kit.conversation)
      assert.strictEqual(outcome._tag, "Reviewed")
      assert.strictEqual((yield* Kit.requests).length, 1)
    }).pipe(Effect.provide(Kit.layer({ answers: [Kit.answer()], settings: { reviewEnabled: false } })))
  )
})

describe("failing", () => {
  it.effect("a review asked for is tried whatever the record says, and its outcome is recorded", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      yield* firstLines
      for (let i = 0; i < 3; i++) yield* Kit.turn()
      assert.strictEqual((yield* Kit.requests).length, 2)
      const memory = yield* review
      const failed = yield* memory.reviewNow(Kit.conversation)
      assert.strictEqual(failed._tag, "Failed")
      assert.strictEqual(
        ReviewOutcome.reasonOf(failed),
        "the model failed: overloaded (memory review stopped retrying these lines after 3 failures)"
      )
      assert.strictEqual((yield* (yield* ReviewState.ReviewState).failure(Kit.key))?.times.length, 3)
      yield* (yield* Testing.ScriptedModel).push(Kit.answer({ op: "add", text: "The user drinks coffee" }))
      const ok = yield* memory.reviewNow(Kit.conversation)
      assert.strictEqual(ok._tag, "Reviewed")
      assert.strictEqual(ok.cursor, 11)
      assert.isUndefined(yield* (yield* ReviewState.ReviewState).failure(Kit.key))
      const view = yield* memory.view(Kit.agent.id)
      assert.deepStrictEqual(
        view.entries.map((entry) => [entry.text, entry.source]),
        [["The user drinks coffee", "b2 #10"]]
      )
      assert.isTrue(view.lastReview?.ok)
      assert.isNull(view.lastReview?.reason)
    }).pipe(
      Effect.provide(
        Kit.layer({
          answers: [new ModelError({ reason: "overloaded" }), new ModelError({ reason: "overloaded" })],
          otherwise: new ModelError({ reason: "overloaded" })
        })
      )
    )
  )

  it.effect("another policy: a cool-down after which one more try is allowed", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      yield* firstLines
      for (let i = 0; i < 3; i++) yield* Kit.turn()
      assert.strictEqual((yield* Kit.requests).length, 2)
      yield* TestClock.adjust("9 minutes")
      yield* Kit.turn()
      assert.strictEqual((yield* Kit.requests).length, 2)
      yield* TestClock.adjust("1 minute")
      yield* Kit.turn()
      yield* Kit.turn()
      assert.strictEqual((yield* Kit.requests).length, 3)
      assert.strictEqual((yield* Kit.logged(MemoryReview.warnings.stopped)).length, 1)
    }).pipe(Effect.provide(Kit.layer({ otherwise: "no", policy: Backoff.coolDown(2, "10 minutes") })))
  )
})

describe("seeing", () => {
  it.effect("every review is counted in the metrics, tagged with its outcome", () =>
    Effect.gen(function* () {
      yield* Kit.setUp({ entries: ["Likes tea"] })
      yield* firstLines
      yield* (yield* Testing.ScriptedModel).push(
        Kit.answer(
          { op: "add", text: "x".repeat(301) },
          { op: "remove", entry: 1 },
          { op: "add", text: "The user drinks coffee" }
        ),
        "no"
      )
      yield* Kit.turn()
      yield* Kit.append({ who: "user", text: "And I live by the sea." })
      yield* Kit.turn()
      const value = (
        metric: Metric.Metric<number, { readonly count: number }>,
        outcome: ReviewOutcome.Outcome["_tag"]
      ) => Effect.map(Metric.value(Metric.withAttributes(metric, { outcome })), (state) => state.count)
      const { metrics } = MemoryReview
      assert.strictEqual(yield* value(metrics.reviews, "Reviewed"), 1)
      assert.strictEqual(yield* value(metrics.modelCalls, "Reviewed"), 1)
      assert.strictEqual(yield* value(metrics.changesApplied, "Reviewed"), 2)
      assert.strictEqual(yield* value(metrics.leftOut, "Reviewed"), 1)
      assert.strictEqual(yield* value(metrics.failures, "Reviewed"), 0)
      assert.strictEqual(yield* value(metrics.reviews, "Failed"), 1)
      assert.strictEqual(yield* value(metrics.modelCalls, "Failed"), 1)
      assert.strictEqual(yield* value(metrics.failures, "Failed"), 1)
      assert.strictEqual((yield* Metric.value(metrics.promptSize)).count, 2)
    }).pipe(Effect.provide(Kit.layer()), Effect.provideService(Metric.MetricRegistry, new Map()))
  )
})

describe("a numbered change acts on the entry it numbers, exactly", () => {
  it.effect(
    "an entry a person removed while the model thinks is skipped; the entry containing its text is untouched",
    () =>
      Effect.gen(function* () {
        yield* Kit.setUp({ entries: ["Likes tea", "Likes tea with milk"] })
        yield* firstLines
        const store = yield* MemoryStore.MemoryStore
        yield* (yield* Testing.ScriptedModel).push(
          Effect.as(
            Effect.orDie(store.remove({ scope: Kit.own, match: "Likes tea", actor: "person" })),
            Kit.answer({ op: "edit", entry: 1, text: "The user prefers coffee" })
          )
        )
        const outcome = yield* (yield* review).reviewNow(Kit.conversation)
        const memory = yield* Kit.file(memoryFile)
        assert.include(memory, "- Likes tea with milk")
        assert.notInclude(memory, "coffee")
        assert.strictEqual(outcome._tag, "Reviewed")
        assert.deepStrictEqual(outcome.changes.edited, [])
        const reason = `no entry in agents/a1/MEMORY.md holds "Likes tea"`
        assert.deepStrictEqual(outcome.changes.skipped, [
          { change: { op: "edit", entry: 1, text: "The user prefers coffee" }, reason }
        ])
        const skipped = yield* Kit.logged(MemoryReview.warnings.skipped)
        assert.strictEqual(skipped.length, 1)
        assert.strictEqual(skipped[0]!.annotations.change, "edit entry 1")
        assert.strictEqual(skipped[0]!.annotations.reason, reason)
      }).pipe(Effect.provide(Kit.layer()))
  )

  it.effect("an answer that removes entry 1 twice removes one entry", () =>
    Effect.gen(function* () {
      yield* Kit.setUp({ entries: ["Likes tea", "Likes tea with milk"] })
      yield* firstLines
      yield* (yield* Testing.ScriptedModel).push(Kit.answer({ op: "remove", entry: 1 }, { op: "remove", entry: 1 }))
      const outcome = yield* (yield* review).reviewNow(Kit.conversation)
      assert.include(yield* Kit.file(memoryFile), "- Likes tea with milk")
      assert.deepStrictEqual(outcome.changes.removed, [{ scope: "own", topic: undefined, text: "Likes tea" }])
      assert.deepStrictEqual(
        outcome.changes.skipped.map((skip) => skip.reason),
        [`no entry in agents/a1/MEMORY.md holds "Likes tea"`]
      )
      assert.strictEqual((yield* journal).filter((line) => line.actor === "review").length, 1)
    }).pipe(Effect.provide(Kit.layer()))
  )

  it.effect("an entry an earlier change of the same answer changed is gone", () =>
    Effect.gen(function* () {
      yield* Kit.setUp({ entries: ["Likes tea", "Likes tea with milk"] })
      yield* firstLines
      yield* (yield* Testing.ScriptedModel).push(
        Kit.answer({ op: "edit", entry: 1, text: "The user prefers coffee" }, { op: "remove", entry: 1 })
      )
      const outcome = yield* (yield* review).reviewNow(Kit.conversation)
      const memory = yield* Kit.file(memoryFile)
      assert.include(memory, "- The user prefers coffee")
      assert.include(memory, "- Likes tea with milk")
      assert.deepStrictEqual(outcome.changes.removed, [])
      assert.strictEqual(outcome.changes.edited.length, 1)
      assert.strictEqual(outcome.changes.skipped.length, 1)
    }).pipe(Effect.provide(Kit.layer()))
  )

  it.effect("an answer applies as one batch: each file written once, the journal appended in order", () =>
    Effect.gen(function* () {
      yield* Kit.setUp({ entries: ["Likes tea", "Works in Lyon"] })
      yield* firstLines
      yield* (yield* Testing.ScriptedModel).push(
        Kit.answer(
          { op: "edit", entry: 1, text: "The user drinks coffee, not tea" },
          { op: "remove", entry: 2 },
          { op: "add", text: "The user moved to Paris" }
        )
      )
      const outcome = yield* (yield* review).reviewNow(Kit.conversation)
      assert.strictEqual(outcome._tag, "Reviewed")
      const memory = yield* Kit.file(memoryFile)
      assert.include(memory, "- The user drinks coffee, not tea [")
      assert.notInclude(memory, "Lyon")
      assert.include(memory, "- The user moved to Paris [source: b2 #10;")
      assert.deepStrictEqual(
        (yield* journal).filter((line) => line.actor === "review").map((line) => line.op),
        ["replace", "remove", "add"]
      )
    }).pipe(Effect.provide(Kit.layer()))
  )
})

describe("what the model is shown", () => {
  it.effect(
    "a key a person typed into MEMORY.md never reaches the model, and its entry is still the one numbered",
    () =>
      Effect.gen(function* () {
        yield* Kit.setUp()
        const key = "AKIAIOSFODNN7EXAMPLE"
        yield* Kit.writeFile(memoryFile, `# Memory\n\n- The user's AWS key is ${key}\n- Likes tea\n\n## Index\n`)
        yield* firstLines
        yield* (yield* Testing.ScriptedModel).push(Kit.answer({ op: "remove", entry: 1 }))
        const outcome = yield* (yield* review).reviewNow(Kit.conversation)
        const [request] = yield* Kit.requests
        assert.notInclude(request!.request, key)
        assert.include(request!.request, `1. own MEMORY.md: "The user's AWS key is [secret]"`)
        const memory = yield* Kit.file(memoryFile)
        assert.notInclude(memory, key)
        assert.include(memory, "- Likes tea")
        assert.deepStrictEqual(outcome.changes.removed, [
          { scope: "own", topic: undefined, text: "The user's AWS key is [secret]" }
        ])
      }).pipe(Effect.provide(Kit.layer()))
  )

  it.effect(
    "the request of a 50 MB MEMORY.md stays small, lists its first entries and says how many are left out",
    () =>
      Effect.gen(function* () {
        yield* Kit.setUp()
        const entry = (n: number) => `- Hand-written fact ${String(n).padStart(7, "0")} about the user's habits\n`
        const count = Math.ceil(50_000_000 / entry(0).length)
        yield* Kit.writeFile(memoryFile, "# Memory\n\n" + Array.from({ length: count }, (_, n) => entry(n)).join(""))
        yield* firstLines
        yield* (yield* Testing.ScriptedModel).push(Kit.answer({ op: "remove", entry: 1 }))
        const outcome = yield* (yield* review).reviewNow(Kit.conversation)
        const [request] = yield* Kit.requests
        assert.isBelow(request!.request.length, 8_000)
        const listed = request!.request.split("\n").filter((row) => /^\d+\. own MEMORY\.md: /.test(row))
        assert.strictEqual(listed[0], `1. own MEMORY.md: "Hand-written fact 0000000 about the user's habits"`)
        assert.strictEqual(
          listed.length,
          Math.floor(4_000 / (entry(0).length - 3)),
          "the first 4,000 characters of entries"
        )
        assert.include(
          request!.request,
          `\n${(count - listed.length).toLocaleString("en-US")} more entries of own MEMORY.md, which is past its size, are not shown.\n`
        )
        assert.include(request!.request, "Own MEMORY.md: 50,000,0")
        assert.strictEqual(outcome._tag, "Reviewed", "a change that makes the file shorter lands")
        assert.deepStrictEqual(outcome.changes.removed.length, 1)
        // The request read only the file's first entries; the change read it whole: every other line is kept.
        const kept = Array.from({ length: count - 1 }, (_, n) => entry(n + 1)).join("")
        assert.isTrue((yield* Kit.file(memoryFile)) === "# Memory\n\n" + kept, "every other line kept")
      }).pipe(Effect.provide(Kit.layer()))
  )
})

describe("odd topic files", () => {
  it.effect("an unreadable topic file is left out with one warning naming it, and the review goes on", () =>
    Effect.gen(function* () {
      yield* Kit.setUp({ entries: ["Likes tea"] })
      yield* Kit.writeFile("agents/a1/broken.md", new Uint8Array([0x2d, 0x20, 0xff, 0xfe, 0x0a]))
      yield* firstLines
      const answer = Kit.answer(...Array.from({ length: 8 }, (_, i) => ({ op: "add", text: `Fact ${i}` })))
      yield* (yield* Testing.ScriptedModel).push(answer, Kit.answer())
      const outcome = yield* (yield* review).reviewNow(Kit.conversation)
      assert.strictEqual(outcome._tag, "Reviewed")
      assert.strictEqual(outcome.passes, 2)
      assert.include(yield* Kit.file(memoryFile), "- Fact 7")
      const unreadable = yield* Kit.logged(MemoryReview.warnings.unreadable)
      assert.strictEqual(unreadable.length, 1, "warned once, not once per pass")
      assert.strictEqual(unreadable[0]!.annotations.file, "agents/a1/broken.md")
      assert.strictEqual(
        unreadable[0]!.annotations.reason,
        "agents/a1/broken.md is not valid UTF-8 text; fix or remove it by hand (nothing was changed)"
      )
    }).pipe(Effect.provide(Kit.layer()))
  )

  it.effect("a topic file not linked from MEMORY.md is reported, and its entries are still shown", () =>
    Effect.gen(function* () {
      yield* Kit.setUp({ entries: ["Likes tea"] })
      yield* Kit.writeFile("agents/a1/travel.md", "# travel\n\n- The user flies to Kyoto in May\n")
      yield* firstLines
      yield* (yield* Testing.ScriptedModel).push(Kit.answer())
      const outcome = yield* (yield* review).reviewNow(Kit.conversation)
      assert.strictEqual(outcome._tag, "Reviewed")
      assert.include((yield* Kit.requests)[0]!.request, `2. own topic "travel": "The user flies to Kyoto in May"`)
      const unlinked = yield* Kit.logged(MemoryReview.warnings.unlinked)
      assert.strictEqual(unlinked.length, 1)
      assert.deepStrictEqual(unlinked[0]!.annotations.files, ["agents/a1/travel.md"])
    }).pipe(Effect.provide(Kit.layer()))
  )
})

describe("a failed review's outcome", () => {
  it.effect("carries the typed error, tagged with its fields, and its message", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      yield* firstLines
      const outcome = yield* (yield* review).reviewNow(Kit.conversation)
      assert.strictEqual(outcome._tag, "Failed")
      if (outcome._tag !== "Failed") return
      assert.strictEqual(outcome.error._tag, "ModelError")
      assert.deepStrictEqual(outcome.error, new ModelError({ reason: "overloaded", retryable: true }))
      assert.strictEqual(outcome.reason, "the model failed: overloaded")
      assert.isFalse(outcome.stopped)
      assert.deepStrictEqual([outcome.cursor, outcome.modelCalls, outcome.passes], [9, 1, 0])
      const handled = yield* Effect.fail(outcome.error).pipe(
        Effect.catchTag("ModelError", (error) => Effect.succeed(error.retryable))
      )
      assert.isTrue(handled)
    }).pipe(Effect.provide(Kit.layer({ answers: [new ModelError({ reason: "overloaded", retryable: true })] })))
  )

  it.effect("of a full MEMORY.md says exactly what landed: the removal, in one pass, and why it failed", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      yield* fillMemory(3_950)
      yield* firstLines
      const long = `The user drinks coffee ${"every single morning ".repeat(8)}`.trim()
      yield* (yield* Testing.ScriptedModel).push(
        Kit.answer({ op: "add", text: long }, { op: "remove", entry: 1 }, { op: "add", text: "x".repeat(301) })
      )
      const outcome = yield* (yield* review).reviewNow(Kit.conversation)
      assert.strictEqual(outcome._tag, "Failed")
      if (outcome._tag !== "Failed") return
      assert.strictEqual(outcome.error._tag, "MemoryFull")
      assert.deepStrictEqual(outcome.changes.removed, [{ scope: "own", topic: undefined, text: "Likes tea" }])
      assert.deepStrictEqual(outcome.changes.added, [])
      assert.deepStrictEqual(
        outcome.changes.leftOut.map((left) => left.problem),
        ["the entry is 301 characters, over the limit of 300"]
      )
      assert.deepStrictEqual([outcome.passes, outcome.modelCalls, outcome.cursor], [1, 1, 9])
      assert.deepStrictEqual(
        (yield* journal).filter((line) => line.actor === "review").map((line) => line.op),
        ["remove"]
      )
    }).pipe(Effect.provide(Kit.layer({ settings: { consolidateEnabled: false } })))
  )

  it.effect("of a full MEMORY.md names every change memory refused, each with why (issue 8 item 10)", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      yield* fillMemory(3_950)
      yield* firstLines
      const coffee = `The user drinks coffee ${"every single morning ".repeat(8)}`.trim()
      const walks = `The user walks the dog ${"every single evening ".repeat(8)}`.trim()
      yield* (yield* Testing.ScriptedModel).push(
        Kit.answer({ op: "add", text: coffee }, { op: "remove", entry: 1 }, { op: "add", text: walks })
      )
      const outcome = yield* (yield* review).reviewNow(Kit.conversation)
      assert.strictEqual(outcome._tag, "Failed")
      if (outcome._tag !== "Failed") return
      assert.deepStrictEqual(
        outcome.changes.failed.map((failed) => [failed.change, failed.error._tag]),
        [
          [{ op: "add", text: coffee }, "MemoryFull"],
          [{ op: "add", text: walks }, "MemoryFull"]
        ]
      )
      assert.strictEqual(outcome.error, outcome.changes.failed[0]!.error)
      for (const failed of outcome.changes.failed) {
        assert.strictEqual(failed.reason, failed.error.message)
        assert.match(failed.reason, /^agents\/.+\/MEMORY\.md would hold [\d,]+ of its 4,000 characters/)
      }
      assert.deepStrictEqual(outcome.changes.removed, [{ scope: "own", topic: undefined, text: "Likes tea" }])
    }).pipe(Effect.provide(Kit.layer({ settings: { consolidateEnabled: false } })))
  )

  it.effect("keeps and shows no secret: a malformed answer's password and a model error's key are masked", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      yield* firstLines
      const memory = yield* review
      const key = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0f"
      const first = yield* memory.reviewNow(Kit.conversation)
      assert.strictEqual(first._tag, "Failed")
      assert.notInclude(ReviewOutcome.reasonOf(first), "hunter2zz")
      assert.notInclude((yield* memory.lastReview(Kit.agent.id))?.reason, "hunter2zz")
      const second = yield* memory.reviewNow(Kit.conversation)
      assert.strictEqual(
        ReviewOutcome.reasonOf(second),
        "the model failed: the key [secret] was refused (memory review stopped retrying these lines after 2 failures)"
      )
      assert.notInclude((yield* memory.lastReview(Kit.agent.id))?.reason, key.slice(8))
      const logged = JSON.stringify((yield* warns).map((line) => line.annotations))
      assert.notInclude(logged, "hunter2zz")
      assert.notInclude(logged, key.slice(8))
      assert.include(logged, "[secret]")
    }).pipe(
      Effect.provide(
        Kit.layer({
          answers: [
            "The root password is hunter2zz, so {not json",
            new ModelError({ reason: "the key sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0f was refused" })
          ]
        })
      )
    )
  )
})

describe("the settings in force when the layer is built hold on every path of the review", () => {
  const lastReason = Effect.flatMap(review, (memory) =>
    Effect.map(memory.lastReview(Kit.agent.id), (last) => last?.reason ?? "")
  )
  const lastRequest = Effect.map(Kit.requests, (all) => all.at(-1)?.request ?? "")
  const add = (text: string, more: object = {}) => Kit.answer({ op: "add", text, ...more })
  const user = (text: string) => Kit.append({ seq: 10, who: "user", text })
  interface Case {
    readonly settings: Partial<MemoryConfig.Settings>
    readonly answers?: ReadonlyArray<string>
    readonly otherwise?: string
    /** The lines and memory before the turn ends (the first lines when not given). */
    readonly before?: Effect.Effect<unknown, unknown, Kit.Services>
    readonly check: Effect.Effect<void, unknown, Kit.Services>
  }
  const cases: Record<string, Case> = {
    entryMax: {
      settings: { entryMax: 20 },
      answers: [add("The user drinks coffee daily")],
      check: Effect.gen(function* () {
        assert.notInclude(yield* Kit.file(memoryFile), "coffee")
        assert.strictEqual((yield* Kit.logged(MemoryReview.warnings.leftOut)).length, 1)
      })
    },
    memoryMax: {
      settings: { memoryMax: 40 },
      answers: [add("The user drinks coffee")],
      check: Effect.map(lastReason, (reason) => {
        assert.include(reason, "agents/a1/MEMORY.md would hold")
        assert.include(reason, "of its 40 characters")
      })
    },
    topicMax: {
      settings: { topicMax: 50 },
      answers: [add("The user drinks coffee", { topic: "drinks" })],
      check: Effect.map(lastReason, (reason) => {
        assert.include(reason, "agents/a1/drinks.md would hold")
        assert.include(reason, "of its 50 characters")
      })
    },
    topicsMax: {
      settings: { topicsMax: 0 },
      answers: [add("The user drinks coffee", { topic: "drinks" })],
      check: Effect.map(lastReason, (reason) => assert.include(reason, "already has 0 topics"))
    },
    answerChangesMax: {
      settings: { answerChangesMax: 1 },
      answers: [Kit.answer({ op: "add", text: "The user drinks coffee" }, { op: "add", text: "The user likes rye" })],
      otherwise: Kit.answer(),
      check: Effect.gen(function* () {
        const memory = yield* Kit.file(memoryFile)
        assert.include(memory, "coffee")
        assert.notInclude(memory, "rye")
      })
    },
    extraPassesMax: {
      settings: { extraPassesMax: 1 },
      otherwise: Kit.answer(...Array.from({ length: 8 }, () => ({ op: "add", text: "The user drinks coffee" }))),
      answers: [Kit.answer(...Array.from({ length: 8 }, (_, i) => ({ op: "add", text: `Fact ${i}` })))],
      check: Effect.map(Kit.requests, (requests) => assert.strictEqual(requests.length, 2))
    },
    newLinesBudget: {
      settings: { newLinesBudget: 30 },
      before: Kit.append(
        { seq: 10, who: "user", text: "I switched to oat milk ok" },
        { who: "user", text: "I bake rye bread now" }
      ),
      check: Effect.map(Kit.requests, (requests) => {
        assert.include(requests[0]!.request, "oat milk")
        assert.notInclude(requests[0]!.request, "rye bread")
      })
    },
    shownTopicsBudget: {
      settings: { shownTopicsBudget: 0 },
      before: Effect.andThen(
        Effect.flatMap(MemoryStore.MemoryStore, (store) =>
          store.add({ scope: Kit.own, topic: "kitchen", text: "The user owns a wok", actor: "test" })
        ),
        firstLines
      ),
      check: Effect.map(lastRequest, (request) => {
        assert.notInclude(request, "wok")
        assert.include(request, "\n1 more topic entry, older or less related, is not shown.\n")
      })
    },
    contextLines: {
      settings: { contextLines: 0 },
      before: Effect.andThen(
        Kit.append({ seq: 9, who: "user", text: "Old line" }, { seq: 10, who: "user", text: "New line" }),
        Effect.flatMap(ReviewState.ReviewState, (state) => state.setCursor(Kit.key, 9))
      ),
      check: Effect.map(lastRequest, (request) => {
        assert.notInclude(request, "Old line")
        assert.include(context(request), "(none)")
      })
    },
    firstReviewLines: {
      settings: { firstReviewLines: 1 },
      before: Kit.append(...Array.from({ length: 8 }, (_, i) => ({ who: "user" as const, text: `said ${i + 1}` }))),
      check: Effect.map(lastRequest, (request) => {
        assert.include(newLines(request), `"said 8"`)
        assert.notInclude(newLines(request), `"said 7"`)
      })
    },
    userLineMax: {
      settings: { userLineMax: 100 },
      before: user(`I like ${"very ".repeat(100)}strong tea`),
      check: Effect.map(lastRequest, (request) => {
        const said = newLines(request)
          .split("\n")
          .find((row) => row.startsWith("[1] user: "))
          ?.slice(10)
        assert.strictEqual(JSON.parse(said!).length, 100)
        assert.match(said!, /^"I like very .* \[…\] .* very strong tea"$/)
      })
    },
    otherLineMax: {
      settings: { otherLineMax: 40 },
      before: Effect.andThen(user("I like tea"), Kit.append({ who: "agent", text: "x".repeat(200) })),
      check: Effect.map(lastRequest, (request) => assert.include(newLines(request), `"${"x".repeat(36)} […]"`))
    },
    failuresMax: {
      settings: { failuresMax: 1 },
      otherwise: "no",
      check: Effect.map(lastReason, (reason) =>
        assert.include(reason, `(${MemoryReview.warnings.stopped} after 1 failures)`)
      )
    },
    interfaceLanguage: {
      settings: { interfaceLanguage: "German" },
      before: user("1234 !!"),
      check: Effect.map(lastRequest, (request) => assert.isTrue(request.endsWith("\nWrite the entries in German.\n")))
    },
    timeZone: {
      settings: { timeZone: "Etc/GMT+12" },
      answers: [add("The user drinks coffee")],
      check: Effect.map(Kit.file(memoryFile), (memory) => assert.include(memory, "added: 1969-12-31]"))
    },
    isSecret: {
      settings: { isSecret: (text) => text.includes("BADGE-") },
      before: user("My door badge is BADGE-4821"),
      check: Effect.map(lastRequest, (request) => {
        assert.notInclude(request, "BADGE-4821")
        assert.include(request, `user: "[secret]"`)
      })
    }
  }
  for (const [
    limit,
    { settings, answers = [], otherwise = Kit.answer(), before = firstLines, check }
  ] of Object.entries(cases)) {
    for (const path of ["reviewNow", "turnEnded"] as const) {
      it.effect(`${limit} holds for ${path}`, () =>
        Effect.gen(function* () {
          yield* Kit.setUp()
          yield* before
          if (path === "reviewNow") yield* (yield* review).reviewNow(Kit.conversation)
          else yield* Kit.turn()
          yield* check
        }).pipe(Effect.provide(Kit.layer({ answers, otherwise }).pipe(Layer.provide(MemoryConfig.layer(settings)))))
      )
    }
  }

  it.effect("reviewDelay holds for turn ends", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      yield* firstLines
      const memory = yield* review
      yield* memory.turnEnded(Kit.conversation)
      yield* TestClock.adjust("4999 millis")
      assert.strictEqual((yield* Kit.requests).length, 0)
      yield* TestClock.adjust("1 milli")
      yield* memory.awaitIdle
      assert.strictEqual((yield* Kit.requests).length, 1)
    }).pipe(
      Effect.provide(
        Kit.layer({ otherwise: Kit.answer() }).pipe(
          Layer.provide(MemoryConfig.layer({ reviewDelay: Duration.seconds(5) }))
        )
      )
    )
  )

  it.effect("reviewEnabled: false holds for turn ends, and a review asked for still runs", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      yield* firstLines
      const memory = yield* review
      yield* Kit.turn()
      assert.strictEqual((yield* Kit.requests).length, 0)
      assert.strictEqual((yield* memory.reviewNow(Kit.conversation))._tag, "Reviewed")
    }).pipe(
      Effect.provide(
        Kit.layer({ otherwise: Kit.answer() }).pipe(Layer.provide(MemoryConfig.layer({ reviewEnabled: false })))
      )
    )
  )

  it.effect("Memory.layer's own settings go over the configuration in force", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      yield* firstLines
      yield* Kit.turn()
      assert.include(yield* lastReason, "of its 40 characters")
    }).pipe(
      Effect.provide(
        Kit.layer({ answers: [add("The user drinks coffee")], settings: { memoryMax: 40 } }).pipe(
          Layer.provide(MemoryConfig.layer({ memoryMax: 10_000 }))
        )
      )
    )
  )
})
