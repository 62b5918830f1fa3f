/**
 * The idle clocks of the MCP server's HTTP sessions, driven by the test clock: a session the server gave out is ended
 * once it has been idle for the time set, each request starts its clock again, a request that runs holds it, and a
 * session its client ended (or the server no longer knows) is never ended again; with no time set, none is ended.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber } from "effect"
import { HttpServerResponse } from "effect/http"
import { TestClock } from "effect/testing"
import * as Sessions from "../src/internal/mcp/sessions.ts"

/** Sessions idle after `idle`, and the ids they ended, in order. */
const sessionsWith = (idle: Duration.Duration | undefined) =>
  Effect.gen(function* () {
    const ended: Array<string> = []
    const sessions = yield* Sessions.make({ idle, end: (id) => Effect.sync(() => ended.push(id)) })
    return { sessions, ended }
  })

const answered = (status: number) => Effect.succeed(HttpServerResponse.empty({ status }))

describe("MCP HTTP sessions", () => {
  it.effect("a session is ended once idle, and each request starts its clock again", () =>
    Effect.gen(function* () {
      const { sessions, ended } = yield* sessionsWith(Duration.minutes(30))
      yield* sessions.started("a")
      yield* sessions.started("b")
      yield* TestClock.adjust(Duration.minutes(20))
      yield* sessions.request("a", "POST", answered(200))
      yield* TestClock.adjust(Duration.minutes(10))
      assert.deepStrictEqual(ended, ["b"])
      assert.strictEqual(yield* sessions.open, 1)
      yield* TestClock.adjust(Duration.minutes(19))
      assert.deepStrictEqual(ended, ["b"])
      yield* TestClock.adjust(Duration.minutes(1))
      assert.deepStrictEqual(ended, ["b", "a"])
      assert.strictEqual(yield* sessions.open, 0)
      // An ended session is not ended twice, and a request for it starts nothing.
      yield* sessions.request("a", "POST", answered(404))
      yield* TestClock.adjust(Duration.hours(2))
      assert.deepStrictEqual(ended, ["b", "a"])
    })
  )

  it.effect("a request that runs holds the clock, and the clock starts again from its end", () =>
    Effect.gen(function* () {
      const { sessions, ended } = yield* sessionsWith(Duration.minutes(30))
      yield* sessions.started("a")
      const done = yield* Deferred.make<void>()
      const running = yield* Effect.forkChild(
        sessions.request("a", "POST", Effect.andThen(Deferred.await(done), answered(200)))
      )
      yield* TestClock.adjust(Duration.hours(1))
      assert.deepStrictEqual(ended, [])
      yield* Deferred.succeed(done, undefined)
      yield* Fiber.join(running)
      yield* TestClock.adjust(Duration.minutes(29))
      assert.deepStrictEqual(ended, [])
      yield* TestClock.adjust(Duration.minutes(1))
      assert.deepStrictEqual(ended, ["a"])
    })
  )

  it.effect("a session its client ended, or that the server no longer knows, is dropped, not ended again", () =>
    Effect.gen(function* () {
      const { sessions, ended } = yield* sessionsWith(Duration.minutes(30))
      yield* sessions.started("a")
      yield* sessions.started("b")
      yield* sessions.started("c")
      yield* sessions.request("a", "DELETE", answered(204))
      yield* sessions.request("b", "POST", answered(404))
      // A refused request of a session (a bad header) leaves it open, its clock started again.
      yield* sessions.request("c", "POST", answered(400))
      assert.strictEqual(yield* sessions.open, 1)
      yield* TestClock.adjust(Duration.minutes(30))
      assert.deepStrictEqual(ended, ["c"])
    })
  )

  it.effect("a session id the server never gave out starts no clock", () =>
    Effect.gen(function* () {
      const { sessions, ended } = yield* sessionsWith(Duration.minutes(30))
      yield* sessions.request("made-up", "POST", answered(200))
      yield* sessions.request(undefined, "POST", answered(200))
      assert.strictEqual(yield* sessions.open, 0)
      yield* TestClock.adjust(Duration.hours(1))
      assert.deepStrictEqual(ended, [])
    })
  )

  it.effect("with no idle time set, no session is ended", () =>
    Effect.gen(function* () {
      const { sessions, ended } = yield* sessionsWith(Sessions.idleOf(0))
      yield* sessions.started("a")
      yield* TestClock.adjust(Duration.days(30))
      assert.deepStrictEqual(ended, [])
      assert.strictEqual(yield* sessions.open, 1)
      assert.deepStrictEqual(Sessions.idleOf(90), Duration.seconds(90))
    })
  )
})
