/**
 * The memory review on effect/cluster, for hosts that run several replicas: an entity per conversation (per member
 * of a group), `ConversationReview`, keyed by the conversation's cursor key, that receives the host's `TurnStarted`
 * and `TurnEnded` messages and runs that conversation's reviews one at a time, on whichever runner holds its shard.
 * Both messages are persisted (`ClusterSchema.Persisted`), so a turn end sent to a runner that dies is delivered again
 * to the runner its shard moves to, and reviewed there from the cursor in shared storage; `turnStarted` and `turnEnded`
 * answer once their messages are stored, so a replica that dies right after a turn loses none. The debounce lives in the
 * entity: a turn end waits `reviewDelay`, and a newer turn start or turn end supersedes it. A runner paused past its
 * shard lease while a review asks the model keeps nothing of that review when it resumes: the runner that took the
 * conversation has moved its cursor, and the late review's commit is refused (`StaleCursor`).
 *
 * `layer` is `MemoryReview` over the cluster, so a host's turn loop does not change; `entities` runs the entity on a
 * runner; `boundedModel` bounds the model calls in flight per runner, in place of one review at a time per host.
 */
import { Groups, MemoryReview, ReviewModel, ReviewOutcome } from "@mneme/review"
import { Effect, FiberSet, Layer, PrimaryKey, Ref, Schema, Semaphore, Stream, SubscriptionRef } from "effect"
import { ClusterSchema, Entity, Sharding } from "effect/cluster"
import { Rpc } from "effect/rpc"

/** What a message is about: the conversation, and in a group the member agent whose review it is. */
const TargetPayload = {
  conversationId: Schema.String,
  member: Schema.optionalKey(Schema.String)
}

/** A turn of the conversation starts: a review waiting for its delay is superseded. */
export const TurnStarted = Rpc.make("TurnStarted", { payload: TargetPayload }).annotate(ClusterSchema.Persisted, true)

/**
 * What a turn end is about, and its own id (`turn`, unique in the cluster): the key it is stored under, so the replica
 * that sent it can send it again to wait for its answer, and is answered for the one stored message.
 */
export class TurnEndedPayload extends Schema.Class<TurnEndedPayload>("@mneme/sql/ClusterReview/TurnEndedPayload")({
  ...TargetPayload,
  turn: Schema.String
}) {
  [PrimaryKey.symbol]() {
    return this.turn
  }
}

/**
 * A turn of the conversation ended: after `reviewDelay`, unless a newer turn start or end came meanwhile, the
 * conversation is reviewed (again while newer lines follow). Answers with how the last review ended (the outcome's
 * `_tag`), or `Superseded`.
 */
export const TurnEnded = Rpc.make("TurnEnded", { payload: TurnEndedPayload, success: Schema.String }).annotate(
  ClusterSchema.Persisted,
  true
)

/** The entity of one conversation's reviews (one member's, in a group), keyed by its cursor key. */
export const ConversationReview = Entity.make("ConversationReview", [TurnStarted, TurnEnded])

/** What a turn end that a newer turn start or end replaced answers. */
export const superseded = "Superseded"

const targetOf = (payload: { readonly conversationId: string; readonly member?: string }): ReviewOutcome.Target => ({
  conversationId: payload.conversationId,
  member: payload.member
})

const payloadOf = (target: ReviewOutcome.Target) =>
  target.member === undefined
    ? { conversationId: target.conversationId }
    : { conversationId: target.conversationId, member: target.member }

/**
 * What the entity and the cluster's `MemoryReview` run on: the sharding, and the composition (`Memory.layerOver`) they
 * take their review, settings and failure policy from.
 */
export type Needs = Sharding.Sharding | MemoryReview.Reviewer | MemoryReview.MemoryReview

/**
 * The `ConversationReview` entity on this runner: each entity runs its conversation's reviews one at a time, with the
 * composition's review (`MemoryReview.Reviewer`): its delay, its failure policy, its settings.
 */
