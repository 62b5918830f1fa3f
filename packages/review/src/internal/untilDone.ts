/**
 * Review until done (`MemoryReview.untilDone`): one review after another of the same target while each goes on, the
 * loop the CLI and the cluster run, and the rule the queued reviews of a host and of `mneme watch` go on by.
 */
import { Effect } from "effect"
import * as ReviewOutcome from "../ReviewOutcome.ts"

type Outcome = ReviewOutcome.Outcome

/** How a run of reviews until done ended: every review's outcome in order, and why it stopped early, if it did. */
export interface Done {
  readonly outcomes: ReadonlyArray<Outcome>
  /** Why `between` stopped the run before the lines were done (`undefined`: it ran until done). */
  readonly stopped: string | undefined
}

/** What `untilDone` is told: the cursor before the first review, and a check between reviews. */
export interface Options<E, R> {
  /** The cursor before the first review, when known: a first review that leaves it there is the last. */
  readonly from?: number | undefined
  /**
   * Asked before each review after the first, with the outcomes so far: why to stop there (a cost guard between
   * reviews, as extra passes are not known in advance), or `undefined` to go on.
   */
  readonly between?: (outcomes: ReadonlyArray<Outcome>) => Effect.Effect<string | undefined, E, R>
}

/**
 * Review until done, the one loop every host runs: `review` again while each review goes on
 * (`ReviewOutcome.goesOn`: newer lines wait, and it moved the cursor), stopping at the first that fails, is stopped,
 * or finds nothing more; `between` may stop the run between two reviews, saying why.
 */
export const untilDone = <E, R, E2 = never, R2 = never>(
  review: Effect.Effect<Outcome, E, R>,
  options: Options<E2, R2> = {}
): Effect.Effect<Done, E | E2, R | R2> =>
  Effect.gen(function* () {
    const outcomes: Array<Outcome> = []
    let from = options.from
    while (true) {
      const outcome = yield* review
      outcomes.push(outcome)
      if (!ReviewOutcome.goesOn(outcome, from)) return { outcomes, stopped: undefined }
      from = outcome.cursor
      const stopped = options.between === undefined ? undefined : yield* options.between(outcomes)
      if (stopped !== undefined) return { outcomes, stopped }
    }
  })
