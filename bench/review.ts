/**
 * The review benchmarks: the review's own cost per pass with an instant model on a full memory (2 × 4,000 characters
 * of MEMORY.md, 2 × 40 topics of 16,000 characters) — reading, fitting, choosing entries, the prompt, parsing,
 * vetting, applying 8 changes with the journal and saving the cursor in one commit — with its loading and its writing
 * timed alone; and the model calls made per 100 turn ends for a model that always fails, for turns without user
 * lines, and for a healthy model; and the peak RSS of `mneme show` and of a review over a 50 MB MEMORY.md
 * (`pastSize.ts`).
 */
import { NodeServices } from "@effect/platform-node"
import { NodePlatform } from "@mneme/node"
import { Memory, MemoryReview, MemoryStore, ReviewModel, ReviewOutcome, ReviewState } from "@mneme/review"
import * as Testing from "@mneme/review/testing"
import { Duration, Effect, Layer, Logger, ManagedRuntime } from "effect"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Figure, type Suite, time } from "./Bench.ts"
import * as PastSize from "./pastSize.ts"

const words = "user prefers green tea morning works billing team ships lives lyon typescript garden travel kyoto".split(
  " "
)

/** An entry of about `size` characters ending in ".", numbered so no two are the same. */
const entry = (n: number, size: number) => {
  let text = `Fact ${n}: the user`
  for (let i = 0; text.length < size - 1; i++) text += ` ${words[(n + i) % words.length]}`
  return `- ${text}. [source: chat #${n}; added: 2026-01-01]`
}

/** Lines of entries filling about `total` characters after `head`. */
const fill = (head: ReadonlyArray<string>, total: number, size: number, first: number) => {
  const lines = [...head]
  for (let n = first; lines.join("\n").length + size + 40 < total; n++) lines.push(entry(n, size))
  return lines
}

/** A full memory: both MEMORY.md files near 4,000 characters with 40 topic links, 40 topics near 16,000 each. */
export const writeFullMemory = (root: string) => {
  const topics = Array.from({ length: 40 }, (_, i) => `topic-${i}`)
  const index = ["", "## Index", ...topics.map((topic) => `- [[${topic}]]`)]
  for (const [dir, offset] of [
    ["agents/a1", 0],
    ["team", 100_000]
  ] as const) {
    mkdirSync(join(root, dir), { recursive: true })
    const memory = fill(["# Memory", ""], 4_000 - index.join("\n").length, 90, offset)
    writeFileSync(join(root, dir, "MEMORY.md"), [...memory, ...index, ""].join("\n"))
    topics.forEach((topic, t) =>
      writeFileSync(
        join(root, dir, `${topic}.md`),
        [...fill([`# ${topic}`, ""], 16_000, 170, offset + (t + 1) * 1_000), ""].join("\n")
      )
    )
  }
}

const listed = /^(\d+)\. (own|team) (MEMORY\.md|topic "[^"]*"): (".*")$/gm

/** An instant model: edits 4 own and 2 team MEMORY.md entries and 2 topic entries, swapping "." and "!" at the end. */
const instant = ReviewModel.layer(({ request }) => {
  const entries = [...request.matchAll(listed)].map(([, n, scope, where, text]) => ({
    number: Number(n),
    group: `${scope} ${where === "MEMORY.md" ? "memory" : "topic"}`,
    text: JSON.parse(text!) as string
  }))
  const pick = (group: string, count: number) => entries.filter((e) => e.group === group).slice(0, count)
  const changes = [...pick("own memory", 4), ...pick("team memory", 2), ...pick("own topic", 2)].map((e) => ({
    op: "edit",
    entry: e.number,
    text: e.text.slice(0, -1) + (e.text.endsWith(".") ? "!" : ".")
  }))
  return Effect.succeed({ text: JSON.stringify({ changes }) })
})

/** No log output: the failing runs warn on purpose. */
const quiet = Logger.layer([])

const userLine = (n: number) =>
  `Turn ${n}: I am planning the garden for the spring, and my daughter wants a piano in the kitchen. ` +
  "The billing team ships on Thursdays, and I travel to Kyoto in May. ".repeat(20)

