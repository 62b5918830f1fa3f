import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Lines, MemoryConfig, MemoryFile, MemoryScope, ModelError, Text } from "@mneme/core"
import { Context, Effect, Exit, Layer, Metric, Stream } from "effect"
import * as fc from "fast-check"
import { TestClock } from "effect/testing"
import { Agents } from "../src/Agents.ts"
import * as Groups from "../src/Groups.ts"
import * as Apply from "../src/internal/reviewApply.ts"
import { choose } from "../src/internal/reviewChoose.ts"
import { read, reviewPlan } from "../src/internal/reviewRead.ts"
import type { StoredScope } from "../src/MemoryRoot.ts"
import * as MemoryReview from "../src/MemoryReview.ts"
import { MemoryStore } from "../src/MemoryStore.ts"
import { ReviewState } from "../src/ReviewState.ts"
import * as ReviewModel from "../src/ReviewModel.ts"
import * as Testing from "../src/testing.ts"
import { make as makeTranscript, Transcript } from "../src/Transcript.ts"
import { failingServices } from "./fixtures/kit.ts"

const settings = { firstReviewLines: 6, contextLines: 4 }

/** Lines 1..n, user where `users` says, as a newest-first stream that counts what is pulled. */
const transcript = (n: number, users: ReadonlyArray<number>) => {
  const pulled: Array<number> = []
  const lines: Array<Lines.Line> = Array.from({ length: n }, (_, i) => ({
    seq: i + 1,
    who: users.includes(i + 1) ? "user" : "agent",
    text: `line ${i + 1}`
  }))
  const stream = Stream.fromIterable(lines.toReversed(), { chunkSize: 1 }).pipe(
    Stream.tap((line) => Effect.sync(() => pulled.push(line.seq)))
  )
  return { stream, pulled }
}

const seqs = (lines: ReadonlyArray<Lines.Line>) => lines.map((line) => line.seq)

/** Reads a conversation whose transcript gives only `newestFirst` (the stream given). */
const readBack = (
  stream: Stream.Stream<Lines.Line>,
  cursor: number | undefined,
  given: { readonly firstReviewLines: number; readonly contextLines: number }
) =>
  read(
    makeTranscript({
      newestFirst: () => stream,
      agentOf: () => Effect.succeed("a1"),
      anchor: (id, seq) => Effect.succeed(`${id} #${seq}`)
    }),
    "c1",
    cursor,
    { ...MemoryConfig.defaults, ...given }
  )

/** What reading found, when `fresh` are all the new lines. */
const readAll = (context: ReadonlyArray<Lines.Line>, fresh: ReadonlyArray<Lines.Line>) => ({
  context,
  fresh,
  newest: fresh.at(-1)?.seq,
  newestUser: fresh.findLast(Lines.isUserWords)?.seq
})

