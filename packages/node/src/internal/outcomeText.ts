/**
 * A review's outcome in words, one rendering for the CLI's `review` and `watch` and the panel: where the review got
 * to in the transcript, what it changed, or why it did not succeed. Each says it in its own sentence around these
 * phrases, by the outcome's `$match`.
 */
import { ReviewOutcome } from "@mneme/review"
import * as Txt from "./text.ts"

/** A line of the transcript as people read it: `#12`, or "the start" before the first. */
export const at = (seq: number | undefined | null): string =>
  seq === undefined || seq === null ? "the start" : `#${seq}`

/** Where an entry lives: `own`, or `team · topic`. */
export const where = (scope: string, topic: string | undefined): string =>
  topic === undefined ? scope : `${scope} · ${topic}`

/**
 * What a review changed, counted: `2 added, 0 edited, 1 removed, 0 left out`; in `full`, the secrets dropped and the
 * changes skipped as well, when there are any.
 */
export const counts = (changes: ReviewOutcome.Changes, full = false): string =>
  `${Txt.count(changes.added.length)} added, ${Txt.count(changes.edited.length)} edited, ` +
  `${Txt.count(changes.removed.length)} removed, ${Txt.count(changes.leftOut.length)} left out` +
  (!full || changes.secretsDropped === 0
    ? ""
    : `, ${Txt.plural(changes.secretsDropped, "secret", "secrets")} dropped`) +
  (!full || changes.skipped.length === 0 ? "" : `, ${Txt.count(changes.skipped.length)} skipped`)

/**
 * How a caller says each kind of outcome around its phrase: `reviewed` gets `to #12 of #40 (1 model call): 2 added, …`,
 * `nothingNew` gets `after #12 of #40`, `noUserLine` gets `up to #12 of #40`, and `notDone` (stopped, agent gone, failed)
 * gets `at #12 of #40: why`.
 */
export interface Sentences<A> {
  readonly reviewed: (phrase: string) => A
  readonly nothingNew: (phrase: string) => A
  readonly noUserLine: (phrase: string) => A
  readonly notDone: (phrase: string) => A
}

/**
 * `outcome` in the caller's `sentences`: the cursor against `last` (the transcript's last line, when known), the
 * changes counted (`full`: with the secrets dropped and changes skipped), the reason masked by `mask` when given.
 */
export const render = <A>(
  outcome: ReviewOutcome.Outcome,
  sentences: Sentences<A>,
  options: {
    readonly last?: number | null | undefined
    readonly full?: boolean
    readonly mask?: (reason: string) => string
  } = {}
): A => {
  const of = options.last === undefined || options.last === null ? "" : ` of #${options.last}`
  const place = `${at(outcome.cursor)}${of}`
  const notDone = (reason: string | null): Said => ({
    sentence: "notDone",
    phrase: `at ${place}: ${reason === null ? outcome._tag : (options.mask ?? String)(reason)}`
  })
  const said = ReviewOutcome.Outcome.$match(outcome, {
    Reviewed: (reviewed): Said => ({
      sentence: "reviewed",
      phrase:
        `to ${place} (${Txt.plural(reviewed.modelCalls, "model call", "model calls")}): ` +
        counts(reviewed.changes, options.full)
    }),
    NothingNew: (): Said => ({ sentence: "nothingNew", phrase: `after ${place}` }),
    NoUserLine: (): Said => ({ sentence: "noUserLine", phrase: `up to ${place}` }),
    Stopped: (stopped) => notDone(ReviewOutcome.reasonOf(stopped)),
    AgentGone: (gone) => notDone(ReviewOutcome.reasonOf(gone)),
    Failed: (failed) => notDone(ReviewOutcome.reasonOf(failed))
  })
  return sentences[said.sentence](said.phrase)
}

/** Which of the caller's sentences an outcome takes, and its phrase. */
interface Said {
  readonly sentence: keyof Sentences<unknown>
  readonly phrase: string
}
