/**
 * The memory review (docs/spec.md 4): after a conversation's turn ends, a model is shown what is new in it together with what
 * memory holds, and its answer is applied. This module schedules the reviews — a timer per conversation after each
 * turn end, cancelled by a turn that starts within the delay, then one review per member in a group (docs/spec.md 4.7); one
 * review at a time across the host, through a queue with one worker — bounds the ones that keep failing, catches
 * members up before a host drops lines of a bounded log, and shows the host how the latest review went. What one
 * review gives back is `ReviewOutcome.Outcome`.
 */
import { Backoff, MemoryConfig, type StorageError, type TranscriptError } from "@mneme/core"
import {
  Clock,
  Context,
  Duration,
  Effect,
  FiberMap,
  Layer,
  Option,
  Queue,
  Semaphore,
  Stream,
  SubscriptionRef
} from "effect"
import { Agents } from "./Agents.ts"
import * as Groups from "./Groups.ts"
import * as ReviewRun from "./internal/reviewRun.ts"
import * as UntilDone from "./internal/untilDone.ts"
import { MemoryPending } from "./MemoryPending.ts"
import type { LastReview } from "./MemoryRoot.ts"
import { MemoryStore, type View as StoreView } from "./MemoryStore.ts"
import { ReviewModel } from "./ReviewModel.ts"
import * as ReviewOutcome from "./ReviewOutcome.ts"
import { ReviewState } from "./ReviewState.ts"
import { Transcript } from "./Transcript.ts"
import * as Choose from "./internal/reviewChoose.ts"

/** The stable texts of the review's warnings (logged with `Effect.logWarning`; details in the annotations). */
export const warnings = ReviewOutcome.warnings

/** The review's metrics: reviews by outcome, model calls, failures, changes applied and left out, sizes, tokens. */
export const metrics = ReviewOutcome.metrics

/** The key under which the review state keeps a conversation's cursor and failure record. */
export const cursorKey = ReviewOutcome.cursorKey

/** The key under which the review state keeps a group member's cursor and failure record. */
export const memberKey = ReviewOutcome.memberKey

/** How one review went. */
export type Outcome = ReviewOutcome.Outcome

/** What the host can see of an agent's memory: its entries, sizes and limits, and its last review. */
export interface View extends StoreView {
  readonly lastReview: LastReview | null
}

/**
 * What `beforeDrop` found: the agents now past the lines to drop (or with nothing left to see in them), and those still
 * behind, whose loss is recorded.
 */
export interface DropCheck {
  readonly past: ReadonlyArray<string>
  readonly behind: ReadonlyArray<string>
}

/**
 * How long `beforeDrop` catches members up before it gives up on the ones still behind (default 2 minutes), shared out
 * in turn: each member behind gets the time left divided by the members still to go.
 */
export interface DropOptions {
  readonly timeout?: Duration.Input | undefined
}

/** How long `beforeDrop` catches members up by default. */
export const dropTimeout: Duration.Duration = Duration.minutes(2)