describe("reading", () => {
  it.effect("with a cursor: the lines after it, and up to 4 before as context", () =>
    Effect.gen(function* () {
      const t = transcript(30, [28])
      const got = yield* readBack(t.stream, 25, settings)
      assert.deepStrictEqual(seqs(got.fresh), [26, 27, 28, 29, 30])
      assert.deepStrictEqual(seqs(got.context), [22, 23, 24, 25])
      assert.strictEqual(t.pulled.length, 9)
    })
  )

  it.effect("a cursor at the newest line: nothing new", () =>
    Effect.gen(function* () {
      const got = yield* readBack(transcript(5, [1]).stream, 5, settings)
      assert.deepStrictEqual(seqs(got.fresh), [])
      assert.deepStrictEqual(seqs(got.context), [2, 3, 4, 5])
    })
  )

  it.effect("a first review: the last 6 lines when they hold a user line", () =>
    Effect.gen(function* () {
      const t = transcript(30, [27])
      const got = yield* readBack(t.stream, undefined, settings)
      assert.deepStrictEqual(seqs(got.fresh), [25, 26, 27, 28, 29, 30])
      assert.deepStrictEqual(seqs(got.context), [21, 22, 23, 24])
      assert.strictEqual(t.pulled.length, 10)
    })
  )

  it.effect("a first review: extended back to the newest user line", () =>
    Effect.gen(function* () {
      const got = yield* readBack(transcript(30, [3, 20]).stream, undefined, settings)
      assert.deepStrictEqual(seqs(got.fresh), [20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30])
      assert.deepStrictEqual(seqs(got.context), [16, 17, 18, 19])
    })
  )

  it.effect("a first review of a short transcript, or of one without a user line, reads it all", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(seqs((yield* readBack(transcript(3, [1]).stream, undefined, settings)).fresh), [1, 2, 3])
      const none = yield* readBack(transcript(12, []).stream, undefined, settings)
      assert.strictEqual(none.fresh.length, 12)
      assert.deepStrictEqual(none.context, [])
    })
  )

  it.effect("no context lines when none are wanted", () =>
    Effect.gen(function* () {
      const t = transcript(30, [30])
      const got = yield* readBack(t.stream, 27, { firstReviewLines: 6, contextLines: 0 })
      assert.deepStrictEqual(seqs(got.fresh), [28, 29, 30])
      assert.deepStrictEqual(got.context, [])
      assert.strictEqual(t.pulled.length, 4)
    })
  )
})

const line = (seq: number, who: Lines.Line["who"], text = `line ${seq}`): Lines.Line => ({ seq, who, text })

describe("a transcript from what the host gives", () => {
  it.effect("fills the reads from a cursor from the lines newest first, and no conversation is a group", () =>
    Effect.gen(function* () {
      const lines = [line(2, "user"), line(5, "agent"), line(9, "user")]
      const transcript = makeTranscript({
        newestFirst: () => Stream.fromIterable(lines.toReversed()),
        agentOf: () => Effect.succeed("a1"),
        anchor: (id, seq) => Effect.succeed(`${id} #${seq}`)
      })
      const collected = (stream: Stream.Stream<Lines.Line, unknown>) =>
        Effect.map(Stream.runCollect(stream), (got) => seqs(got))
      assert.isFalse(transcript.seeks)
      assert.deepStrictEqual(yield* collected(transcript.oldestAfter("c1", 0)), [2, 5, 9])
      assert.deepStrictEqual(yield* collected(transcript.oldestAfter("c1", 3)), [5, 9])
      assert.deepStrictEqual(yield* collected(transcript.oldestAfter("c1", 9)), [])
      assert.deepStrictEqual(yield* collected(transcript.newestUpTo("c1", 9)), [9, 5, 2])
      assert.deepStrictEqual(yield* collected(transcript.newestUpTo("c1", 8)), [5, 2])
      assert.deepStrictEqual(yield* collected(transcript.newestUpTo("c1", 1)), [])
      assert.isUndefined(yield* Groups.Groups.use((groups) => groups.membersOf("c1")))
    })
  )

  it("seeks when the host gives both reads from a cursor", () => {
    const given = {
      newestFirst: () => Stream.empty,
      agentOf: () => Effect.succeed("a1"),
      anchor: (id: string, seq: number) => Effect.succeed(`${id} #${seq}`)
    }
    assert.isTrue(makeTranscript({ ...given, oldestAfter: () => Stream.empty, newestUpTo: () => Stream.empty }).seeks)
    assert.isFalse(makeTranscript({ ...given, oldestAfter: () => Stream.empty }).seeks)
  })
})

