/**
 * The memory review's acceptance tests (SPEC 4): when it runs, what it reads, how an answer applies or fails, when it
 * stops retrying, and what the host sees. Time is the test clock; files are real, in a temporary folder.
 */
import { assert, describe, it } from "@effect/vitest"
import { Backoff, ModelError, Prompt } from "@mneme/core"
import { Cursors, MemoryReview, MemoryStore } from "@mneme/review"
import * as Testing from "@mneme/review/testing"
import { Context, Deferred, Effect, Exit, FileSystem, Layer, Metric, Scope } from "effect"
import { TestClock } from "effect/testing"
import * as Kit from "./reviewKit.ts"

const memoryFile = "agents/a1/MEMORY.md"
const teamFile = "team/MEMORY.md"

/** Writes MEMORY.md by hand: "Likes tea" first, then filler entries up to about `size` characters. */
const fillMemory = (size: number) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const root = yield* Testing.MemoryRoot
    const lines = ["# Memory", "", "- Likes tea"]
    for (let i = 0; lines.join("\n").length < size - 80; i++) {
      lines.push(`- Filler fact number ${String(i).padStart(3, "0")} about the user's many habits`)
    }
    const content = [...lines, "", "## Index", ""].join("\n")
    yield* fs.makeDirectory(`${root}/agents/a1`, { recursive: true })
    yield* fs.writeFileString(`${root}/${memoryFile}`, content)
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
  Effect.map(Cursors.Cursors, (cursors) =>
    Effect.map(Effect.orDie(cursors.cursor(Kit.key)), (cursor) => {
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
      }).pipe(Effect.provide(Kit.layer({ answers: [answer] })))
    )
  }

  it.effect("a line the host's own secret test finds secret is kept from the model whole", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      yield* Kit.append({ seq: 10, who: "user", text: "My door badge is BADGE-4821" })
      yield* Kit.append({ seq: 11, who: "user", text: "I prefer dark mode" })
      yield* (yield* Testing.ScriptedModel).push(Kit.answer({ op: "add", text: "The user prefers dark mode" }))
      const outcome = yield* (yield* review).reviewNow(Kit.conversation)
      assert.strictEqual(outcome.ok, true)
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
      assert.strictEqual(outcome.status, "failed")
      assert.include(outcome.reason, "MEMORY.md would hold")
      assert.deepStrictEqual(outcome.removed, [{ scope: "own", topic: undefined, text: "Likes tea" }])
      const memory = yield* Kit.file(memoryFile)
      assert.notInclude(memory, "Likes tea")
      assert.notInclude(memory, "coffee")
      assert.strictEqual(yield* Kit.cursor, 9)
    }).pipe(Effect.provide(Kit.layer()))
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
        assert.strictEqual(outcome.secretsDropped, 1)
        assert.deepStrictEqual(outcome.leftOut, [])
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
      const fs = yield* FileSystem.FileSystem
      const root = yield* Testing.MemoryRoot
      yield* (yield* Testing.ScriptedModel).push(
        Effect.as(
          Effect.orDie(fs.writeFileString(`${root}/${memoryFile}`, "# Memory\n\n## Index\n")),
          Kit.answer({ op: "remove", entry: 1 }, { op: "add", text: "The user drinks coffee" })
        )
      )
      const outcome = yield* (yield* review).reviewNow(Kit.conversation)
      assert.strictEqual(outcome.status, "reviewed")
      assert.strictEqual(outcome.skipped.length, 1)
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
      assert.strictEqual(outcome.status, "reviewed")
      assert.deepStrictEqual(outcome.added, [{ scope: "team", topic: "habits", text: "The team drinks coffee" }])
      assert.strictEqual(outcome.edited.length, 2)
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
      assert.strictEqual(outcome.status, "agent-gone")
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
        const cursors = yield* Cursors.Cursors
        let pass = 0
        const eight = Effect.suspend(() => {
          pass++
          return Effect.map(Effect.orDie(cursors.cursor(Kit.key)), (cursor) => {
            seen.push(cursor)
            return Kit.answer(...Array.from({ length: 8 }, (_, i) => ({ op: "add", text: `Fact ${pass}.${i}` })))
          })
        })
        yield* (yield* Testing.ScriptedModel).push(eight, eight, eight, eight, eight, eight)
        const outcome = yield* (yield* review).reviewNow(Kit.conversation)
        assert.strictEqual(outcome.modelCalls, 5)
        assert.strictEqual(outcome.passes, 5)
        assert.strictEqual(outcome.added.length, 40)
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
      assert.strictEqual(outcome.status, "reviewed")
      assert.strictEqual(outcome.modelCalls, 1)
      assert.strictEqual(yield* Kit.cursor, 11)
    }).pipe(Effect.provide(Kit.layer()))
  )
})

