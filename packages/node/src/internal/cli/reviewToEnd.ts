/**
 * `mneme review`'s orchestration: each target (the conversation, or each member of a group) reviewed until done with
 * `MemoryReview.untilDone`, within `--max-calls` counted before the first call and again between reviews, and what
 * each left in memory; the review model that shows each call's prompt (`--show-prompt`).
 */
import { type MemoryConfig, MemoryScope, Secret, type StorageError, Text } from "@mneme/core"
import { MemoryReview, MemoryStore, ReviewModel, ReviewOutcome, ReviewState } from "@mneme/review"
import { Console, Effect, Layer, Ref } from "effect"
import * as OutcomeText from "../outcomeText.ts"
import * as Txt from "../text.ts"
import type * as TranscriptIndex from "../transcriptIndex.ts"
import { planOf, TooManyCalls } from "./reviewCount.ts"

const at = OutcomeText.at

/**
 * The review model with the system and request text of each call printed to stderr before it is made, for a person
 * tuning a model. The review masks secrets in what it sends; what is printed is masked again, so nothing unmasked is
 * shown even where a secret spans lines.
 */
export const showingPrompts = <E, R>(
  model: Layer.Layer<ReviewModel.ReviewModel, E, R>
): Layer.Layer<ReviewModel.ReviewModel, E, R> =>
  Layer.effect(
    ReviewModel.ReviewModel,
    Effect.gen(function* () {
      const inner = yield* ReviewModel.ReviewModel
      const calls = yield* Ref.make(0)
      const part = (call: number, name: string, text: string) => {
        const shown = Secret.redact(text)
        return [
          `--- model call ${call}: ${name} (${Txt.plural(Text.length(shown), "character", "characters")}) ---`,
          shown
        ]
      }
      return ReviewModel.ReviewModel.of({
        generate: (input) =>
          Ref.updateAndGet(calls, (n) => n + 1).pipe(
            Effect.flatMap((call) =>
              Console.error(
                [
                  ...part(call, "system text", input.system),
                  ...part(call, "request text", input.request),
                  `--- end of model call ${call} ---`
                ].join("\n")
              )
            ),
            Effect.andThen(inner.generate(input))
          )
      })
    })
  ).pipe(Layer.provide(model))

/** The settings a run is counted by. */
type Counted = Pick<MemoryConfig.Settings, "newLinesBudget" | "memoryMax" | "topicMax">

/**
 * Reviews a conversation (or one member's side of a group) until its cursor reaches the last line
 * (`MemoryReview.untilDone`: the 16,000-character budget splits a long transcript), stopping at the first review that
 * fails. Before the first, the model calls it needs are estimated: past `maxCalls` (0: no limit) nothing is asked, nor
 * any cursor set. Between reviews, the calls made and those still needed are checked again (extra passes are not
 * known in advance).
 */
const reviewToEnd = Effect.fnUntraced(function* (
  target: ReviewOutcome.Target,
  lines: TranscriptIndex.Index,
  guard: { readonly maxCalls: number; readonly settings: Pick<MemoryConfig.Settings, "newLinesBudget"> },
  onPass: (pass: number, outcome: MemoryReview.Outcome) => Effect.Effect<void, StorageError>
) {
  const review = yield* MemoryReview.MemoryReview
  const cursors = yield* ReviewState.ReviewState
  const first = lines.count === 0 ? undefined : lines.seqAt(0)
  const { saved, start, lastLine, planned } = yield* planOf(target, lines, guard.settings)
  const limited = guard.maxCalls > 0
  if (limited && planned.calls.length > guard.maxCalls) {
    return yield* new TooManyCalls({
      calls: planned.calls.length,
      maxCalls: guard.maxCalls,
      characters: planned.characters,
      budget: guard.settings.newLinesBudget
    })
  }
  if (saved === undefined && first !== undefined) yield* cursors.setCursor(ReviewOutcome.targetKey(target), start)
  const passes = yield* Ref.make(0)
  const oneReview = review.reviewNow(target.conversationId, target.member).pipe(
    Effect.tap((outcome) =>
      Effect.flatMap(
        Ref.updateAndGet(passes, (n) => n + 1),
        (pass) => onPass(pass, outcome)
      )
    )
  )
  return yield* MemoryReview.untilDone(oneReview, {
    from: start,
    between: (outcomes) => {
      const made = outcomes.reduce((n, outcome) => n + outcome.modelCalls, 0)
      const cursor = outcomes.at(-1)?.cursor ?? start
      const left = planned.calls.filter((end) => end > cursor).length
      return Effect.succeed(
        limited && made + left > guard.maxCalls
          ? `stopped at ${at(cursor)} of ${at(lastLine)} after ` +
              `${Txt.plural(made, "model call", "model calls")}: answers at their cap took extra passes, and the rest ` +
              `would take about ${Txt.count(left)} more, past --max-calls ${Txt.count(guard.maxCalls)}. Run the review ` +
              `again to go on from ${at(cursor)}, or pass a higher --max-calls (0 for no limit)`
          : undefined
      )
    }
  })
})