describe("reading from the cursor, where the transcript can (issue 11)", () => {
  /** A transcript over `lines` that gives only `newestFirst`, or every read. */
  const over = (lines: ReadonlyArray<Lines.Line>, seeks: boolean): Transcript["Service"] => {
    const newestFirst = () => Stream.fromIterable(lines.toReversed())
    const base = {
      newestFirst,
      agentOf: () => Effect.succeed("a1"),
      anchor: (id: string, seq: number) => Effect.succeed(`${id} #${seq}`)
    }
    return makeTranscript(
      seeks
        ? {
            ...base,
            oldestAfter: (_, cursor) => Stream.fromIterable(lines.filter((line) => line.seq > cursor)),
            newestUpTo: (_, seq) => Stream.fromIterable(lines.filter((line) => line.seq <= seq).toReversed())
          }
        : base
    )
  }

  const arbitraryLine = fc.record({
    gap: fc.integer({ min: 1, max: 3 }),
    who: fc.constantFrom<Lines.Line["who"]>("user", "agent", "other"),
    kind: fc.option(fc.constantFrom<Lines.Kind>("tool-call", "tool-result", "memory"), { freq: 4, nil: undefined }),
    size: fc.integer({ min: 1, max: 2_500 })
  })

  it("property: the plan is the same as when every line back to the cursor is read", () =>
    fc.assert(
      fc.asyncProperty(
        fc.array(arbitraryLine, { maxLength: 60 }),
        fc.integer({ min: 0, max: 200 }),
        fc.integer({ min: 200, max: 6_000 }),
        async (made, cursorAt, budget) => {
          let seq = 0
          const lines = made.map(({ gap, who, kind, size }): Lines.Line => {
            seq += gap
            return {
              seq,
              who,
              ...(who === "other" ? { name: "Bo" } : {}),
              ...(kind === undefined ? {} : { kind }),
              text: `${who} ${seq} ` + "word ".repeat(size / 5)
            }
          })
          const cursor = Math.min(cursorAt, seq)
          const settings = { ...MemoryConfig.defaults, newLinesBudget: budget, contextLines: 3 }
          const [back, on] = await Effect.runPromise(
            Effect.all([
              read(over(lines, false), "c1", cursor, settings),
              read(over(lines, true), "c1", cursor, settings)
            ])
          )
          assert.deepStrictEqual(reviewPlan(on, cursor, settings), reviewPlan(back, cursor, settings))
        }
      ),
      { numRuns: 500 }
    ))

  it.effect("a review far behind reads one review's worth of lines, however many follow", () =>
    Effect.gen(function* () {
      const pulled: Array<number> = []
      const lines = Array.from({ length: 10_000 }, (_, i): Lines.Line => ({
        seq: i + 1,
        who: i % 2 === 0 ? "user" : "agent",
        text: `line ${i + 1} ` + "word ".repeat(40)
      }))
      const counted = (stream: Stream.Stream<Lines.Line>) =>
        stream.pipe(Stream.tap((line) => Effect.sync(() => pulled.push(line.seq))))
      const transcript = makeTranscript({
        newestFirst: () => counted(Stream.fromIterable(lines.toReversed())),
        oldestAfter: (_, cursor) => counted(Stream.fromIterable(lines.slice(cursor))),
        newestUpTo: (_, seq) => counted(Stream.fromIterable(lines.slice(0, seq).toReversed())),
        agentOf: () => Effect.succeed("a1"),
        anchor: (id, seq) => Effect.succeed(`${id} #${seq}`)
      })
      const settings = { ...MemoryConfig.defaults, contextLines: 4 }
      const got = reviewPlan(yield* read(transcript, "c1", 100, settings), 100, settings)
      assert.strictEqual(got._tag, "Ask")
      if (got._tag !== "Ask") return
      assert.strictEqual(got.lines[0]?.seq, 101)
      assert.isTrue(got.moreFollow)
      assert.deepStrictEqual(got.position, { cursor: 100, newestUserSeq: 9_999 })
      // The lines one review takes and the one after, the newest two, and four of context: nowhere near 10,000.
      assert.strictEqual(pulled.length, got.lines.length + 1 + 2 + 4)
    })
  )
})