describe("reading", () => {
  it.effect("a backlog over 16,000 characters is reviewed in passes, oldest first, never passing an unseen line", () =>
    Effect.gen(function* () {
      yield* Kit.setUp()
      yield* (yield* Cursors.Cursors).setCursor(Kit.key, 0)
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
      yield* (yield* Cursors.Cursors).setCursor(Kit.key, 95)
      yield* Kit.turn()
      assert.strictEqual(yield* host.pulled(Kit.conversation), 9)
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
      const record = yield* (yield* Cursors.Cursors).failure(Kit.key)
      assert.strictEqual(record?.failures, 2)
    }).pipe(Effect.provide(Kit.layer({ otherwise: "no" })))
  )

  it.effect("closing the service cancels the waiting timers", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const services = yield* Layer.buildWithScope(Kit.layer({ otherwise: Kit.answer() }), scope)
      const requests = Context.get(services, Testing.ScriptedModel).requests
      yield* Effect.gen(function* () {
        yield* Kit.setUp()
        yield* firstLines
        yield* (yield* review).turnEnded(Kit.conversation)
      }).pipe(Effect.provide(services))
      yield* Scope.close(scope, Exit.void)
      yield* TestClock.adjust("10 seconds")
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
      assert.strictEqual(outcome.status, "reviewed")
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
      assert.strictEqual(failed.status, "failed")
      assert.include(failed.reason, "the model failed: overloaded")
      assert.strictEqual((yield* (yield* Cursors.Cursors).failure(Kit.key))?.failures, 3)
      yield* (yield* Testing.ScriptedModel).push(Kit.answer({ op: "add", text: "The user drinks coffee" }))
      const ok = yield* memory.reviewNow(Kit.conversation)
      assert.strictEqual(ok.status, "reviewed")
      assert.strictEqual(ok.cursor, 11)
      assert.isUndefined(yield* (yield* Cursors.Cursors).failure(Kit.key))
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
  it.effect("every review is counted in the metrics", () =>
    Effect.gen(function* () {
      yield* Kit.setUp({ entries: ["Likes tea"] })
      yield* firstLines
      yield* (yield* Testing.ScriptedModel).push(
        Kit.answer(
          { op: "add", text: "x".repeat(301) },
          { op: "remove", entry: 1 },
          { op: "add", text: "The user drinks coffee" }
        )
      )
      yield* Kit.turn()
      const value = (metric: Metric.Metric<number, { readonly count: number }>) =>
        Effect.map(Metric.value(metric), (state) => state.count)
      assert.strictEqual(yield* value(MemoryReview.metrics.modelCalls), 1)
      assert.strictEqual(yield* value(MemoryReview.metrics.changesApplied), 2)
      assert.strictEqual(yield* value(MemoryReview.metrics.leftOut), 1)
      assert.strictEqual(yield* value(MemoryReview.metrics.failures), 0)
    }).pipe(Effect.provide(Kit.layer()), Effect.provideService(Metric.MetricRegistry, new Map()))
  )
})
