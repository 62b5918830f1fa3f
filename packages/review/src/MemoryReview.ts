/**
 * The memory review (SPEC 4): after a conversation's turn ends, a model is shown what is new in it together with what
 * memory holds, and its answer is applied. This module schedules the reviews — a timer per conversation after each
 * turn end, cancelled by a turn that starts within the delay; one review at a time across the host, through a queue
 * with one worker — bounds the ones that keep failing, and shows the host how the latest one went.
 */
import { type Answer, Backoff, MemoryConfig, type MemoryWriteError } from "@mneme/core"
import { Context, Effect, FiberMap, Layer, Queue, Semaphore, Stream, SubscriptionRef } from "effect"
import { Agents } from "./Agents.ts"
import { Cursors, type LastReview } from "./Cursors.ts"
import { keyOf, makeRun, metrics as reviewMetrics, warnings as reviewWarnings } from "./internal/reviewRun.ts"
import { MemoryStore, type View as StoreView } from "./MemoryStore.ts"
import { ReviewModel } from "./ReviewModel.ts"
import { Transcript } from "./Transcript.ts"

/** The stable texts of the review's warnings (logged with `Effect.logWarning`; details in the annotations). */
export const warnings = reviewWarnings

/** The review's metrics: model calls, failures, changes applied and left out, prompt and answer sizes, tokens. */
export const metrics = reviewMetrics

/** The key under which the review state (`Cursors`) keeps a conversation's cursor and failure record. */
export const cursorKey: (conversationId: string) => string = keyOf

/** An entry a review added or removed. */
export interface Applied {
  readonly scope: "own" | "team"
  readonly topic: string | undefined
  readonly text: string
}

/** An entry a review edited: `text` is the new text. */
export interface Edited extends Applied {
  readonly before: string
}

/** A change a review skipped, and why. */
export interface Skipped {
  readonly change: Answer.Change
  readonly reason: string
}

/** How one review went. */
export interface Outcome {
  /**
   * `reviewed`: the model's answer applied; `nothing-new`: no line after the cursor; `no-user-line`: the new lines
   * hold no user line, passed without a model call; `stopped`: the failure policy allows no model call for these
   * lines now; `agent-gone`: the agent was deleted; `failed`: see `reason`.
   */
  readonly status: "reviewed" | "nothing-new" | "no-user-line" | "stopped" | "agent-gone" | "failed"
  readonly ok: boolean
  readonly reason: string | null
  /** Answers applied (the first, and any extra passes over the same lines). */
  readonly passes: number
  readonly modelCalls: number
  readonly added: ReadonlyArray<Applied>
  readonly edited: ReadonlyArray<Edited>
  readonly removed: ReadonlyArray<Applied>
  /** Entries memory cannot keep, left out of an answer. */
  readonly leftOut: ReadonlyArray<{ readonly text: string; readonly problem: string }>
  /** Secret entries dropped from answers, silently. */
  readonly secretsDropped: number
  readonly skipped: ReadonlyArray<Skipped>
  /** The conversation's cursor after the review. */
  readonly cursor: number | undefined
  /** Whether newer lines than this review read are waiting (the next review reads them). */
  readonly moreFollow: boolean
}

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
    readonly lastReview: (agentId: string) => Effect.Effect<LastReview | null, MemoryWriteError>
    /** Every entry of the agent, the sizes, the limits and the last review. */
    readonly view: (agentId: string) => Effect.Effect<View, MemoryWriteError>
  }
>()("@mneme/review/MemoryReview") {}

interface Pending {
  readonly waiting: ReadonlySet<string>
  readonly queued: ReadonlySet<string>
  readonly running: number
}

const count = (pending: Pending) => pending.waiting.size + pending.queued.size + pending.running

const adding = (set: ReadonlySet<string>, id: string) => new Set(set).add(id)

const removing = (set: ReadonlySet<string>, id: string) => {
  const rest = new Set(set)
  rest.delete(id)
  return rest
}

/** The memory review, with another failure policy than the default of `MemoryConfig.failuresMax`. */
export const make = Effect.fnUntraced(function* (options: { readonly policy?: Backoff.Policy } = {}) {
  const settings = yield* MemoryConfig.MemoryConfig
  const store = yield* MemoryStore
  const cursors = yield* Cursors
  const tracker = yield* Backoff.make(options.policy ?? Backoff.policy(settings.failuresMax), {
    load: cursors.failure,
    save: cursors.setFailure
  })
  const run = makeRun({
    settings,
    store,
    cursors,
    transcript: yield* Transcript,
    agents: yield* Agents,
    model: yield* ReviewModel,
    tracker
  })
  const oneAtATime = yield* Semaphore.make(1)
  const state = yield* SubscriptionRef.make<Pending>({ waiting: new Set(), queued: new Set(), running: 0 })
  const timers = yield* FiberMap.make<string>()
  const queue = yield* Queue.unbounded<string>()

  /** Runs a review one at a time, counted as running from `start` (which marks it so) until it ends. */
  const running = <A>(start: (s: Pending) => Pending, effect: Effect.Effect<A>) =>
    SubscriptionRef.update(state, start).pipe(
      Effect.andThen(oneAtATime.withPermit(effect)),
      Effect.ensuring(SubscriptionRef.update(state, (s) => ({ ...s, running: s.running - 1 })))
    )

  /** Moves a conversation from waiting to the queue, unless it is queued already. */
  const enqueue = (id: string) =>
    SubscriptionRef.modify(state, (s): [boolean, Pending] => [
      !s.queued.has(id),
      { ...s, waiting: removing(s.waiting, id), queued: adding(s.queued, id) }
    ]).pipe(Effect.flatMap((fresh) => (fresh ? Queue.offer(queue, id) : Effect.void)))

  const worker = Effect.gen(function* () {
    const id = yield* Queue.take(queue)
    yield* running(
      (s) => ({ ...s, queued: removing(s.queued, id), running: s.running + 1 }),
      run(id, false).pipe(
        Effect.flatMap((outcome) => (outcome.moreFollow ? enqueue(id) : Effect.void)),
        Effect.catchCause((cause) => Effect.logError("memory review crashed", cause))
      )
    )
  }).pipe(Effect.forever)
  yield* Effect.forkScoped(worker)

  const turnStarted = (id: string) =>
    SubscriptionRef.update(state, (s) => ({ ...s, waiting: removing(s.waiting, id) })).pipe(
      Effect.andThen(FiberMap.remove(timers, id))
    )

  const turnEnded = (id: string) =>
    settings.reviewEnabled
      ? SubscriptionRef.update(state, (s) => ({ ...s, waiting: adding(s.waiting, id) })).pipe(
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

  const lastReview = (agentId: string) => cursors.lastReview(agentId)

  return MemoryReview.of({
    turnStarted,
    turnEnded,
    reviewNow: (id) => running((s) => ({ ...s, running: s.running + 1 }), run(id, true)),
    pending: Effect.map(SubscriptionRef.get(state), count),
    awaitIdle: SubscriptionRef.changes(state).pipe(
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
export const layerWith = (options: {
  readonly policy?: Backoff.Policy
}): Layer.Layer<MemoryReview, never, MemoryStore | Cursors | Transcript | Agents | ReviewModel> =>
  Layer.effect(MemoryReview, make(options))

/** The memory review with the default failure policy. */
export const layer: Layer.Layer<MemoryReview, never, MemoryStore | Cursors | Transcript | Agents | ReviewModel> =
  layerWith({})