describe("planning a review", () => {
  const settings = MemoryConfig.defaults

  it("nothing new, no user line (passed at once), or the lines to ask about within the budget", () => {
    assert.deepStrictEqual(reviewPlan(readAll([], []), 5, settings), { _tag: "NothingNew" })
    assert.deepStrictEqual(reviewPlan(readAll([], [line(6, "agent"), line(7, "other")]), 5, settings), {
      _tag: "NoUserLine",
      last: 7,
      moreFollow: false
    })
    const context = [line(4, "user")]
    const fresh = [line(6, "user", "a".repeat(10)), line(7, "agent"), line(8, "user", "b".repeat(10))]
    assert.deepStrictEqual(reviewPlan(readAll(context, fresh), undefined, { ...settings, newLinesBudget: 17 }), {
      _tag: "Ask",
      context,
      lines: fresh.slice(0, 2),
      moreFollow: true,
      base: 5,
      last: 7,
      user: 6,
      position: { cursor: 5, newestUserSeq: 8 }
    })
  })
})

describe("tool lines and quoted memory are never new words (issue 12)", () => {
  const settings = MemoryConfig.defaults
  const marked = (seq: number, who: Lines.Line["who"], kind: Lines.Kind, text = `line ${seq}`): Lines.Line => ({
    seq,
    who,
    kind,
    text
  })

  it("new lines of tool calls, tool results (even given as the user's) and quoted memory: no user line, passed", () => {
    const fresh = [
      marked(6, "agent", "tool-call", '{"tool":"recall","query":"tea"}'),
      marked(7, "user", "tool-result", '{"entries":[{"text":"The user likes green tea"}]}'),
      marked(8, "agent", "memory", "## Long-term memory"),
      line(9, "agent", "You like green tea.")
    ]
    assert.deepStrictEqual(reviewPlan(readAll([], fresh), 5, settings), {
      _tag: "NoUserLine",
      last: 9,
      moreFollow: false
    })
  })

  it("the model is shown the words said, never the tool lines among them, and the cursor passes them all", () => {
    const fresh = [
      line(6, "user", "What do I drink?"),
      marked(7, "agent", "tool-call", '{"tool":"recall","query":"drink"}'),
      marked(8, "user", "tool-result", "The user likes green tea"),
      line(9, "agent", "Green tea."),
      marked(10, "agent", "tool-call", '{"tool":"remember","text":"The user asked twice"}')
    ]
    const planned = reviewPlan(readAll([], fresh), 5, settings)
    assert.strictEqual(planned._tag, "Ask")
    if (planned._tag !== "Ask") return
    assert.deepStrictEqual(seqs(planned.lines), [6, 9])
    assert.strictEqual(planned.last, 10)
    assert.strictEqual(planned.user, 6)
    assert.deepStrictEqual(planned.position, { cursor: 5, newestUserSeq: 6 })
  })

  it.effect("a first review reads back past tool results given as the user's, to the user's own words", () =>
    Effect.gen(function* () {
      const lines: Array<Lines.Line> = [
        line(1, "user", "I moved to Lyon"),
        ...Array.from({ length: 8 }, (_, i) => marked(i + 2, "user", "tool-result", `result ${i}`))
      ]
      const got = yield* readBack(Stream.fromIterable(lines.toReversed()), undefined, {
        firstReviewLines: 6,
        contextLines: 4
      })
      assert.deepStrictEqual(seqs(got.fresh), [1, 2, 3, 4, 5, 6, 7, 8, 9])
    })
  )
})

/** A scope as stored, from the texts of its files (MEMORY.md first). */
const stored = (scope: MemoryScope.MemoryScope, dir: string, files: Record<string, string>): StoredScope => ({
  scope,
  dir,
  files: Object.entries(files).map(([name, text]) => ({
    file: `${dir}/${name}.md`,
    topic: name === "MEMORY" ? undefined : name,
    exists: true,
    parsed: MemoryFile.parse(text),
    size: Text.length(text)
  })),
  unreadable: []
})