export const entities = (): Layer.Layer<never, never, Sharding.Sharding | MemoryReview.Reviewer> =>
  ConversationReview.toLayer(
    Effect.gen(function* () {
      const { settings, reviewOnce } = yield* MemoryReview.Reviewer
      // Each turn start or end takes a number; a waiting turn end reviews only while its number is the latest.
      const latest = yield* Ref.make(0)
      const oneAtATime = yield* Semaphore.make(1)
      const toEnd = (target: ReviewOutcome.Target): Effect.Effect<string> =>
        Effect.map(MemoryReview.untilDone(reviewOnce(target, false)), (done) => done.outcomes.at(-1)!._tag)
      return ConversationReview.of({
        TurnStarted: () => Ref.update(latest, (n) => n + 1),
        TurnEnded: ({ payload }) =>
          Effect.gen(function* () {
            const mine = yield* Ref.updateAndGet(latest, (n) => n + 1)
            yield* Effect.sleep(settings.reviewDelay)
            if ((yield* Ref.get(latest)) !== mine) return superseded
            return yield* oneAtATime.withPermit(toEnd(targetOf(payload)))
          }).pipe(Rpc.fork)
      })
    })
  )

/**
 * The review model with at most `inFlight` calls at once on this runner (the others wait their turn): the bound on
 * model calls per runner, in place of one review at a time per host.
 */
export const boundedModel = (inFlight: number): Layer.Layer<ReviewModel.ReviewModel, never, ReviewModel.ReviewModel> =>
  Layer.effect(
    ReviewModel.ReviewModel,
    Effect.gen(function* () {
      const inner = yield* ReviewModel.ReviewModel
      const permits = yield* Semaphore.make(Math.max(1, inFlight))
      return ReviewModel.ReviewModel.of({ generate: (request) => permits.withPermit(inner.generate(request)) })
    })
  )

/**
 * `MemoryReview` over the cluster: a turn start or end of a conversation is a message to its entity (one per member,
 * in a group), wherever it runs; `pending` and `awaitIdle` count the turn ends this replica sent whose reviews have not
 * ended. `reviewNow`, `beforeDrop`, `lastReview` and `view` are the composition's `MemoryReview`, in this replica.
 */
export const layer = (): Layer.Layer<MemoryReview.MemoryReview, never, Sharding.Sharding | MemoryReview.MemoryReview> =>
  Layer.effect(
    MemoryReview.MemoryReview,
    Effect.gen(function* () {
      const local = yield* MemoryReview.MemoryReview
      const sharding = yield* Sharding.Sharding
      const groups = yield* Groups.Groups
      const clientFor = yield* ConversationReview.client
      const sent = yield* FiberSet.make<unknown, never>()
      const waiting = yield* SubscriptionRef.make(0)
      const targetsOf = (conversationId: string) => MemoryReview.targetsIn(groups, conversationId)
      /** Sends `message` to each entity of the conversation; a failure to send is warned, never the host's. */
      const toEach = (
        conversationId: string,
        message: (target: ReviewOutcome.Target) => Effect.Effect<unknown, unknown>
      ) =>
        targetsOf(conversationId).pipe(
          Effect.flatMap((targets) => Effect.forEach(targets, message, { discard: true })),
          Effect.catchCause((cause) =>
            Effect.logWarning("memory review could not reach a conversation's review", cause).pipe(
              Effect.annotateLogs({ conversation: conversationId })
            )
          )
        )
      /**
       * Sends a turn end to each entity of the conversation, and answers once each is stored (a send that discards the
       * answer waits for that, and no longer); then waits for its answer aside, sending the same message again (the
       * same `turn`, so the cluster's storage knows it), for `pending` and `awaitIdle`.
       */
      const turnEnded = (conversationId: string) =>
        toEach(conversationId, (target) =>
          Effect.gen(function* () {
            const client = clientFor(ReviewOutcome.targetKey(target))
            const payload = new TurnEndedPayload({ ...payloadOf(target), turn: String(yield* sharding.getSnowflake) })
            yield* client.TurnEnded(payload, { discard: true })
            yield* SubscriptionRef.update(waiting, (n) => n + 1)
            yield* FiberSet.run(
              sent,
              client.TurnEnded(payload).pipe(
                Effect.catchCause((cause) =>
                  Effect.logWarning("memory review could not reach a conversation's review", cause)
                ),
                Effect.ensuring(SubscriptionRef.update(waiting, (n) => n - 1))
              )
            )
          })
        )
      return MemoryReview.MemoryReview.of({
        ...local,
        turnStarted: (conversationId) =>
          toEach(conversationId, (target) =>
            clientFor(ReviewOutcome.targetKey(target)).TurnStarted(payloadOf(target), { discard: true })
          ),
        turnEnded,
        pending: Effect.zipWith(SubscriptionRef.get(waiting), local.pending, (a, b) => a + b),
        awaitIdle: SubscriptionRef.changes(waiting).pipe(
          Stream.takeUntil((n) => n === 0),
          Stream.runDrain,
          Effect.andThen(local.awaitIdle)
        )
      })
    })
  )
