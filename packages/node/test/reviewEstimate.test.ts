import { assert, describe, it } from "@effect/vitest"
import { Lines, Text } from "@mneme/core"
import { Effect, Stream } from "effect"
import * as fc from "fast-check"
import * as FileTranscript from "../src/FileTranscript.ts"
import { type Estimate, estimate } from "../src/internal/cli/reviewCount.ts"
import * as TranscriptIndex from "../src/internal/transcriptIndex.ts"

type Settings = Lines.CutSettings & { readonly newLinesBudget: number }

/**
 * The estimate made over the lines themselves, as `mneme review` made it when it held them: what the estimate over an
 * index of the same lines must give.
 */
const overLines = (lines: ReadonlyArray<Lines.Line>, cursor: number, settings: Settings): Estimate => {
  const calls: Array<number> = []
  let characters = 0
  const lastUser = lines.findLastIndex(Lines.isUserWords)
  let start = lines.findIndex((line) => line.seq > cursor)
  while (start !== -1 && start < lines.length) {
    if (start > lastUser) {
      for (const line of lines.slice(start)) characters += Text.length(Lines.cut(line, settings))
      break
    }
    let used = 0
    let end = start
    let user = false
    while (end < lines.length) {
      const line = lines[end]!
      const size = Text.length(Lines.cut(line, settings))
      if (end > start && used + size > settings.newLinesBudget) break
      used += size
      user ||= Lines.isUserWords(line)
      end++
    }
    characters += used
    if (user) calls.push(lines[end - 1]!.seq)
    start = end
  }
  return { calls, characters }
}

/** Lines of any length (some with a secret, which a cut masks), by any speaker, of any kind, seqs with gaps. */
const transcript = fc
  .array(
    fc.record({
      who: fc.constantFrom("user", "agent", "other"),
      text: fc.oneof(
        fc.string({ unit: "grapheme", maxLength: 50 }),
        fc.constantFrom("the deploy password is hunter2hunter2", "🙂 東京 ".repeat(9))
      ),
      kind: fc.option(fc.constantFrom("tool-call", "tool-result", "memory"), { nil: undefined }),
      step: fc.integer({ min: 1, max: 3 })
    }),
    { maxLength: 40 }
  )
  .map((rows) => {
    let seq = 0
    return rows.map(({ who, text, kind, step }): Lines.Line => {
      seq += step
      return {
        seq,
        who: who as Lines.Line["who"],
        ...(who === "other" ? { name: "Bo" } : {}),
        text,
        ...(kind === undefined ? {} : { kind: kind as Lines.Kind })
      }
    })
  })

const settings = fc.record({
  userLineMax: fc.integer({ min: 1, max: 60 }),
  otherLineMax: fc.integer({ min: 1, max: 60 }),
  newLinesBudget: fc.integer({ min: 1, max: 150 })
})

describe("estimate", () => {
  it.effect(
    "gives the calls and characters the lines themselves give, from any cursor, indexed in memory or from bytes",
    () =>
      Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(transcript, settings, fc.integer({ min: -2, max: 90 }), async (lines, split, cursor) => {
            const bytes = new TextEncoder().encode(lines.map((line) => JSON.stringify(line) + "\n").join(""))
            const indexed = await Effect.runPromise(FileTranscript.index("chat.jsonl", Stream.make(bytes), split))
            const expected = overLines(lines, cursor, split)
            assert.deepStrictEqual(estimate(TranscriptIndex.ofLines(lines, split), cursor, split), expected)
            assert.deepStrictEqual(estimate(indexed, cursor, split), expected)
          }),
          { numRuns: 1_000 }
        )
      )
  )

  it("counts a call for each budget's worth of lines that holds a user line, and the characters of all", () => {
    const line = (seq: number, who: "user" | "agent", text: string): Lines.Line => ({ seq, who, text })
    const lines = [line(1, "user", "a".repeat(10)), line(2, "agent", "b".repeat(10)), line(3, "user", "c".repeat(10))]
    lines.push(line(4, "agent", "d".repeat(10)))
    const split = { userLineMax: 100, otherLineMax: 100, newLinesBudget: 20 }
    const index = TranscriptIndex.ofLines(lines, split)
    assert.deepStrictEqual(estimate(index, 0, split), { calls: [2, 4], characters: 40 })
    assert.deepStrictEqual(estimate(index, 2, split), { calls: [4], characters: 20 })
    assert.deepStrictEqual(estimate(index, 3, split), { calls: [], characters: 10 })
    assert.deepStrictEqual(estimate(index, 4, split), { calls: [], characters: 0 })
  })
})