describe("choosing what a pass shows", () => {
  it("a MEMORY.md past its size is listed only up to its size, and the rest is counted", () => {
    const entries = Array.from({ length: 1_000 }, (_, i) => `- Fact number ${String(i).padStart(4, "0")} of many`)
    const own = stored(MemoryScope.own("a1"), "agents/a1", { MEMORY: ["# Memory", "", ...entries, ""].join("\n") })
    const team = stored(MemoryScope.team, "team", { MEMORY: "# Memory\n\n- The team ships on Fridays\n" })
    const chosen = choose(own, team, [line(1, "user")], { memoryMax: 100, shownTopicsBudget: 16_000 })
    assert.deepStrictEqual(
      chosen.shown.map((entry) => [entry.number, entry.scope, entry.text]),
      [
        [1, "own", "Fact number 0000 of many"],
        [2, "own", "Fact number 0001 of many"],
        [3, "own", "Fact number 0002 of many"],
        [4, "own", "Fact number 0003 of many"],
        [5, "team", "The team ships on Fridays"]
      ]
    )
    assert.deepStrictEqual(chosen.memoryNotShown, { own: 996, team: 0 })
    assert.deepStrictEqual(chosen.sizes, { own: own.files[0]!.size, team: team.files[0]!.size, max: 100 })
  })
})

describe("planning the changes of an answer", () => {
  const own = stored(MemoryScope.own("a1"), "agents/a1", {
    MEMORY: "# Memory\n\n- Likes tea [source: c #1]\n",
    kitchen: "# kitchen\n\n- Owns a wok\n"
  })
  const team = stored(MemoryScope.team, "team", { MEMORY: "# Memory\n\n- The team ships on Fridays\n" })
  const shown = choose(own, team, [], MemoryConfig.defaults).shown
  const context = (mayWriteTeam: boolean): Apply.AnswerBasis => ({
    agent: { id: "a1", name: "Ada", mayWriteTeam },
    shown,
    own,
    team,
    sources: ["c #9", "c #9", "c #9"],
    settings: MemoryConfig.defaults
  })

  it("a numbered edit or remove is a change of exactly that entry: its scope, its topic, its text", () => {
    const planned = Apply.toEdits(context(true), [
      { op: "edit", entry: 1, text: "Likes coffee" },
      { op: "remove", entry: 3 },
      { op: "add", text: "The team likes maps", team: true }
    ])
    assert.deepStrictEqual(
      planned.map((p) => (p._tag === "Store" ? p.input : p.error)),
      [
        {
          op: "replace",
          scope: MemoryScope.own("a1"),
          match: "Likes tea",
          exact: true,
          text: "Likes coffee",
          meta: [["source", "c #9"]],
          actor: "review",
          auto: true
        },
        {
          op: "remove",
          scope: MemoryScope.own("a1"),
          topic: "kitchen",
          match: "Owns a wok",
          exact: true,
          actor: "review",
          auto: true
        },
        {
          op: "add",
          scope: MemoryScope.team,
          text: "The team likes maps",
          meta: [
            ["source", "c #9"],
            ["by", "a1"]
          ],
          actor: "review",
          auto: true
        }
      ]
    )
  })

  it("a team entry is skipped where the agent may not write team memory, a team add lands in its own memory", () => {
    const planned = Apply.toEdits(context(false), [
      { op: "remove", entry: 2 },
      { op: "add", text: "The team likes maps", team: true }
    ])
    const [denied, add] = planned
    assert.strictEqual(denied?._tag === "Skip" ? denied.error.message : "", `the agent "a1" may not change team memory`)
    assert.deepStrictEqual(add?._tag === "Store" ? add.input.scope : undefined, MemoryScope.own("a1"))
  })

  it("each change cites its own source, given in the answer's order", () => {
    const planned = Apply.toEdits({ ...context(true), sources: ["c #1", "c #2, c #3"] }, [
      { op: "add", text: "Likes maps", from: [1] },
      { op: "edit", entry: 1, text: "Likes coffee", from: [2, 3] }
    ])
    assert.deepStrictEqual(
      planned.map((p) => (p._tag === "Store" && p.input.op !== "remove" ? p.input.meta : undefined)),
      [[["source", "c #1"]], [["source", "c #2, c #3"]]]
    )
  })

  it("an entry an earlier change of the answer named is gone: skipped as NoMatch", () => {
    const [, again] = Apply.toEdits(context(true), [
      { op: "edit", entry: 1, text: "Likes coffee" },
      { op: "remove", entry: 1 }
    ])
    assert.strictEqual(again?._tag, "Skip")
    if (again?._tag !== "Skip") return
    assert.strictEqual(again.error._tag, "NoMatch")
    assert.strictEqual(again.error.message, `no entry in agents/a1/MEMORY.md holds "Likes tea"`)
  })
})

