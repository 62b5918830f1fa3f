/**
 * Reading a conversation for a review (docs/spec.md 4.2): newest first, and only as far as needed to know the new lines and
 * the context lines before them; then the plan of the review those lines call for. Where the host's transcript seeks
 * from a cursor (`oldestAfter` and `newestUpTo`), a review with a cursor reads one review's worth of new
 * lines from it, the newest lines back to the newest user line, and the context before it: never every line back to
 * the cursor, so a long backlog is reviewed in time proportional to it.
 */
import { type Backoff, Lines, type MemoryConfig, Text, type TranscriptError } from "@mneme/core"
import { Effect, Stream } from "effect"
import type { Transcript } from "../Transcript.ts"

/** The lines a review reads, oldest first. */
export interface Read {
  /** Lines before the new ones, already reviewed. */
  readonly context: ReadonlyArray<Lines.Line>
  /**
   * Lines after the cursor (for a first review, the last lines back to a user line): all of them, or at least as many
   * as one review reads and one more.
   */
  readonly fresh: ReadonlyArray<Lines.Line>
  /** The newest new line's `seq` (`undefined` when there is none). */
  readonly newest: number | undefined
  /** The newest user line's `seq` among all the new lines (`undefined` when none is the user's own words). */
  readonly newestUser: number | undefined
}

/** The settings reading and planning take. */
export type Settings = Lines.CutSettings &
  Pick<MemoryConfig.Settings, "firstReviewLines" | "contextLines" | "newLinesBudget">

/** How far a newest-first read has got: lines pulled, and where the new lines end once that is known. */
interface Scan {
  readonly pulled: number
  /** How many of the pulled lines are new, once known. */
  readonly fresh: number | undefined
  /** The index of the newest user line pulled (first reviews only). */
  readonly newestUser: number | undefined
}

const start: Scan = { pulled: 0, fresh: undefined, newestUser: undefined }

/** The scan after one more line: with a cursor the new lines end at it; without, `firstReviewLines` back to a user line. */
const step = (
  scan: Scan,
  line: Lines.Line,
  cursor: number | undefined,
  settings: Pick<MemoryConfig.Settings, "firstReviewLines">
): Scan => {
  const pulled = scan.pulled + 1
  if (scan.fresh !== undefined) return { ...scan, pulled }
  if (cursor !== undefined) return { ...scan, pulled, fresh: line.seq <= cursor ? pulled - 1 : undefined }
  const newestUser = scan.newestUser ?? (Lines.isUserWords(line) ? pulled - 1 : undefined)
  const fresh =
    newestUser !== undefined && pulled >= settings.firstReviewLines
      ? Math.max(settings.firstReviewLines, newestUser + 1)
      : undefined
  return { pulled, fresh, newestUser }
}

/**
 * Pulls lines from `newestFirst` until the new lines are known (down to the cursor; or, with no cursor,
 * `firstReviewLines` lines extended back to a user line) and `contextLines` lines before them are read.
 */
const readBack = (
  newestFirst: Stream.Stream<Lines.Line, TranscriptError>,
  cursor: number | undefined,
  settings: Pick<MemoryConfig.Settings, "firstReviewLines" | "contextLines">
): Effect.Effect<Read, TranscriptError> =>
  newestFirst.pipe(
    Stream.mapAccum(
      () => start,
      (scan, line) => {
        const next = step(scan, line, cursor, settings)
        return [next, [{ line, scan: next }]] as const
      }
    ),
    Stream.takeUntil(({ scan }) => scan.fresh !== undefined && scan.pulled - scan.fresh >= settings.contextLines),
    Stream.runCollect,
    Effect.map((pulled) => {
      const lines = pulled.map(({ line }) => line)
      const count = pulled.at(-1)?.scan.fresh ?? lines.length
      const fresh = lines.slice(0, count).reverse()
      return {
        context: lines.slice(count, count + settings.contextLines).reverse(),
        fresh,
        newest: fresh.at(-1)?.seq,
        newestUser: newestUserSeq(fresh)
      }
    })
  )

/**
 * The lines after `cursor` from the cursor on: as many as one review reads (`Lines.fit`) and the one after them, if
 * any; the newest new line and the newest user line (read newest first, down to the first user line or the cursor);
 * and `contextLines` lines up to the cursor.
 */
