/**
 * The memory review (SPEC 4): after a conversation's turn ends, a model is shown what is new in it together with what
 * memory holds, and its answer is applied. This module schedules the reviews — a timer per conversation after each
 * turn end, cancelled by a turn that starts within the delay; one review at a time across the host, through a queue
 * with one worker — bounds the ones that keep failing, and shows the host how the latest one went. What one review
 * gives back is `ReviewOutcome.Outcome`.
 */
import { Backoff, MemoryConfig, type StorageError } from "@mneme/core"
import { Context, Effect, FiberMap, Layer, Queue, Semaphore, Stream, SubscriptionRef } from "effect"
import { Agents } from "./Agents.ts"
import { makeReview } from "./internal/reviewRun.ts"
import type { LastReview } from "./MemoryRoot.ts"
import { MemoryStore, type View as StoreView } from "./MemoryStore.ts"
import { ReviewModel } from "./ReviewModel.ts"
import * as ReviewOutcome from "./ReviewOutcome.ts"
import { ReviewState } from "./ReviewState.ts"
import { Transcript } from "./Transcript.ts"

/** The stable texts of the review's warnings (logged with `Effect.logWarning`; details in the annotations). */
export const warnings = ReviewOutcome.warnings

/** The review's metrics: reviews by outcome, model calls, failures, changes applied and left out, sizes, tokens. */
export const metrics = ReviewOutcome.metrics

/** The key under which the review state keeps a conversation's cursor and failure record. */
export const cursorKey = ReviewOutcome.cursorKey

/** How one review went. */
export type Outcome = ReviewOutcome.Outcome

/** What the host can see of an agent's memory: its entries, sizes and limits, and its last review. */
export interface View extends StoreView {
  readonly lastReview: LastReview | null
}

/** The memory review service. */
export class MemoryReview extends Context.Service<
  MemoryReview,
  {
    /** A turn of the conversation starts: a review waiting for its delay is cancelled. */
    readonly turnStarted: (conversationId: string) => Effect.Effect<void>
    /** A turn of the conversation ended: its review is queued once the delay has passed. */
    readonly turnEnded: (conversationId: string) => Effect.Effect<void>
    /** Reviews the conversation now, whatever the failure record says, and gives the outcome. */
    readonly reviewNow: (conversationId: string) => Effect.Effect<Outcome>
    /** Reviews waiting for their delay, queued, or running. */
    readonly pending: Effect.Effect<number>
    /** Waits until no review is waiting, queued or running. */
    readonly awaitIdle: Effect.Effect<void>
    /** How the agent's latest review went, `null` before any. */
    readonly lastReview: (agentId: string) => Effect.Effect<LastReview | null, StorageError>
    /** Every entry of the agent, the sizes, the limits and the last review. */
    readonly view: (agentId: string) => Effect.Effect<View, StorageError>
  }
>()("@mneme/review/MemoryReview") {}

interface Pending {
  readonly waiting: ReadonlySet<string>
  readonly queued: ReadonlySet<string>
  readonly running: number
}

const idle: Pending = { waiting: new Set(), queued: new Set(), running: 0 }

const count = (pending: Pending) => pending.waiting.size + pending.queued.size + pending.running

const adding = (set: ReadonlySet<string>, id: string) => new Set(set).add(id)

const removing = (set: ReadonlySet<string>, id: string) => new Set([...set].filter((other) => other !== id))

/** Options of the memory review: another failure policy than the default of `MemoryConfig.failuresMax`. */
export interface Options {
  readonly policy?: Backoff.Policy | undefined
}