const layer = (options: Testing.Options = {}) => Testing.layer(options).pipe(Layer.provideMerge(NodeServices.layer))

describe("the test kit", () => {
  it.effect("the scripted model answers in order, then with `otherwise`, and records every request", () =>
    Effect.gen(function* () {
      const model = yield* ReviewModel.ReviewModel
      const scripted = yield* Testing.ScriptedModel
      yield* scripted.push(Effect.succeed({ text: "three", usage: { inputTokens: 5 } }))
      const ask = (request: string) => Effect.exit(model.generate({ system: "s", request }))
      assert.deepStrictEqual(yield* ask("a"), Exit.succeed({ text: "one" }))
      const failed = yield* Effect.flip(model.generate({ system: "s", request: "b" }))
      assert.strictEqual(failed._tag, "ModelError")
      assert.strictEqual(failed.message, "the model failed: down")
      assert.deepStrictEqual(yield* ask("c"), Exit.succeed({ text: "three", usage: { inputTokens: 5 } }))
      assert.deepStrictEqual(yield* ask("d"), Exit.succeed({ text: "again" }))
      assert.deepStrictEqual(
        (yield* scripted.requests).map((r) => r.request),
        ["a", "b", "c", "d"]
      )
    }).pipe(Effect.provide(Testing.scriptedModel(["one", new ModelError({ reason: "down" })], { otherwise: "again" })))
  )

  it.effect("with no answer left and no `otherwise`, the scripted model fails", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        ReviewModel.ReviewModel.use((model) => model.generate({ system: "s", request: "r" }))
      )
      assert.strictEqual(error, Testing.noAnswerLeft)
      assert.strictEqual(error.message, "the model failed: the scripted model has no answer left")
    }).pipe(Effect.provide(Testing.scriptedModel()))
  )

  it.effect("the in-memory transcript numbers lines, knows its agents, and can fail its reads", () =>
    Effect.gen(function* () {
      const host = yield* Testing.TranscriptMemory
      const transcript = yield* Transcript
      const agents = yield* Agents
      yield* host.addAgent({ id: "a1", role: "helper" })
      yield* host.bind("c", "a1")
      const added = yield* host.append(
        "c",
        { who: "user", text: "hi" },
        { seq: 10, who: "agent", text: "yo" },
        { who: "other", name: "Bo", text: "hey" }
      )
      assert.deepStrictEqual(seqs(added), [1, 10, 11])
      assert.deepStrictEqual(added[2], { seq: 11, who: "other", name: "Bo", text: "hey" })
      assert.deepStrictEqual(seqs(yield* Stream.runCollect(transcript.newestFirst("c"))), [11, 10, 1])
      assert.strictEqual(yield* transcript.agentOf("c"), "a1")
      assert.strictEqual(yield* transcript.anchor("c", 10), "c #10")
      assert.deepStrictEqual(yield* agents.get("a1"), { id: "a1", name: "a1", role: "helper", mayWriteTeam: false })
      const unknown = yield* Effect.flip(transcript.agentOf("x"))
      assert.strictEqual(unknown._tag, "TranscriptError")
      assert.strictEqual(unknown.message, `the transcript could not be read: no conversation "x"`)
      yield* host.breakReads("c", "disk gone")
      const broken = yield* Effect.flip(Stream.runCollect(transcript.newestFirst("c")))
      assert.strictEqual(broken._tag, "TranscriptError")
      assert.strictEqual(broken.message, "the transcript could not be read: disk gone")
      yield* host.removeAgent("a1")
      assert.isUndefined(yield* agents.get("a1"))
    }).pipe(Effect.provide(Testing.transcriptMemory))
  )
})

