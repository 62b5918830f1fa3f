/**
 * The review's state (docs/spec.md 4): a cursor per key, the failure records per key, the last review per agent and the lines
 * group members lost to a host's drop (docs/spec.md 4.7), kept by the storage port (`MemoryRoot.readState` / `updateState`,
 * `reviewed.json` in a memory folder) under the root's one writer. A last review's reason is masked for secrets before
 * it is kept; what each agent's reviews spend per day is counted for its budget (`ReviewBudget`). Inside a transaction of the root (`MemoryRoot.transaction`), every change joins it: a review's record
 * lands in the commit of its answer.
 */
import { type Backoff, Secret, StorageError, WriteFailed } from "@mneme/core"
import { Context, Effect, Layer } from "effect"
import * as ReviewBudget from "./ReviewBudget.ts"
import {
  type DayUsage,
  type DroppedLines,
  keyedChange,
  type LastReview,
  MemoryRoot,
  type ReviewStateDocument,
  type StateChange,
  type StateKeys
} from "./MemoryRoot.ts"

const lookup = <A>(record: Readonly<Record<string, A>>, key: string): A | undefined =>
  Object.hasOwn(record, key) ? record[key] : undefined

const without = <A>(record: Readonly<Record<string, A>>, key: string): Record<string, A> =>
  Object.fromEntries(Object.entries(record).filter(([k]) => k !== key))

/** The state with the cursor of `key` moved forward to `seq` (the same state when it is not forward). */
const withCursor = (state: ReviewStateDocument, key: string, seq: number): ReviewStateDocument => {
  const old = lookup(state.cursors, key)
  return old !== undefined && seq <= old ? state : { ...state, cursors: { ...state.cursors, [key]: seq } }
}

/** The state with the agent's latest review, its reason's secrets masked. */
const withLastReview = (state: ReviewStateDocument, agentId: string, review: LastReview): ReviewStateDocument => {
  const kept: LastReview = { ...review, reason: review.reason === null ? null : Secret.redact(review.reason) }
  return { ...state, lastReviews: { ...state.lastReviews, [agentId]: kept } }
}

/** What `recordReview` changes: the cursor of `key` moved forward to `seq` (a number) and the agent's latest review kept. */
const reviewRecorded = (key: string, seq: number, agentId: string, review: LastReview): StateChange =>
  keyedChange({ cursors: [key], lastReviews: [agentId] }, (state) =>
    withLastReview(withCursor(state, key, seq), agentId, review)
  )

const make = Effect.gen(function* () {
  const root = yield* MemoryRoot
  const read = <A>(keys: StateKeys, pick: (state: ReviewStateDocument) => A) => Effect.map(root.readStateOf(keys), pick)

  /** `seq` as a cursor, or why it cannot be one. */
  const cursorOf = (key: string, seq: number) =>
    Number.isFinite(seq)
      ? Effect.succeed(seq)
      : Effect.fail(
          new StorageError({
            reason: new WriteFailed({
              file: "reviewed.json",
              detail: `the cursor of ${key} must be a number, not ${seq}`
            })
          })
        )

  const setCursor = (key: string, seq: number) =>
    Effect.flatMap(cursorOf(key, seq), (seq) =>
      root.updateState(keyedChange({ cursors: [key] }, (state) => withCursor(state, key, seq)))
    )

  const setFailure = (key: string, record: Backoff.FailureRecord | undefined) =>
    root.updateState(
      keyedChange({ failures: [key] }, (state) =>
        record === undefined
          ? lookup(state.failures, key) === undefined
            ? state
            : { ...state, failures: without(state.failures, key) }
          : { ...state, failures: { ...state.failures, [key]: record } }
      )
    )

  const setLastReview = (agentId: string, review: LastReview) =>
    root.updateState(keyedChange({ lastReviews: [agentId] }, (state) => withLastReview(state, agentId, review)))

  const recordReview = (key: string, seq: number, agentId: string, review: LastReview) =>
    Effect.flatMap(cursorOf(key, seq), (seq) => root.updateState(reviewRecorded(key, seq, agentId, review)))

  const recordDropped = (key: string, lost: DroppedLines) =>
    root.updateState(
      keyedChange({ dropped: [key] }, (state) => {
        const dropped = state.dropped ?? {}
        return { ...state, dropped: { ...dropped, [key]: [...(lookup(dropped, key) ?? []), lost] } }
      })
    )

  return ReviewState.of({
    cursor: (key) => read({ cursors: [key] }, (state) => lookup(state.cursors, key)),
    setCursor,
    failure: (key) => read({ failures: [key] }, (state) => lookup(state.failures, key)),
    setFailure,
    lastReview: (agentId) => read({ lastReviews: [agentId] }, (state) => lookup(state.lastReviews, agentId) ?? null),
    setLastReview,
    recordReview,
    expectCursor: (key, read) =>
      root.updateState(keyedChange({ cursors: [key] }, (state) => state, { key, cursor: read })),
    dropped: (key) => read({ dropped: [key] }, (state) => lookup(state.dropped ?? {}, key) ?? []),
    recordDropped,
    snapshot: root.readState,
    usage: (agentId, day) => Effect.map(root.readState, (state) => ReviewBudget.usageOn(state, agentId, day)),
    recordUsage: (agentId, day, spent) => root.updateState(ReviewBudget.withSpent(agentId, day, spent)),
    warnOnce: (agentId, day) =>
      Effect.suspend(() => {
        let first = false
        return root
          .updateState((state) => {
            const next = ReviewBudget.withWarned(agentId, day)(state)
            first = next !== state
            return next
          })
          .pipe(Effect.map(() => first))
      }),
    markConsolidated: (dir, at) =>
      root.updateState((state) => ({ ...state, consolidated: { ...state.consolidated, [dir]: at } }))
  })
})

