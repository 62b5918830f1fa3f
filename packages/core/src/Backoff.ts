/**
 * The failure policy of the memory review (docs/spec.md 4.5): how many failed reviews at one cursor buy another model call.
 * The policy is an Effect `Schedule` fed one record per failed review: while it continues, another try is allowed
 * once its delay has passed; once it is done, no more tries for those lines. The records live in a `Ref`, read
 * from and written to a store the caller gives, so a restart does not buy more calls. A success at the key, or a
 * user line newer than any the failed tries saw, starts the count again.
 */
import { Clock, Duration, Effect, Pull, Ref, Schedule, Schema } from "effect"

/** What is remembered of the failed reviews at one cursor key (one schema, kept in the review state as it is). */
export const FailureRecord = Schema.Struct({
  /** The cursor the failures happened at (`null`: none yet). */
  cursor: Schema.NullOr(Schema.Number),
  /** The newest user line those tries saw. */
  newestUserSeq: Schema.Number,
  /** When each failed review there ended, epoch ms, oldest first: the policy is stepped with these times. */
  times: Schema.Array(Schema.Number),
  /** Whether the stop was warned. */
  stopWarned: Schema.Boolean
})

/** What is remembered of the failed reviews at one cursor key. */
export type FailureRecord = typeof FailureRecord.Type

/** Where a review stands: the cursor its new lines follow and the newest user line among them. */
export interface Position {
  readonly cursor: number | null
  readonly newestUserSeq: number
}

/** A failure policy: a schedule fed the record after each failed review. */
export type Policy = Schedule.Schedule<unknown, FailureRecord>

/** The default: `failuresMax` failed reviews at one cursor, then no more model calls for those lines. */
export const policy = (failuresMax: number): Policy => Schedule.recurs(Math.max(0, failuresMax - 1))

/** `failuresMax` failed reviews, then one more try each time `coolDown` has passed since the latest failure. */
export const coolDown = (failuresMax: number, coolDown: Duration.Input): Policy =>
  Schedule.concat(policy(failuresMax), Schedule.spaced(coolDown))

/**
 * What the policy says of the next try: go ahead, or not before `until` (`undefined`: not until the lines change),
 * after `failures` failed reviews at these lines.
 */
export type Decision =
  { readonly _tag: "Try" } | { readonly _tag: "Stop"; readonly until: number | undefined; readonly failures: number }

const tryNow: Decision = { _tag: "Try" }

/** Whether a record speaks for a review at `position`: same cursor, and no user line newer than its tries saw. */
export const applies = (record: FailureRecord | undefined, position: Position): record is FailureRecord =>
  record !== undefined && record.cursor === position.cursor && position.newestUserSeq <= record.newestUserSeq

/**
 * The policy's decision after the failures of `record`, at `now`: the schedule stepped once per failure, at that
 * failure's own time and with the record as it stood after it, so a schedule capped in time (`Schedule.upTo({
 * duration })`) or spaced from the latest failure sees the time that really passed.
 */
export const decide = Effect.fnUntraced(function* (policy: Policy, record: FailureRecord | undefined, now: number) {
  if (record === undefined || record.times.length === 0) return tryNow
  const step = yield* Schedule.toStep(policy)
  const delay = yield* Effect.reduce(
    record.times,
    () => Duration.zero,
    (_, time, i) =>
      Effect.map(step(time, { ...record, times: record.times.slice(0, i + 1) }), ([, duration]) => duration)
  ).pipe(Pull.catchDone(() => Effect.succeed(undefined)))
  const failures = record.times.length
  if (delay === undefined) return { _tag: "Stop", until: undefined, failures } satisfies Decision
  const until = record.times[failures - 1]! + Duration.toMillis(delay)
  return now >= until ? tryNow : ({ _tag: "Stop", until, failures } satisfies Decision)
})

/** The record after one more failed review at `position`, at `now`: counted on, or started over when it no longer applies. */
export const fail = (record: FailureRecord | undefined, position: Position, now: number): FailureRecord =>
  applies(record, position)
    ? { ...record, times: [...record.times, now] }
    : { cursor: position.cursor, newestUserSeq: position.newestUserSeq, times: [now], stopWarned: false }

/** Where the records are kept between runs. */
export interface Store<E> {
  readonly load: (key: string) => Effect.Effect<FailureRecord | undefined, E>
  readonly save: (key: string, record: FailureRecord | undefined) => Effect.Effect<void, E>
}

/** What one failed review leaves: the record, the decision for the next try, and whether to warn of the stop now. */
export interface Failed {
  readonly record: FailureRecord
  readonly decision: Decision
  readonly warnStop: boolean
}

/** The policy at work over the records of every key. */
export interface Tracker<E> {
  /** Whether a review at `key` may call the model now for lines at `position`. */
  readonly check: (key: string, position: Position) => Effect.Effect<Decision, E>
  /** Counts a failed review at `key`; the stop is warned once per record. */
  readonly failed: (key: string, position: Position) => Effect.Effect<Failed, E>
  /** A review at `key` succeeded: the count starts again. */
  readonly succeeded: (key: string) => Effect.Effect<void, E>
}

/** A tracker for `policy`, its records cached in a `Ref` over `store`. */
export const make = <E>(policy: Policy, store: Store<E>): Effect.Effect<Tracker<E>> =>
  Effect.map(Ref.make(new Map<string, FailureRecord | undefined>()), (records) => {
    const get = (key: string) =>
      Effect.flatMap(Ref.get(records), (cached) =>
        cached.has(key)
          ? Effect.succeed(cached.get(key))
          : Effect.tap(store.load(key), (record) => Ref.update(records, (map) => new Map(map).set(key, record)))
      )
    const put = (key: string, record: FailureRecord | undefined) =>
      Effect.andThen(
        store.save(key, record),
        Ref.update(records, (map) => new Map(map).set(key, record))
      )
    return {
      check: (key, position) =>
        Effect.gen(function* () {
          const record = yield* get(key)
          return applies(record, position) ? yield* decide(policy, record, yield* Clock.currentTimeMillis) : tryNow
        }),
      failed: (key, position) =>
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const counted = fail(yield* get(key), position, now)
          const decision = yield* decide(policy, counted, now)
          const warnStop = decision._tag === "Stop" && !counted.stopWarned
          const record = warnStop ? { ...counted, stopWarned: true } : counted
          yield* put(key, record)
          return { record, decision, warnStop }
        }),
      succeeded: (key) =>
        Effect.flatMap(get(key), (record) => (record === undefined ? Effect.void : put(key, undefined)))
    }
  })