describe("MemoryReview", () => {
  it.effect("a long backlog without a user line is passed at once, with no model call", () =>
    Effect.gen(function* () {
      const host = yield* Testing.TranscriptMemory
      yield* host.addAgent({ id: "a1" })
      yield* host.bind("c", "a1")
      yield* host.append("c", ...Array.from({ length: 40 }, () => ({ who: "agent" as const, text: "x".repeat(800) })))
      const review = yield* MemoryReview.MemoryReview
      const outcome = yield* review.reviewNow("c")
      assert.strictEqual(outcome._tag, "NoUserLine")
      assert.isFalse(outcome.moreFollow)
      assert.strictEqual(outcome.cursor, 40)
      assert.strictEqual(yield* (yield* ReviewState).cursor("chat:c"), 40)
      assert.deepStrictEqual(yield* (yield* Testing.ScriptedModel).requests, [])
    }).pipe(Effect.provide(layer()))
  )

  it.effect("nothing new, no call; a conversation nobody owns fails the review", () =>
    Effect.gen(function* () {
      const host = yield* Testing.TranscriptMemory
      yield* host.addAgent({ id: "a1" })
      yield* host.bind("c", "a1")
      const review = yield* MemoryReview.MemoryReview
      const empty = yield* review.reviewNow("c")
      assert.deepStrictEqual([empty._tag, empty.agentId, empty.cursor], ["NothingNew", "a1", undefined])
      const unknown = yield* review.reviewNow("nobody")
      assert.strictEqual(unknown._tag, "Failed")
      if (unknown._tag !== "Failed") return
      assert.strictEqual(unknown.error._tag, "TranscriptError")
      assert.strictEqual(unknown.reason, `the transcript could not be read: no conversation "nobody"`)
      assert.isUndefined(unknown.agentId)
      assert.deepStrictEqual(yield* (yield* Testing.ScriptedModel).requests, [])
    }).pipe(Effect.provide(layer()))
  )

  it.effect(
    "a review's record lands with its answer, in one commit: where it cannot be written, none of the answer does",
    () => {
      let refused = false
      const failing = failingServices((call, file) => refused && call === "rename" && file.endsWith("reviewed.json"))
      return Effect.gen(function* () {
        const host = yield* Testing.TranscriptMemory
        const scripted = yield* Testing.ScriptedModel
        const review = yield* MemoryReview.MemoryReview
        const store = yield* MemoryStore
        const state = yield* ReviewState
        const answer = (text: string) =>
          scripted.push(Effect.succeed({ text: JSON.stringify({ changes: [{ op: "add", text }] }) }))
        const memory = Effect.map(store.load(MemoryScope.own("a1")), (view) =>
          view.files.flatMap((file) => file.parsed.entries.map((entry) => entry.text))
        )
        yield* host.addAgent({ id: "a1" })
        yield* host.bind("c", "a1")
        yield* host.append("c", { who: "user", text: "I like maps." })
        yield* answer("The user likes maps")
        assert.strictEqual((yield* review.reviewNow("c"))._tag, "Reviewed")
        const reviewed = yield* state.lastReview("a1")
        assert.deepStrictEqual([yield* state.cursor("chat:c"), reviewed?.ok], [1, true])
        yield* host.append("c", { who: "user", text: "I moved to Lyon." })
        yield* answer("The user lives in Lyon")
        refused = true
        const failed = yield* review.reviewNow("c")
        assert.strictEqual(failed._tag, "Failed")
        assert.deepStrictEqual(failed.changes.added, [])
        assert.deepStrictEqual(yield* memory, ["The user likes maps"])
        assert.strictEqual((yield* store.journal()).length, 1)
        assert.strictEqual(yield* state.cursor("chat:c"), 1)
        assert.deepStrictEqual(yield* state.lastReview("a1"), reviewed)
        refused = false
        yield* answer("The user lives in Lyon")
        const again = yield* review.reviewNow("c")
        assert.deepStrictEqual([again._tag, again.cursor], ["Reviewed", 2])
        assert.deepStrictEqual(yield* memory, ["The user likes maps", "The user lives in Lyon"])
        assert.strictEqual((yield* store.journal()).length, 2)
        assert.strictEqual(yield* state.cursor("chat:c"), 2)
      }).pipe(Effect.provide(Testing.layer().pipe(Layer.provideMerge(failing))))
    }
  )

  it.effect("a host's own ReviewState that cannot record in a commit gets the review's record by recordReview", () =>
    Effect.gen(function* () {
      const host = yield* Testing.TranscriptMemory
      const scripted = yield* Testing.ScriptedModel
      const recorded: Array<readonly [string, number]> = []
      // The state a host might keep itself: here the default's, recordReview counted.
      const own = Layer.effect(
        ReviewState,
        Effect.gen(function* () {
          const state = yield* ReviewState
          return ReviewState.of({
            ...state,
            recordReview: (key, seq, agentId, review) => {
              recorded.push([key, seq])
              return state.recordReview(key, seq, agentId, review)
            }
          })
        })
      )
      const context = yield* Layer.build(MemoryReview.layer.pipe(Layer.provide(own)))
      const review = Context.get(context, MemoryReview.MemoryReview)
      yield* host.addAgent({ id: "a1" })
      yield* host.bind("c", "a1")
      yield* host.append("c", { who: "user", text: "I like maps." })
      yield* scripted.push(
        Effect.succeed({ text: JSON.stringify({ changes: [{ op: "add", text: "The user likes maps" }] }) })
      )
      assert.strictEqual((yield* review.reviewNow("c"))._tag, "Reviewed")
      assert.deepStrictEqual(recorded, [["chat:c", 1]])
      assert.strictEqual(yield* (yield* ReviewState).cursor("chat:c"), 1)
    }).pipe(Effect.provide(layer()))
  )

  it.effect("the tokens a model reports are counted", () =>
    Effect.gen(function* () {
      const host = yield* Testing.TranscriptMemory
      yield* host.addAgent({ id: "a1" })
      yield* host.bind("c", "a1")
      yield* host.append("c", { who: "user", text: "I like maps." })
      yield* (yield* Testing.ScriptedModel).push(
        Effect.succeed({ text: `{"changes":[]}`, usage: { inputTokens: 700, outputTokens: 12 } })
      )
      const review = yield* MemoryReview.MemoryReview
      yield* review.turnEnded("c")
      yield* TestClock.adjust("2 seconds")
      yield* review.awaitIdle
      assert.strictEqual((yield* Metric.value(MemoryReview.metrics.inputTokens)).count, 700)
      assert.strictEqual((yield* Metric.value(MemoryReview.metrics.outputTokens)).count, 12)
      assert.strictEqual((yield* Metric.value(MemoryReview.metrics.promptSize)).count, 1)
    }).pipe(Effect.provide(layer()), Effect.provideService(Metric.MetricRegistry, new Map()))
  )
})