/** What a run left for one target: its agent, its reviews, both MEMORY.md sizes, and the failures at its cursor. */
export interface TargetRun {
  readonly agent: string
  readonly run: MemoryReview.Done
  readonly sizes: MemoryStore.View["sizes"]
  readonly failures: number
}

/**
 * Reviews every target until done, in turn: every target's calls are counted before the first is made, and past
 * `maxCalls` (0: no limit) nothing is asked; a target whose calls the ones before used up is not reviewed.
 */
export const reviewAll = Effect.fnUntraced(function* (
  targets: ReadonlyArray<ReviewOutcome.Target>,
  lines: TranscriptIndex.Index,
  options: { readonly maxCalls: number; readonly settings: Counted; readonly agent: string },
  onPass: (
    target: ReviewOutcome.Target
  ) => (pass: number, outcome: MemoryReview.Outcome) => Effect.Effect<void, StorageError>
) {
  const { maxCalls, settings } = options
  const plans = yield* Effect.forEach(targets, (target) => planOf(target, lines, settings))
  const needed = plans.reduce((n, plan) => n + plan.planned.calls.length, 0)
  if (maxCalls > 0 && needed > maxCalls) {
    return yield* new TooManyCalls({
      calls: needed,
      maxCalls,
      characters: plans.reduce((n, plan) => n + plan.planned.characters, 0),
      budget: settings.newLinesBudget
    })
  }
  const results: Array<TargetRun> = []
  let made = 0
  for (const target of targets) {
    const left = maxCalls - made
    // Extra passes of the members before may have used the calls this one needed: it is then not reviewed.
    const run: MemoryReview.Done =
      maxCalls > 0 && left <= 0
        ? {
            outcomes: [],
            stopped: `not reviewed: the members before made the ${Txt.count(made)} model calls --max-calls allows`
          }
        : yield* reviewToEnd(target, lines, { maxCalls: maxCalls === 0 ? 0 : left, settings }, onPass(target)).pipe(
            Effect.catchTag("TooManyCalls", (error) =>
              Effect.succeed({ outcomes: [], stopped: error.message } satisfies MemoryReview.Done)
            )
          )
    made += run.outcomes.reduce((n, outcome) => n + outcome.modelCalls, 0)
    const agent = target.member ?? options.agent
    // Both MEMORY.md sizes, read as `mneme show` reads them: of a file past its size, its first entries only.
    const store = yield* MemoryStore.MemoryStore
    const memorySize = (scope: MemoryScope.MemoryScope) =>
      Effect.map(store.load(scope, MemoryStore.withinSizes(settings)), (read) => read.files[0]?.size ?? 0)
    const sizes = { own: yield* memorySize(MemoryScope.own(agent)), team: yield* memorySize(MemoryScope.team) }
    const record = yield* (yield* ReviewState.ReviewState).failure(ReviewOutcome.targetKey(target))
    results.push({ agent, run, sizes, failures: record?.times.length ?? 0 })
  }
  return results
})