/** Median ms of one review pass on a full memory (each pass checked to apply 8 changes), and of loading it. */
const passCost = async (): Promise<ReadonlyArray<Figure>> => {
  const root = mkdtempSync(join(tmpdir(), "mneme-bench-"))
  writeFullMemory(root)
  const runtime = ManagedRuntime.make(
    Memory.layer({ root, settings: { extraPassesMax: 0 } }).pipe(
      Layer.provideMerge(Layer.mergeAll(Testing.transcriptMemory, instant, NodeServices.layer, NodePlatform.layer)),
      Layer.provideMerge(quiet)
    )
  )
  let turn = 0
  const pass = Effect.gen(function* () {
    const host = yield* Testing.TranscriptMemory
    turn++
    yield* host.append("c1", { who: "user", text: userLine(turn) }, { who: "agent", text: "Noted. ".repeat(80) })
    const outcome = yield* (yield* MemoryReview.MemoryReview).reviewNow("c1")
    if (outcome.changes.edited.length !== 8) {
      const reason = ReviewOutcome.reasonOf(outcome)
      return yield* Effect.die(new Error(`a pass applied ${outcome.changes.edited.length} changes: ${reason}`))
    }
  })
  try {
    await runtime.runPromise(
      Effect.gen(function* () {
        const host = yield* Testing.TranscriptMemory
        yield* host.addAgent({ id: "a1", name: "Ada", role: "assistant", mayWriteTeam: true })
        yield* host.bind("c1", "a1")
      })
    )
    // A host reviews for hours: the figure is a pass once the code is compiled, after a second of passes.
    const timing = await time(() => runtime.runPromise(pass), { minMs: 2_000, minRuns: 10, warmMs: 1_000 })
    const load = Effect.flatMap(MemoryStore.MemoryStore, (store) =>
      Effect.all([store.load({ kind: "agent", agentId: "a1" }), store.load({ kind: "team" })])
    )
    const loading = await time(() => runtime.runPromise(load), { minMs: 1_000, minRuns: 5 })
    // The pass's writing alone: its 8 edits (4 own and 2 team MEMORY.md entries, 2 own topic entries, their last "."
    // and "!" swapped, back and forth) with the review's record, as one batch of the store.
    const [own, team] = await runtime.runPromise(load)
    const entries = (view: MemoryStore.ScopeView, topic: boolean, count: number) =>
      view.files
        .filter((file) => (file.topic !== undefined) === topic)
        .flatMap((file) => file.parsed.entries.map((entry) => ({ scope: view.scope, topic: file.topic, entry })))
        .slice(0, count)
    const edited = [...entries(own, false, 4), ...entries(team, false, 2), ...entries(own, true, 2)]
    const swapped = (text: string) => text.slice(0, -1) + (text.endsWith(".") ? "!" : ".")
    let round = 0
    const batch = Effect.gen(function* () {
      const store = yield* MemoryStore.MemoryStore
      round++
      const state = yield* ReviewState.ReviewState
      const apply = store.apply(
        edited.map(({ scope, topic, entry }) => ({
          op: "replace" as const,
          scope,
          ...(topic === undefined ? {} : { topic }),
          match: round % 2 === 1 ? entry.text : swapped(entry.text),
          exact: true,
          text: round % 2 === 1 ? swapped(entry.text) : entry.text,
          meta: entry.meta,
          actor: "review",
          auto: true
        }))
      )
      // The batch and the review's record, in one commit.
      const results = yield* store.transaction(
        Effect.tap(apply, () => state.recordReview("bench", round, "a1", { at: round, ok: true, reason: null }))
      )
      if (results.length !== 8 || results.some((result) => result._tag !== "Success")) {
        return yield* Effect.die(new Error("a batch of the bench did not apply its 8 changes"))
      }
    })
    const writing = await time(() => runtime.runPromise(batch), { minMs: 1_000, minRuns: 5 })
    return [
      {
        suite: "review",
        name: "one pass, full memory, 8 changes applied with the journal",
        value: timing.medianMs,
        unit: "ms",
        note: `instant model; ${timing.runs} passes after 1 s of warm-up; 2 × 40 topics of 16,000 characters; goal ≤ 10 ms${timing.medianMs <= 10 ? "" : ", NOT MET"}`
      },
      {
        suite: "review",
        name: "of which: loading both scopes of the full memory",
        value: loading.medianMs,
        unit: "ms",
        note: "MemoryStore.load, once per pass"
      },
      {
        suite: "review",
        name: "of which: writing 8 changes and the review's record",
        value: writing.medianMs,
        unit: "ms",
        note: "MemoryStore.apply with the record: one hold of the writer, one commit"
      }
    ]
  } finally {
    await runtime.dispose()
    rmSync(root, { recursive: true, force: true })
  }
}

/** Model calls made over 100 turn ends, the user writing a line before the first (or before every) turn end. */
const callsPer100 = async (
  name: string,
  options: { readonly answer: string; readonly userLines: "first" | "every" | "none" }
): Promise<Figure> => {
  const runtime = ManagedRuntime.make(
    Testing.layer({ otherwise: options.answer, settings: { reviewDelay: Duration.zero } }).pipe(
      Layer.provideMerge(NodeServices.layer),
      Layer.provideMerge(quiet)
    )
  )
  try {
    const calls = await runtime.runPromise(
      Effect.gen(function* () {
        const host = yield* Testing.TranscriptMemory
        const review = yield* MemoryReview.MemoryReview
        yield* host.addAgent({ id: "a1" })
        yield* host.bind("c1", "a1")
        for (let i = 0; i < 100; i++) {
          const user = options.userLines === "every" || (options.userLines === "first" && i === 0)
          yield* host.append("c1", { who: user ? "user" : "agent", text: `line ${i}` })
          yield* review.turnEnded("c1")
          yield* review.awaitIdle
        }
        return (yield* (yield* Testing.ScriptedModel).requests).length
      })
    )
    return { suite: "review", name: `model calls per 100 turn ends: ${name}`, value: calls, unit: "calls" }
  } finally {
    await runtime.dispose()
  }
}

export const suite: Suite = async () => [
  ...(await passCost()),
  await callsPer100("a model that always fails, one user line", { answer: "no", userLines: "first" }),
  await callsPer100("a model that always fails, a user line each turn", { answer: "no", userLines: "every" }),
  await callsPer100("turns without user lines", { answer: `{"changes":[]}`, userLines: "none" }),
  await callsPer100("a healthy model, a user line each turn", { answer: `{"changes":[]}`, userLines: "every" }),
  ...(await PastSize.figures())
]
