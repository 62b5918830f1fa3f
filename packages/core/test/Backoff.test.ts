import { assert, describe, it } from "@effect/vitest"
import { Effect, Ref, Schedule } from "effect"
import { TestClock } from "effect/testing"
import * as Backoff from "../src/Backoff.ts"

const at = (cursor: number | null, newestUserSeq: number): Backoff.Position => ({ cursor, newestUserSeq })

/** A record of `failures` failed reviews at cursor 9, all at time `at` unless `times` says otherwise. */
const record = (
  failures: number,
  overrides: Partial<Backoff.FailureRecord> & { readonly at?: number } = {}
): Backoff.FailureRecord => {
  const { at: time = 0, ...rest } = overrides
  return {
    cursor: 9,
    newestUserSeq: 10,
    times: Array.from({ length: failures }, () => time),
    stopWarned: false,
    ...rest
  }
}

const stop = (failures: number, until?: number): Backoff.Decision => ({ _tag: "Stop", until, failures })

/** A tracker over an in-memory store, with the store's contents and the number of saves to look at. */
const tracker = (policy: Backoff.Policy, initial: ReadonlyArray<readonly [string, Backoff.FailureRecord]> = []) =>
  Effect.gen(function* () {
    const saved = yield* Ref.make(new Map<string, Backoff.FailureRecord | undefined>(initial))
    const loads = yield* Ref.make(0)
    const store: Backoff.Store<never> = {
      load: (key) =>
        Effect.andThen(
          Ref.update(loads, (n) => n + 1),
          Effect.map(Ref.get(saved), (map) => map.get(key))
        ),
      save: (key, value) => Ref.update(saved, (map) => new Map(map).set(key, value))
    }
    return { tracker: yield* Backoff.make(policy, store), saved, loads }
  })

describe("Backoff", () => {
  it.effect("the default policy allows two failed reviews at one cursor, then stops until the lines change", () =>
    Effect.gen(function* () {
      const policy = Backoff.policy(2)
      assert.deepStrictEqual(yield* Backoff.decide(policy, undefined, 0), { _tag: "Try" })
      assert.deepStrictEqual(yield* Backoff.decide(policy, record(1), 0), { _tag: "Try" })
      assert.deepStrictEqual(yield* Backoff.decide(policy, record(2), 0), stop(2))
      assert.deepStrictEqual(yield* Backoff.decide(policy, record(5), 10_000_000), stop(5))
      assert.deepStrictEqual(yield* Backoff.decide(Backoff.policy(3), record(2), 0), { _tag: "Try" })
      assert.deepStrictEqual(yield* Backoff.decide(Backoff.policy(1), record(1), 0), stop(1))
    })
  )

  it("a record applies at its own cursor while no newer user line came", () => {
    assert.isTrue(Backoff.applies(record(2), at(9, 10)))
    assert.isFalse(Backoff.applies(record(2), at(11, 10)), "the cursor moved")
    assert.isFalse(Backoff.applies(record(2), at(9, 12)), "a newer user line")
    assert.isFalse(Backoff.applies(undefined, at(9, 10)))
    assert.isTrue(Backoff.applies(record(1, { cursor: null }), at(null, 3)))
  })

  it("a failure counts on where the record applies and starts over where it does not", () => {
    assert.deepStrictEqual(Backoff.fail(record(1), at(9, 10), 50), record(2, { times: [0, 50] }))
    assert.deepStrictEqual(
      Backoff.fail(record(2, { stopWarned: true }), at(9, 14), 70),
      record(1, { newestUserSeq: 14, at: 70 })
    )
    assert.deepStrictEqual(
      Backoff.fail(undefined, at(null, -1), 5),
      record(1, { cursor: null, newestUserSeq: -1, at: 5 })
    )
  })

  it.effect("the tracker stops after two failures, warns the stop once, and starts over on a success", () =>
    Effect.gen(function* () {
      const { tracker: t, saved } = yield* tracker(Backoff.policy(2))
      const first = yield* t.failed("chat:a", at(9, 10))
      assert.deepStrictEqual(first.decision, { _tag: "Try" })
      assert.isFalse(first.warnStop)
      assert.deepStrictEqual(yield* t.check("chat:a", at(9, 10)), { _tag: "Try" })
      const second = yield* t.failed("chat:a", at(9, 10))
      assert.deepStrictEqual(second.decision, stop(2))
      assert.isTrue(second.warnStop)
      assert.deepStrictEqual((yield* Ref.get(saved)).get("chat:a"), record(2, { stopWarned: true }))
      assert.deepStrictEqual(yield* t.check("chat:a", at(9, 10)), stop(2))
      const third = yield* t.failed("chat:a", at(9, 10))
      assert.isFalse(third.warnStop, "the stop is warned once")
      assert.strictEqual(third.record.times.length, 3)
      assert.deepStrictEqual(yield* t.check("chat:b", at(9, 10)), { _tag: "Try" }, "another key has its own count")
      yield* t.succeeded("chat:a")
      assert.strictEqual((yield* Ref.get(saved)).get("chat:a"), undefined)
      assert.deepStrictEqual(yield* t.check("chat:a", at(9, 10)), { _tag: "Try" })
    })
  )

  it.effect("a newer user line or a moved cursor gives the lines two more tries", () =>
    Effect.gen(function* () {
      const { tracker: t } = yield* tracker(Backoff.policy(2))
      yield* t.failed("chat:a", at(9, 10))
      yield* t.failed("chat:a", at(9, 10))
      assert.deepStrictEqual(yield* t.check("chat:a", at(9, 12)), { _tag: "Try" })
      assert.deepStrictEqual(yield* t.check("chat:a", at(10, 10)), { _tag: "Try" })
      const again = yield* t.failed("chat:a", at(9, 12))
      assert.strictEqual(again.record.times.length, 1)
      assert.isFalse(again.record.stopWarned)
      assert.isTrue((yield* t.failed("chat:a", at(9, 12))).warnStop, "a new stop is warned again")
    })
  )

  it.effect("records are read from the store once and survive a new tracker over it", () =>
    Effect.gen(function* () {
      const { tracker: t, loads } = yield* tracker(Backoff.policy(2), [["chat:a", record(2, { stopWarned: true })]])
      assert.deepStrictEqual(yield* t.check("chat:a", at(9, 10)), stop(2))
      assert.deepStrictEqual(yield* t.check("chat:a", at(9, 10)), stop(2))
      assert.strictEqual(yield* Ref.get(loads), 1)
      assert.isFalse((yield* t.failed("chat:a", at(9, 10))).warnStop, "a stop warned before the restart stays warned")
    })
  )

  it.effect("a cool-down policy allows one more try each time the cool-down has passed", () =>
    Effect.gen(function* () {
      const { tracker: t } = yield* tracker(Backoff.coolDown(2, "10 minutes"))
      yield* t.failed("chat:a", at(9, 10))
      const second = yield* t.failed("chat:a", at(9, 10))
      assert.deepStrictEqual(second.decision, stop(2, 600_000))
      assert.isTrue(second.warnStop)
      yield* TestClock.adjust("9 minutes")
      assert.deepStrictEqual(yield* t.check("chat:a", at(9, 10)), stop(2, 600_000))
      yield* TestClock.adjust("1 minute")
      assert.deepStrictEqual(yield* t.check("chat:a", at(9, 10)), { _tag: "Try" })
      const third = yield* t.failed("chat:a", at(9, 10))
      assert.deepStrictEqual(third.decision, stop(3, 1_200_000))
      assert.isFalse(third.warnStop)
      yield* TestClock.adjust("10 minutes")
      assert.deepStrictEqual(yield* t.check("chat:a", at(9, 10)), { _tag: "Try" })
    })
  )
})