/** The memory review service. */
export class MemoryReview extends Context.Service<
  MemoryReview,
  {
    /** A turn of the conversation starts: a review waiting for its delay is cancelled. */
    readonly turnStarted: (conversationId: string) => Effect.Effect<void>
    /**
     * A turn of the conversation ended: its review (in a group, one review per member) is queued once the delay has
     * passed.
     */
    readonly turnEnded: (conversationId: string) => Effect.Effect<void>
    /**
     * Reviews the conversation now, whatever the failure record says, and gives the outcome; in a group, the review of
     * the member agent named.
     */
    readonly reviewNow: (conversationId: string, member?: string) => Effect.Effect<Outcome>
    /**
     * A host about to drop the lines of a conversation up to `uptoSeq` (a bounded log) asks first: every member (the
     * owning agent, in a chat) whose cursor is behind is reviewed now, forced past the failure policy, as long as each
     * review moves its cursor, one member at a time, each within an equal share of what is left of `timeout`. Those
     * whose cursor is still before `uptoSeq` are recorded as having lost the lines (in the review state, per member,
     * and as their last review) with one warning, so the loss is never silent; a member past them is never touched.
     */
    readonly beforeDrop: (
      conversationId: string,
      uptoSeq: number,
      options?: DropOptions
    ) => Effect.Effect<DropCheck, TranscriptError | StorageError>
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

/** What a conversation's reviews are of: the conversation, or each member of a group (`Groups.membersOf`). */
export const targetsIn = (
  groups: Groups.Service,
  conversationId: string
): Effect.Effect<ReadonlyArray<ReviewOutcome.Target>, TranscriptError> =>
  Effect.map(groups.membersOf(conversationId), (members): ReadonlyArray<ReviewOutcome.Target> =>
    members === undefined
      ? [{ conversationId, member: undefined }]
      : members.map((member) => ({ conversationId, member }))
  )

/**
 * Review one target once: one review of a conversation (of one member, in a group), forced past the failure policy or
 * not.
 */
export type ReviewOnce = (target: ReviewOutcome.Target, force: boolean) => Effect.Effect<Outcome>

/** How a run of reviews until done ended: every review's outcome in order, and why it stopped early, if it did. */
export type Done = UntilDone.Done

/** What `untilDone` is told: the cursor before the first review, and a check between reviews. */
export type UntilDoneOptions<E, R> = UntilDone.Options<E, R>

/**
 * Review until done, the one loop every host runs: `review` again while each review goes on
 * (`ReviewOutcome.goesOn`: newer lines wait, and it moved the cursor), stopping at the first that fails, is stopped,
 * or finds nothing more; `options.between` may stop the run between two reviews, saying why.
 */
export const untilDone = UntilDone.untilDone

/**
 * Makes `ReviewOnce`, the review itself without the scheduling: for a host that schedules reviews its own way (a
 * cluster entity per conversation) and keeps to one review at a time per conversation. Reads `MemoryConfig` once, now.
 */
export const reviewOnce = Effect.fnUntraced(function* (options: Options = {}) {
  const settings = yield* MemoryConfig.MemoryConfig
  const state = yield* ReviewState
  const tracker = yield* Backoff.make(options.policy ?? Backoff.policy(settings.failuresMax), {
    load: state.failure,
    save: state.setFailure
  })
  const review: ReviewOnce = ReviewRun.reviewOnce({
    settings,
    store: yield* MemoryStore,
    state,
    transcript: yield* Transcript,
    groups: yield* Groups.Groups,
    agents: yield* Agents,
    model: yield* ReviewModel,
    tracker,
    chooser: Choose.held(),
    pending: Option.getOrUndefined(yield* Effect.serviceOption(MemoryPending))
  })
  return review
})

/** The memory review, reading `MemoryConfig` once, now. */
export const make = Effect.fnUntraced(function* (options: Options = {}) {
  const settings = yield* MemoryConfig.MemoryConfig
  const store = yield* MemoryStore
  const state = yield* ReviewState
  const transcript = yield* Transcript
  const groups = yield* Groups.Groups
  const review = yield* reviewOnce(options)
  const oneAtATime = yield* Semaphore.make(1)
  const pending = yield* SubscriptionRef.make<Pending>(idle)
  // Closing the service interrupts the worker, then the waiting timers (the FiberMap's), then nothing waits any more.
  yield* Effect.addFinalizer(() =>
    SubscriptionRef.update(pending, (s) => ({ ...s, waiting: new Set<string>(), queued: new Set<string>() }))
  )
  const timers = yield* FiberMap.make<string>()
  const queue = yield* Queue.unbounded<ReviewOutcome.Target>()

  const targetsOf = (conversationId: string) => targetsIn(groups, conversationId)

  /** Runs a review one at a time, counted as running from `start` (which marks it so) until it ends. */
  const running = <A>(start: (s: Pending) => Pending, effect: Effect.Effect<A>) =>
    SubscriptionRef.update(pending, start).pipe(
      Effect.andThen(oneAtATime.withPermit(effect)),
      Effect.ensuring(SubscriptionRef.update(pending, (s) => ({ ...s, running: s.running - 1 })))
    )

  /** Queues a review, unless it is queued already. */
  const enqueue = (target: ReviewOutcome.Target) => {
    const key = ReviewOutcome.targetKey(target)
    return SubscriptionRef.modify(pending, (s): [boolean, Pending] => [
      !s.queued.has(key),
      { ...s, queued: adding(s.queued, key) }
    ]).pipe(Effect.flatMap((fresh) => (fresh ? Queue.offer(queue, target) : Effect.void)))
  }

  /** Queues the reviews of a conversation whose delay has passed (one per member, in a group). */
  const due = (id: string) =>
    targetsOf(id).pipe(
      Effect.flatMap((targets) => Effect.forEach(targets, enqueue, { discard: true })),
      Effect.catch((error) =>
        Effect.logWarning(ReviewOutcome.warnings.failed).pipe(
          Effect.annotateLogs({ conversation: id, reason: error.message })
        )
      ),
      Effect.ensuring(SubscriptionRef.update(pending, (s) => ({ ...s, waiting: removing(s.waiting, id) })))
    )

  const worker = Queue.take(queue).pipe(
    Effect.flatMap((target) =>
      running(
        (s) => ({ ...s, queued: removing(s.queued, ReviewOutcome.targetKey(target)), running: s.running + 1 }),
        review(target, false).pipe(
          // Newer lines go to the back of the queue, so one long conversation does not hold the others back.
          Effect.flatMap((outcome) => (ReviewOutcome.goesOn(outcome) ? enqueue(target) : Effect.void)),
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
              Effect.andThen(Effect.sleep(settings.reviewDelay), Effect.uninterruptible(due(id)))
            )
          ),
          Effect.asVoid
        )
      : Effect.void

  const lastReview = (agentId: string) => state.lastReview(agentId)

  /**
   * Reviews `target` forced, again while each review moves its cursor, until the cursor reaches `upto`: whether it is
   * past the lines then (or they held nothing left for it to see).
   */
  const catchUp = Effect.fnUntraced(function* (target: ReviewOutcome.Target, upto: number) {
    const key = ReviewOutcome.targetKey(target)
    let cursor = yield* state.cursor(key)
    while (cursor === undefined || cursor < upto) {
      const outcome = yield* running((s) => ({ ...s, running: s.running + 1 }), review(target, true))
      if (outcome._tag === "NothingNew" || outcome._tag === "AgentGone") return true
      const moved = yield* state.cursor(key)
      if (outcome._tag === "Failed" || moved === cursor) return false
      cursor = moved
    }
    return true
  })

  const beforeDrop = Effect.fnUntraced(function* (conversationId: string, upto: number, options: DropOptions = {}) {
    const targets = yield* targetsOf(conversationId)
    const isPast = (target: ReviewOutcome.Target) =>
      Effect.map(state.cursor(ReviewOutcome.targetKey(target)), (cursor) => cursor !== undefined && cursor >= upto)
    const deadline =
      (yield* Clock.currentTimeMillis) + Duration.toMillis(Duration.fromInputUnsafe(options.timeout ?? dropTimeout))
    // Reviews run one at a time, so the members behind are caught up in turn, each within an equal share of the time
    // still left: a member that needs less leaves the rest to those after it, and one slow member cannot take it all.
    const toCatchUp = yield* Effect.filter(targets, (target) => Effect.map(isPast(target), (past) => !past))
    const caughtUp = new Set<ReviewOutcome.Target>()
    for (const [index, target] of toCatchUp.entries()) {
      const now = yield* Clock.currentTimeMillis
      const share = Duration.millis(Math.max(0, deadline - now) / (toCatchUp.length - index))
      const ok = yield* catchUp(target, upto).pipe(Effect.timeoutOption(share))
      if (Option.getOrElse(ok, () => false)) caughtUp.add(target)
    }
    // Behind is only a member whose cursor is still before the lines as they go.
    const behind = yield* Effect.filter(toCatchUp, (target) =>
      caughtUp.has(target) ? Effect.succeed(false) : Effect.map(isPast(target), (past) => !past)
    )
    const agentOf = (target: ReviewOutcome.Target) =>
      target.member === undefined ? transcript.agentOf(conversationId) : Effect.succeed(target.member)
    const at = yield* Clock.currentTimeMillis
    const lost = yield* Effect.forEach(behind, (target) =>
      Effect.gen(function* () {
        const key = ReviewOutcome.targetKey(target)
        const after = (yield* state.cursor(key)) ?? null
        const agentId = yield* agentOf(target)
        yield* state.recordDropped(key, { after, upto, at })
        const from = after === null ? "" : ` after #${after}`
        yield* state.setLastReview(agentId, {
          at,
          ok: false,
          reason: `lines of conversation ${JSON.stringify(conversationId)}${from} up to #${upto} were dropped before this agent's review saw them`
        })
        return agentId
      })
    )
    if (lost.length > 0) {
      yield* Effect.logWarning(ReviewOutcome.warnings.dropped).pipe(
        Effect.annotateLogs({ conversation: conversationId, upto, members: lost })
      )
    }
    const pastIds = yield* Effect.forEach(
      targets.filter((target) => !behind.includes(target)),
      agentOf
    )
    return { past: pastIds, behind: lost } satisfies DropCheck
  })

  return MemoryReview.of({
    turnStarted,
    turnEnded,
    reviewNow: (conversationId, member) =>
      running((s) => ({ ...s, running: s.running + 1 }), review({ conversationId, member }, true)),
    beforeDrop,
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

/**
 * The review of a composition without its scheduling, and the settings it was built with: what a host that schedules
 * reviews its own way (a cluster entity per conversation) runs, so its delay and failure policy are the composition's.
 */
export class Reviewer extends Context.Service<
  Reviewer,
  {
    /** The settings in force when the review was built (the delay a turn end waits, among them). */
    readonly settings: MemoryConfig.Settings
    /** Review one target once, with the composition's failure policy. */
    readonly reviewOnce: ReviewOnce
  }
>()("@mneme/review/MemoryReview/Reviewer") {}

/** `Reviewer` with the failure policy given, reading `MemoryConfig` once, when it is built. */
export const reviewerLayer = (
  options: Options
): Layer.Layer<Reviewer, never, MemoryStore | ReviewState | Transcript | Agents | ReviewModel> =>
  Layer.effect(
    Reviewer,
    Effect.gen(function* () {
      const settings = yield* MemoryConfig.MemoryConfig
      return Reviewer.of({ settings, reviewOnce: yield* reviewOnce(options) })
    })
  )
