/**
 * The source an entry a review keeps cites (its `source` metadata): the lines its fact comes from, as the answer's
 * `from` numbers them among the lines the request showed, each by the transcript's anchor (`chat #3, chat #5`); where
 * the answer names none the request showed, the newest user line the model saw, as before `from` existed. A number
 * the request did not show is left out, with a warning.
 */
import type { Answer, Lines } from "@mneme/core"
import { Effect } from "effect"
import { warnings } from "../ReviewOutcome.ts"
import { describe } from "./reviewApply.ts"

/** The most lines one entry cites (the first, in the request's order), so a source stays short. */
export const citedMax = 4

/**
 * The numbers of the lines a change cites among the `shown` lines of the request (numbered from 1): those shown,
 * distinct and in order, at most `citedMax`; and those the request did not show.
 */
export const cited = (
  change: Answer.Change,
  shown: number
): { readonly lines: ReadonlyArray<number>; readonly unshown: ReadonlyArray<number> } => {
  if (change.op === "remove" || change.from === undefined) return { lines: [], unshown: [] }
  const distinct = [...new Set(change.from)].sort((a, b) => a - b)
  return {
    lines: distinct.filter((n) => n <= shown).slice(0, citedMax),
    unshown: distinct.filter((n) => n > shown)
  }
}

/**
 * The source each change cites, in order: the anchors (`anchor` of a line's `seq`) of the `shown` lines it comes
 * from, joined by ", ", or `fallback` where it names none of them. A change that names a line the request did not
 * show is warned once (`warnings.unshownLine`).
 */
export const sources = Effect.fnUntraced(function* (
  changes: ReadonlyArray<Answer.Change>,
  shown: ReadonlyArray<Lines.Line>,
  anchor: (seq: number) => Effect.Effect<string>,
  fallback: string
) {
  const anchors = new Map<number, string>()
  const result: Array<string> = []
  for (const change of changes) {
    const { lines, unshown } = cited(change, shown.length)
    if (unshown.length > 0) {
      yield* Effect.logWarning(warnings.unshownLine).pipe(
        Effect.annotateLogs({ change: describe(change), lines: unshown, shown: shown.length, source: fallback })
      )
    }
    const parts: Array<string> = []
    for (const number of lines) {
      const known = anchors.get(number)
      const found = known ?? (yield* anchor(shown[number - 1]!.seq))
      anchors.set(number, found)
      if (!parts.includes(found)) parts.push(found)
    }
    result.push(parts.length === 0 ? fallback : parts.join(", "))
  }
  return result
})
