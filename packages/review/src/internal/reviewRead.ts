/**
 * Reading a conversation for a review (SPEC 4.2): newest first, and only as far as needed to know the new lines and
 * the context lines before them.
 */
import type { Lines, MemoryConfig, TranscriptError } from "@mneme/core"
import { Effect, Stream } from "effect"

/** The lines a review reads, oldest first. */
export interface Read {
  /** Lines before the new ones, already reviewed. */
  readonly context: ReadonlyArray<Lines.Line>
  /** Lines after the cursor; for a first review, the last lines back to a user line. */
  readonly fresh: ReadonlyArray<Lines.Line>
}

/**
 * Pulls lines from `newestFirst` until the new lines are known (down to the cursor; or, with no cursor,
 * `firstReviewLines` lines extended back to a user line) and `contextLines` lines before them are read.
 */
export const read = (
  newestFirst: Stream.Stream<Lines.Line, TranscriptError>,
  cursor: number | undefined,
  settings: Pick<MemoryConfig.Settings, "firstReviewLines" | "contextLines">
): Effect.Effect<Read, TranscriptError> =>
  Effect.suspend(() => {
    const seen: Array<Lines.Line> = []
    let fresh: number | undefined
    let newestUser: number | undefined
    const more = (line: Lines.Line): boolean => {
      seen.push(line)
      if (fresh === undefined) {
        if (cursor !== undefined) {
          if (line.seq <= cursor) fresh = seen.length - 1
        } else {
          if (newestUser === undefined && line.who === "user") newestUser = seen.length - 1
          if (newestUser !== undefined && seen.length >= settings.firstReviewLines) {
            fresh = Math.max(settings.firstReviewLines, newestUser + 1)
          }
        }
      }
      return fresh === undefined || seen.length - fresh < settings.contextLines
    }
    return Stream.runForEachWhile(newestFirst, (line) => Effect.sync(() => more(line))).pipe(
      Effect.map(() => {
        const count = fresh ?? seen.length
        return {
          context: seen.slice(count, count + settings.contextLines).reverse(),
          fresh: seen.slice(0, count).reverse()
        }
      })
    )
  })

/** The newest user line among `lines`, if any. */
export const newestUserSeq = (lines: ReadonlyArray<Lines.Line>): number | undefined =>
  lines.findLast((line) => line.who === "user")?.seq
