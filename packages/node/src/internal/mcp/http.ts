/**
 * What `mneme mcp --http` serves: Effect's streamable HTTP endpoint for MCP, behind who may use it (a Host header that
 * names the served address, `hosts.ts`; the bearer token of MNEME_MCP_TOKEN, where there is one), with each session
 * ended once idle (`sessions.ts`). The server runs until it is stopped; a session its client ends, or that is ended
 * for being idle, ends nothing else.
 */
import { Cause, Console, Duration, Effect, Layer, Redacted } from "effect"
import { NetAddress } from "effect/net"
import { HttpEffect, HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
import { createHash, timingSafeEqual } from "node:crypto"
import { networkInterfaces } from "node:os"
import * as Txt from "../text.ts"
import * as Hosts from "./hosts.ts"
import * as Sessions from "./sessions.ts"

/** Whether an `Authorization` header carries the token, compared in constant time. */
export const bearerMatches = (header: string | undefined, token: Redacted.Redacted<string>): boolean => {
  const given = /^Bearer\s+(.+)$/i.exec(header ?? "")?.[1] ?? ""
  const digest = (text: string) => createHash("sha256").update(text, "utf8").digest()
  return given !== "" && timingSafeEqual(digest(given), digest(Redacted.value(token)))
}

/** What the endpoint is served with. */
export interface Options {
  /** The path the MCP endpoint is at (the one `mcp` registers). */
  readonly path: string
  /** The host `--http` named, whose addresses the Host header must name. */
  readonly listen: string
  /** The other host names a request may be addressed to (`--allow-host`). */
  readonly allowHosts: ReadonlyArray<string>
  /** The bearer token every request must carry, if any. */
  readonly token: Redacted.Redacted<string> | undefined
  /** How long a session may go without a request before it is ended (none: never). */
  readonly idle: Duration.Duration | undefined
}

/**
 * Serves `mcp` (the layer of Effect's MCP HTTP endpoint, `McpServer.layerHttp` with session termination allowed) on
 * the `HttpServer` in force, with the guard and the sessions' idle clocks of `options`.
 */
export const serve = <A, E>(mcp: Layer.Layer<A, E, HttpRouter.HttpRouter>, options: Options) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const app = yield* HttpRouter.toHttpEffect(mcp)

      const seconds = Duration.toSeconds(options.idle ?? Duration.zero)
      const idleFor =
        seconds % 60 === 0 ? Txt.plural(seconds / 60, "minute", "minutes") : Txt.plural(seconds, "second", "seconds")
      /** Ends the session `id` as its client's DELETE would, and says so. */
      const end = (id: string) =>
        app.pipe(
          Effect.provideService(
            HttpServerRequest.HttpServerRequest,
            HttpServerRequest.fromWeb(
              new Request(new URL(options.path, "http://localhost"), {
                method: "DELETE",
                headers: { [Sessions.sessionHeader]: id }
              })
            )
          ),
          Effect.scoped,
          Effect.flatMap((response) =>
            response.status === 204
              ? Console.error(
                  `mneme mcp: ended a session idle for ${idleFor}; its client starts a new one when it comes back`
                )
              : Effect.void
          ),
          Effect.catchCause((cause) =>
            Effect.logWarning(`mneme mcp: an idle session could not be ended: ${Cause.pretty(cause)}`)
          )
        )
      const sessions = yield* Sessions.make({ idle: options.idle, end })

      const address = (yield* HttpServer.HttpServer).address
      const inet = NetAddress.isInetAddress(address) ? address : undefined
      const hosts = Hosts.allowed(
        options.listen,
        inet === undefined ? options.listen : NetAddress.formatIp(inet.address),
        inet?.port ?? 0,
        Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((info) => info.address)),
        options.allowHosts
      )

      const handler = Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        if (!Hosts.admits(hosts, request.headers["host"])) {
          return HttpServerResponse.text(Hosts.refusal(hosts), { status: 403 })
        }
        if (options.token !== undefined && !bearerMatches(request.headers["authorization"], options.token)) {
          return HttpServerResponse.text("mneme: this server needs the bearer token of MNEME_MCP_TOKEN\n", {
            status: 401,
            headers: { "www-authenticate": 'Bearer realm="mneme"' }
          })
        }
        const id = request.headers[Sessions.sessionHeader]
        const response = yield* sessions.request(id, request.method, app)
        if (id === undefined) {
          // The session an `initialize` starts is named by a header set as the response goes out.
          yield* HttpEffect.appendPreResponseHandler((_, sent) => {
            const given = sent.headers[Sessions.sessionHeader]
            return given === undefined ? Effect.succeed(sent) : Effect.as(sessions.started(given), sent)
          })
        }
        return response
      })
      yield* HttpServer.serveEffect(handler)
    })
  )
