/**
 * The HTTP sessions of `mneme mcp --http`, ended once idle. A client that goes away without ending its session (a
 * closed laptop, a killed editor) would otherwise keep it, with what the server holds for it, for as long as the
 * server runs. Each session the server gives out has a clock: held while one of its requests runs, started again when
 * the last one ends, and at `idle` the session is ended as a client's DELETE would end it; its client then gets 404
 * and, as MCP asks of it, starts a new session. A session its client ended, or that the server no longer knows, is
 * dropped.
 */
import { Duration, Effect, FiberMap, Ref, type Scope } from "effect"
import type { HttpServerResponse } from "effect/http"

/** The header that names a request's session, and the response to `initialize` gives out. */
export const sessionHeader = "mcp-session-id"

/** The sessions' clocks. */
export interface Sessions {
  /** A session the server gave out (the response to an `initialize`): its clock starts. */
  readonly started: (id: string) => Effect.Effect<void>
  /**
   * Handles a request of the session `id` (none for one that starts a session): its clock held meanwhile, and
   * started again after; the session dropped when the response says it is gone (a DELETE answered 204, or 404).
   */
  readonly request: <E, R>(
    id: string | undefined,
    method: string,
    handle: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  /** How many sessions are open. */
  readonly open: Effect.Effect<number>
}

/**
 * Sessions that `end` once they have been idle for `idle` (none: never), in the scope's life. `end` runs whole, even
 * when a request of the session comes meanwhile (that request then finds the session gone).
 */
export const make = Effect.fnUntraced(function* (options: {
  readonly idle: Duration.Duration | undefined
  readonly end: (id: string) => Effect.Effect<void>
}): Effect.fn.Return<Sessions, never, Scope.Scope> {
  const timers = yield* FiberMap.make<string>()
  // The requests running per session the server gave out: a session is known while it has an entry.
  const running = yield* Ref.make<ReadonlyMap<string, number>>(new Map())
  const { idle, end } = options

  /** `running` with the count of `id` set (none: forgotten). */
  const withCount = (counts: ReadonlyMap<string, number>, id: string, count: number | undefined) => {
    const next = new Map(counts)
    if (count === undefined) next.delete(id)
    else next.set(id, count)
    return next
  }
  const forget = (id: string) => Ref.update(running, (counts) => withCount(counts, id, undefined))

  const idleFrom = (id: string) =>
    idle === undefined
      ? Effect.void
      : Effect.asVoid(
          FiberMap.run(
            timers,
            id,
            Effect.andThen(Effect.sleep(idle), Effect.uninterruptible(Effect.andThen(end(id), forget(id))))
          )
        )
  const drop = (id: string) => Effect.andThen(forget(id), FiberMap.remove(timers, id))

  const started = (id: string) =>
    Effect.flatMap(
      Ref.modify(running, (counts) => (counts.has(id) ? [false, counts] : [true, withCount(counts, id, 0)])),
      (added) => (added ? idleFrom(id) : Effect.void)
    )

  const begin = (id: string) =>
    Effect.flatMap(
      Ref.modify(running, (counts) => {
        const count = counts.get(id)
        return count === undefined ? [false, counts] : [true, withCount(counts, id, count + 1)]
      }),
      (known) => (known ? FiberMap.remove(timers, id) : Effect.void)
    )

  const finish = (id: string) =>
    Effect.flatMap(
      Ref.modify(running, (counts) => {
        const count = counts.get(id)
        return count === undefined ? [false, counts] : [count === 1, withCount(counts, id, count - 1)]
      }),
      (idleNow) => (idleNow ? idleFrom(id) : Effect.void)
    )

  const request = <E, R>(
    id: string | undefined,
    method: string,
    handle: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ) =>
    id === undefined
      ? handle
      : Effect.andThen(
          begin(id),
          handle.pipe(
            Effect.onExit((exit) =>
              exit._tag === "Success" &&
              (exit.value.status === 404 || (method === "DELETE" && exit.value.status === 204))
                ? drop(id)
                : finish(id)
            )
          )
        )

  return { started, request, open: Effect.map(Ref.get(running), (counts) => counts.size) }
})

/** `seconds` as the idle time of `make`: none for 0 (sessions are never ended for being idle). */
export const idleOf = (seconds: number): Duration.Duration | undefined =>
  seconds === 0 ? undefined : Duration.seconds(seconds)