describe("the failure policy steps its schedule with each failure's real time", () => {
  it.effect("a schedule capped in time stops allowing tries once failures span the cap", () =>
    Effect.gen(function* () {
      const { tracker: t } = yield* tracker(Schedule.spaced("1 minute").pipe(Schedule.upTo({ duration: "5 minutes" })))
      const decisions: Array<string> = []
      for (let minute = 0; minute <= 7; minute++) {
        yield* t.failed("chat:a", at(9, 10))
        yield* TestClock.adjust("1 minute")
        decisions.push((yield* t.check("chat:a", at(9, 10)))._tag)
      }
      assert.deepStrictEqual(decisions, ["Try", "Try", "Try", "Try", "Try", "Try", "Stop", "Stop"])
      yield* TestClock.adjust("1 hour")
      assert.strictEqual((yield* t.check("chat:a", at(9, 10)))._tag, "Stop")
    })
  )

  it.effect("an exponential back-off waits twice as long after each failure, from the failure's time", () =>
    Effect.gen(function* () {
      const { tracker: t } = yield* tracker(Schedule.exponential("1 minute"))
      const first = yield* t.failed("chat:a", at(9, 10))
      assert.strictEqual(first.decision._tag === "Stop" ? first.decision.until : undefined, 60_000)
      yield* TestClock.adjust("1 minute")
      assert.strictEqual((yield* t.check("chat:a", at(9, 10)))._tag, "Try")
      const second = yield* t.failed("chat:a", at(9, 10))
      assert.strictEqual(second.decision._tag === "Stop" ? second.decision.until : undefined, 60_000 + 120_000)
      yield* TestClock.adjust("119 seconds")
      assert.strictEqual((yield* t.check("chat:a", at(9, 10)))._tag, "Stop")
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* t.check("chat:a", at(9, 10)))._tag, "Try")
      const third = yield* t.failed("chat:a", at(9, 10))
      assert.strictEqual(third.decision._tag === "Stop" ? third.decision.until : undefined, 180_000 + 240_000)
    })
  )

  it.effect("a cool-down counts from the latest failure's own time", () =>
    Effect.gen(function* () {
      const { tracker: t, saved } = yield* tracker(Backoff.coolDown(2, "10 minutes"))
      yield* t.failed("chat:a", at(9, 10))
      yield* TestClock.adjust("3 minutes")
      const second = yield* t.failed("chat:a", at(9, 10))
      assert.deepStrictEqual(second.decision._tag === "Stop" ? second.decision.until : undefined, 780_000)
      yield* TestClock.adjust("9 minutes")
      assert.strictEqual((yield* t.check("chat:a", at(9, 10)))._tag, "Stop")
      yield* TestClock.adjust("1 minute")
      assert.strictEqual((yield* t.check("chat:a", at(9, 10)))._tag, "Try")
      assert.deepStrictEqual((yield* Ref.get(saved)).get("chat:a")?.times, [0, 180_000])
    })
  )
})