/** The memory review, reading `MemoryConfig` once, now. */
export const make = Effect.fnUntraced(function* (options: Options = {}) {
  const settings = yield* MemoryConfig.MemoryConfig
  const store = yield* MemoryStore
  const state = yield* ReviewState
  const tracker = yield* Backoff.make(options.policy ?? Backoff.policy(settings.failuresMax), {
    load: state.failure,
    save: state.setFailure
  })
  const review = makeReview({
    settings,
    store,
    state,
    transcript: yield* Transcript,
    agents: yield* Agents,
    model: yield* ReviewModel,
    tracker
  })
  const oneAtATime = yield* Semaphore.make(1)
  const pending = yield* SubscriptionRef.make<Pending>(idle)
  // Closing the service interrupts the worker, then the waiting timers (the FiberMap's), then nothing waits any more.
  yield* Effect.addFinalizer(() =>
    SubscriptionRef.update(pending, (s) => ({ ...s, waiting: new Set<string>(), queued: new Set<string>() }))
  )
  const timers = yield* FiberMap.make<string>()
  const queue = yield* Queue.unbounded<string>()

  /** Runs a review one at a time, counted as running from `start` (which marks it so) until it ends. */
  const running = <A>(start: (s: Pending) => Pending, effect: Effect.Effect<A>) =>
    SubscriptionRef.update(pending, start).pipe(
      Effect.andThen(oneAtATime.withPermit(effect)),
      Effect.ensuring(SubscriptionRef.update(pending, (s) => ({ ...s, running: s.running - 1 })))
    )

  /** Moves a conversation from waiting to the queue, unless it is queued already. */
  const enqueue = (id: string) =>
    SubscriptionRef.modify(pending, (s): [boolean, Pending] => [
      !s.queued.has(id),
      { ...s, waiting: removing(s.waiting, id), queued: adding(s.queued, id) }
    ]).pipe(Effect.flatMap((fresh) => (fresh ? Queue.offer(queue, id) : Effect.void)))

  const worker = Queue.take(queue).pipe(
    Effect.flatMap((id) =>
      running(
        (s) => ({ ...s, queued: removing(s.queued, id), running: s.running + 1 }),
        review(id, false).pipe(
          Effect.flatMap((outcome) => (outcome.moreFollow ? enqueue(id) : Effect.void)),
          Effect.catchCause((cause) => Effect.logError("memory review crashed", cause))
        )
      )
    ),
    Effect.forever
  )
  yield* Effect.forkScoped(worker)

  const turnStarted = (id: string) =>
    SubscriptionRef.update(pending, (s) => ({ ...s, waiting: removing(s.waiting, id) })).pipe(
      Effect.andThen(FiberMap.remove(timers, id))
    )

  const turnEnded = (id: string) =>
    settings.reviewEnabled
      ? SubscriptionRef.update(pending, (s) => ({ ...s, waiting: adding(s.waiting, id) })).pipe(
          Effect.andThen(
            FiberMap.run(
              timers,
              id,
              Effect.andThen(Effect.sleep(settings.reviewDelay), Effect.uninterruptible(enqueue(id)))
            )
          ),
          Effect.asVoid
        )
      : Effect.void

  const lastReview = (agentId: string) => state.lastReview(agentId)

  return MemoryReview.of({
    turnStarted,
    turnEnded,
    reviewNow: (id) => running((s) => ({ ...s, running: s.running + 1 }), review(id, true)),
    pending: Effect.map(SubscriptionRef.get(pending), count),
    awaitIdle: SubscriptionRef.changes(pending).pipe(
      Stream.takeUntil((s) => count(s) === 0),
      Stream.runDrain
    ),
    lastReview,
    view: (agentId) =>
      Effect.all([store.view(agentId), lastReview(agentId)]).pipe(
        Effect.map(([view, last]) => ({ ...view, lastReview: last }))
      )
  })
})

/** The memory review with the failure policy given. Closing its scope cancels the waiting timers. */
export const layerWith = (
  options: Options
): Layer.Layer<MemoryReview, never, MemoryStore | ReviewState | Transcript | Agents | ReviewModel> =>
  Layer.effect(MemoryReview, make(options))

/** The memory review with the default failure policy. */
export const layer: Layer.Layer<MemoryReview, never, MemoryStore | ReviewState | Transcript | Agents | ReviewModel> =
  layerWith({})