const readOn = (
  transcript: Pick<Transcript["Service"], "newestFirst" | "oldestAfter" | "newestUpTo">,
  conversationId: string,
  cursor: number,
  settings: Settings
): Effect.Effect<Read, TranscriptError> =>
  Effect.all(
    {
      fresh: transcript.oldestAfter(conversationId, cursor).pipe(
        Stream.mapAccum(
          () => ({ used: 0, count: 0 }),
          (taken, line) => {
            const size = Text.length(Lines.cut(line, settings))
            const over = taken.count > 0 && taken.used + size > settings.newLinesBudget
            return [{ used: taken.used + size, count: taken.count + 1 }, [{ line, over }]] as const
          }
        ),
        Stream.takeUntil(({ over }) => over),
        Stream.map(({ line }) => line),
        Stream.runCollect
      ),
      newest: transcript.newestFirst(conversationId).pipe(
        Stream.takeWhile((line) => line.seq > cursor),
        Stream.takeUntil(Lines.isUserWords),
        Stream.runCollect
      ),
      context: transcript.newestUpTo(conversationId, cursor).pipe(Stream.take(settings.contextLines), Stream.runCollect)
    },
    { concurrency: "unbounded" }
  ).pipe(
    Effect.map(({ fresh, newest, context }) => {
      const oldestRead = newest.at(-1)
      return {
        context: context.toReversed(),
        fresh,
        newest: newest[0]?.seq,
        newestUser: oldestRead !== undefined && Lines.isUserWords(oldestRead) ? oldestRead.seq : undefined
      }
    })
  )

/**
 * Reads what a review at `cursor` needs of a conversation: from the cursor on where the transcript seeks (see the
 * module's comment), else back from the newest line.
 */
export const read = (
  transcript: Transcript["Service"],
  conversationId: string,
  cursor: number | undefined,
  settings: Settings
): Effect.Effect<Read, TranscriptError> =>
  cursor !== undefined && transcript.seeks
    ? readOn(transcript, conversationId, cursor, settings)
    : readBack(transcript.newestFirst(conversationId), cursor, settings)

/** The newest line of the user's own words among `lines`, if any (a tool result given as the user's is not). */
export const newestUserSeq = (lines: ReadonlyArray<Lines.Line>): number | undefined =>
  lines.findLast(Lines.isUserWords)?.seq

/** What the lines read call for: nothing, passing lines without a user line, or asking the model. */
export type ReviewPlan =
  | { readonly _tag: "NothingNew" }
  | { readonly _tag: "NoUserLine"; readonly last: number; readonly moreFollow: boolean }
  | {
      readonly _tag: "Ask"
      readonly context: ReadonlyArray<Lines.Line>
      /** The new lines this review shows the model (within the budget), oldest first: words said, never a tool
       * call, a tool result or quoted memory. */
      readonly lines: ReadonlyArray<Lines.Line>
      readonly moreFollow: boolean
      /** The cursor the review starts from (saved before the model is called when there is none). */
      readonly base: number
      /** The last line read: the cursor once the review succeeds. */
      readonly last: number
      /** The newest user line the review's model sees: the anchor of what it keeps. */
      readonly user: number
      /** Where the failure policy sees the review (the newest user line of all new lines). */
      readonly position: Backoff.Position
    }

/**
 * The plan for the lines read at `cursor` (docs/spec.md 4.2): nothing new; no user line among the new ones (they are passed,
 * at most a budget's worth); or the new lines that fit in one review's budget, oldest first. Tool calls, tool results
 * and quoted memory are never new words (docs/spec.md 7, no feedback loop): they count as no user line, the model is not shown
 * them as new lines, and the cursor passes them with the lines around them.
 */
export const reviewPlan = (
  read: Read,
  cursor: number | undefined,
  settings: Lines.CutSettings & Pick<MemoryConfig.Settings, "newLinesBudget">
): ReviewPlan => {
  const first = read.fresh[0]
  if (first === undefined || read.newest === undefined) return { _tag: "NothingNew" }
  const newestUser = read.newestUser
  // No user line among the new ones: they are passed, all of them.
  if (newestUser === undefined) return { _tag: "NoUserLine", last: read.newest, moreFollow: false }
  const { taken, rest } = Lines.fit(read.fresh, settings)
  const last = taken.at(-1)?.seq ?? first.seq
  const user = newestUserSeq(taken)
  if (user === undefined) return { _tag: "NoUserLine", last, moreFollow: rest.length > 0 }
  const base = cursor ?? first.seq - 1
  return {
    _tag: "Ask",
    context: read.context,
    lines: taken.filter(Lines.isSaid),
    moreFollow: rest.length > 0,
    base,
    last,
    user,
    position: { cursor: base, newestUserSeq: newestUser }
  }
}