/** The review state of one memory root. */
export class ReviewState extends Context.Service<
  ReviewState,
  {
    /** The cursor of `key`: the `seq` of the last line the review has dealt with; `undefined` before any review. */
    readonly cursor: (key: string) => Effect.Effect<number | undefined, StorageError>
    /** Moves the cursor of `key` forward to `seq`; a smaller or equal `seq` is ignored. */
    readonly setCursor: (key: string, seq: number) => Effect.Effect<void, StorageError>
    /** The failure record of `key`, if any. */
    readonly failure: (key: string) => Effect.Effect<Backoff.FailureRecord | undefined, StorageError>
    /** Sets the failure record of `key`, or clears it with `undefined`. */
    readonly setFailure: (key: string, record: Backoff.FailureRecord | undefined) => Effect.Effect<void, StorageError>
    /** How the agent's latest review ended; `null` before any review. */
    readonly lastReview: (agentId: string) => Effect.Effect<LastReview | null, StorageError>
    /** Records how the agent's latest review ended, its reason's secrets masked. */
    readonly setLastReview: (agentId: string, review: LastReview) => Effect.Effect<void, StorageError>
    /**
     * Moves the cursor of `key` forward to `seq` and records the agent's latest review, in one write (with the rest of
     * the open transaction of the root, if any: the review's answer).
     */
    readonly recordReview: (
      key: string,
      seq: number,
      agentId: string,
      review: LastReview
    ) => Effect.Effect<void, StorageError>
    /**
     * Expects the cursor of `key` to be still `read`: inside a transaction of the root, its commit is refused
     * (`StaleCursor`, nothing of it kept) unless it is when the commit is made, so a review that another review of the
     * conversation has overtaken (another runner, while this one was paused) keeps nothing; outside one, fails so at
     * once. Changes nothing.
     */
    readonly expectCursor: (key: string, read: number | undefined) => Effect.Effect<void, StorageError>
    /** The lines of a group's log dropped before the member of `key` had reviewed them, oldest first. */
    readonly dropped: (key: string) => Effect.Effect<ReadonlyArray<DroppedLines>, StorageError>
    /** Records lines dropped before the member of `key` had reviewed them. */
    readonly recordDropped: (key: string, lost: DroppedLines) => Effect.Effect<void, StorageError>
    /** The whole state, for a person's view (the CLI, a panel). */
    readonly snapshot: Effect.Effect<ReviewStateDocument, StorageError>
    /** What the agent's reviews spent on `day` (`YYYY-MM-DD`). */
    readonly usage: (agentId: string, day: string) => Effect.Effect<DayUsage, StorageError>
    /** Adds what a model call of the agent's reviews spent on `day`. */
    readonly recordUsage: (agentId: string, day: string, spent: ReviewBudget.Spent) => Effect.Effect<void, StorageError>
    /** Marks the agent's budget stop on `day` as warned: `true` the first time only. */
    readonly warnOnce: (agentId: string, day: string) => Effect.Effect<boolean, StorageError>
    /** Records that the MEMORY.md of the scope folder `dir` was consolidated at `at` (epoch ms). */
    readonly markConsolidated: (dir: string, at: number) => Effect.Effect<void, StorageError>
  }
>()("@mneme/review/ReviewState") {
  /** The review state over the memory root's storage port. */
  static readonly layer: Layer.Layer<ReviewState, never, MemoryRoot> = Layer.effect(ReviewState, make)
}

/** The review state over the memory root's storage port. */
export const layer = ReviewState.layer
