/**
 * The server `mneme mcp` runs (see `mcp.ts`): loaded only when the command runs, as the MCP server, HTTP and the
 * conversation logs are a good part of what the CLI would otherwise load for every command.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { MemoryConfig, ModelError } from "@mneme/core"
import { Memory, MemoryReview, ReviewModel } from "@mneme/review"
import {
  Cause,
  Config,
  Console,
  Context,
  Deferred,
  Duration,
  Effect,
  Exit,
  Fiber,
  Layer,
  Option,
  Redacted,
  References,
  Result
} from "effect"
import { McpServer } from "effect/ai"
import { HttpServer } from "effect/http"
import { createServer } from "node:http"
import * as ConversationLog from "../../ConversationLog.ts"
import * as MemoryMcp from "../../MemoryMcp.ts"
import * as NodePlatform from "../../NodePlatform.ts"
import * as Hosts from "../mcp/hosts.ts"
import * as McpHttp from "../mcp/http.ts"
import * as Sessions from "../mcp/sessions.ts"
import * as McpStdio from "../mcp/stdio.ts"
import * as Txt from "../text.ts"
import { limits, memoryLocation, mneme, UsageError, version } from "./common.ts"
import * as MemoryLocation from "./memoryLocation.ts"
import { chooseModel } from "./model.ts"

/** The path streamable HTTP is served at. */
export const httpPath = "/mcp"

/** What `review_turn` says when no model is configured. */
const noReview =
  "start mneme mcp with --model replay:FILE or --model <URL>, or set MNEME_BASE_URL (with MNEME_MODEL and " +
  "MNEME_API_KEY) for an OpenAI-compatible server"

// ---------------------------------------------------------------------------------------------------------------------
// The address

/** Where the HTTP server listens, and whether that is this machine only. */
interface Address {
  readonly host: string
  readonly port: number
  readonly loopback: boolean
}

const isLoopback = (host: string) => host === "localhost" || host === "::1" || /^127(?:\.\d{1,3}){3}$/.test(host)

/** `--http`'s value: `PORT` (on 127.0.0.1), `HOST:PORT` or `[IPv6]:PORT`, or what is wrong with it. */
export const parseAddress = (given: string): Result.Result<Address, string> => {
  const match = /^(?:(?:\[([^\]]+)\]|([^:[\]]+)):)?(\d{1,5})$/.exec(given.trim())
  const port = Number(match?.[3])
  if (match === null || port > 65_535) {
    return Result.fail(
      `--http takes PORT or HOST:PORT (such as 127.0.0.1:8765, or [::1]:8765), not ${JSON.stringify(given)}`
    )
  }
  const host = match[1] ?? match[2] ?? "127.0.0.1"
  return Result.succeed({ host, port, loopback: isLoopback(host) })
}

// ---------------------------------------------------------------------------------------------------------------------
// The command

/** The review's model: the one `--model` or the environment gives, or none (then reviews are off). */
const reviewModel = Effect.fnUntraced(function* (model: Option.Option<string>) {
  if (Option.isNone(model) && Option.isNone(yield* Config.option(Config.String("MNEME_BASE_URL")))) return undefined
  return yield* chooseModel(model)
})

/** A model for a server without one: the review is off, so it is never asked. */
const noModel = ReviewModel.layer(() => Effect.fail(new ModelError({ reason: `no model is configured: ${noReview}` })))

/**
 * mneme over `location` for the server, with the conversation logs: a memory folder keeps them in its own
 * `conversations/` folder (`MemoryMcp.services`); with Postgres they are in `logs/conversations/`, appended under
 * the database root's single writer, as every change is.
 */
const servicesAt = (location: MemoryLocation.Location, logs: string, agentId: string) => {
  if (location._tag === "Folder") return MemoryMcp.services({ root: location.path, agentId })
  const root = MemoryLocation.rootLayer(location)
  const log = ConversationLog.layer({ root: logs }).pipe(Layer.provide(root))
  return Memory.layerOver(root).pipe(Layer.provide(ConversationLog.layerPorts(agentId)), Layer.provideMerge(log))
}

/**
 * The folder the conversation logs are kept under for the memory of `location`: the memory folder itself, or with
 * Postgres the one `--logs` names (required there, refused with a folder).
 */
const logsFolder = (location: MemoryLocation.Location, logs: Option.Option<string>) => {
  if (location._tag === "Folder") {
    return Option.isNone(logs)
      ? Effect.succeed(location.path)
      : Effect.fail(
          new UsageError({
            reason:
              "--logs is for --memory postgres://…: a memory folder keeps its conversation logs in its " +
              "conversations/ folder"
          })
        )
  }
  return Option.isSome(logs) && logs.value.trim() !== ""
    ? Effect.succeed(logs.value)
    : Effect.fail(
        new UsageError({
          reason:
            "with --memory postgres://…, mneme mcp needs --logs DIR: the folder on this machine where the " +
            "conversation logs of review_turn are kept (in DIR/conversations/), as they are not kept in the database"
        })
      )
}

/**
 * Runs a server layer until it ends by itself (the end of standard input) or the run is stopped (SIGINT or SIGTERM
 * interrupt it): the server is stopped first, so no request is taken while the reviews finish. A failure to start is
 * the run's.
 */
const serveUntilEnd = <A, E, R>(server: Layer.Layer<A, E, R>) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.forkChild(Layer.launch(server))
    const exit = yield* Fiber.await(fiber).pipe(Effect.onInterrupt(() => Fiber.interrupt(fiber)))
    if (Exit.isFailure(exit) && !Cause.hasInterruptsOnly(exit.cause)) return yield* Effect.failCause(exit.cause)
  })

/** `use` given an effect that completes once SIGINT or SIGTERM comes (again, on the way out: the first stopped the server). */
const withSignal = <A, E, R>(use: (signal: Effect.Effect<void>) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(Deferred.make<void>(), (signal) => {
    const on = () => Deferred.doneUnsafe(signal, Effect.void)
    return Effect.acquireUseRelease(
      Effect.sync(() => {
        process.once("SIGINT", on)
        process.once("SIGTERM", on)
      }),
      () => use(Deferred.await(signal)),
      () =>
        Effect.sync(() => {
          process.off("SIGINT", on)
          process.off("SIGTERM", on)
        })
    )
  })

/** The flags of `mneme mcp` (see `mcp`). */
export interface Options {
  readonly http: Option.Option<string>
  readonly allowRemote: boolean
  readonly allowHost: ReadonlyArray<string>
  readonly model: Option.Option<string>
  readonly logs: Option.Option<string>
  readonly grace: number
  readonly sessionIdle: number
}

/** Runs `mneme mcp` with its flags: serves until the client closes (stdio) or the server is stopped. */
export const serve = (input: Options) =>
  Effect.flatMap(Effect.all([mneme, References.MinimumLogLevel]), ([global, logLevel]) =>
    Effect.gen(function* () {
      const problem = MemoryMcp.agentProblem(global.agent)
      if (problem !== undefined) return yield* new UsageError({ reason: problem })
      if (input.grace < 0) return yield* new UsageError({ reason: "--grace must be 0 seconds or more" })
      if (input.sessionIdle < 0) {
        return yield* new UsageError({ reason: "--session-idle must be 0 seconds (never) or more" })
      }
      const location = yield* memoryLocation
      const logs = yield* logsFolder(location, input.logs)
      const address = Option.isNone(input.http) ? undefined : parseAddress(input.http.value)
      if (address !== undefined && Result.isFailure(address)) {
        return yield* new UsageError({ reason: address.failure })
      }
      const listen = address?.success
      if (listen === undefined && input.allowHost.length > 0) {
        return yield* new UsageError({ reason: "--allow-host is for --http: standard input and output have no host" })
      }
      const badHost = input.allowHost.map(Hosts.nameProblem).find((problem) => problem !== undefined)
      if (badHost !== undefined) return yield* new UsageError({ reason: badHost })
      const token = Option.getOrUndefined(
        Option.filter(yield* Config.option(Config.Redacted("MNEME_MCP_TOKEN")), (value) => Redacted.value(value) !== "")
      )
      if (listen !== undefined && !listen.loopback && !input.allowRemote) {
        return yield* new UsageError({
          reason: `--http ${listen.host} is not this machine's own address: pass --allow-remote (with MNEME_MCP_TOKEN set) to serve other machines, or listen on 127.0.0.1`
        })
      }
      if (listen !== undefined && !listen.loopback && token === undefined) {
        return yield* new UsageError({
          reason: "--allow-remote needs MNEME_MCP_TOKEN: the bearer token every request must carry"
        })
      }
      const model = yield* reviewModel(input.model)
      const settings = MemoryConfig.layer({
        ...(yield* limits),
        ...(model === undefined ? { reviewEnabled: false } : {})
      })
      const context = yield* Layer.build(
        servicesAt(location, logs, global.agent).pipe(
          Layer.provide(Layer.mergeAll(model ?? noModel, NodePlatform.layer)),
          Layer.provide(settings)
        )
      )
      const registrations = MemoryMcp.registrations({
        agentId: global.agent,
        noReview: model === undefined ? noReview : undefined
      }).pipe(Layer.provide(Layer.mergeAll(Layer.succeedContext(context), settings)))
      const server = {
        name: "mneme",
        version,
        instructions: MemoryMcp.instructions,
        protocols: MemoryMcp.protocols,
        registrations
      }
      const serving = `mneme mcp: serving the memory of the agent ${JSON.stringify(global.agent)} in ${location.shown}`
      const review = Context.get(context, MemoryReview.MemoryReview)
      const seconds = (count: number) => Txt.plural(count, "second", "seconds")
      /** Lets the reviews still waiting finish within `--grace` (or until SIGINT or SIGTERM comes again). */
      const close = (why: string) =>
        Effect.gen(function* () {
          const pending = yield* review.pending
          if (pending === 0) return
          const left = (reason: string) =>
            Console.error(
              `mneme mcp: stopped waiting ${reason}; the lines of the reviews left are kept in their conversation logs and are reviewed after their next turn end`
            )
          yield* withSignal((signal) =>
            Effect.andThen(
              Console.error(
                `mneme mcp: ${why}; waiting for ${Txt.plural(pending, "review", "reviews")} to finish (at most ${seconds(input.grace)})`
              ),
              Effect.raceFirst(
                review.awaitIdle.pipe(
                  Effect.timeoutOption(Duration.seconds(input.grace)),
                  Effect.flatMap((idle) => (Option.isNone(idle) ? left(`after ${seconds(input.grace)}`) : Effect.void))
                ),
                Effect.andThen(signal, left("as asked"))
              )
            )
          )
        })
      const closed = Effect.onExit((exit: Exit.Exit<unknown, unknown>) =>
        close(Exit.hasInterrupts(exit) ? "stopping" : "the client closed")
      )
      // Said once the server is up: its memory read, its registrations made, its address bound.
      if (listen === undefined) {
        const stdio = Layer.effectDiscard(Console.error(`${serving} on standard input and output`)).pipe(
          Layer.provide(McpServer.layerStdio(server).pipe(Layer.provide(McpStdio.layer)))
        )
        return yield* serveUntilEnd(stdio).pipe(closed)
      }
      const http = Layer.effectDiscard(
        HttpServer.addressFormattedWith((url) => Console.error(`${serving} at ${url}${httpPath}`))
      ).pipe(
        Layer.provide(
          McpHttp.serve(McpServer.layerHttp({ ...server, path: httpPath, allowSessionTermination: true }), {
            path: httpPath,
            listen: listen.host,
            allowHosts: input.allowHost,
            token,
            idle: Sessions.idleOf(input.sessionIdle)
          })
        ),
        Layer.provide(NodeHttpServer.layerServer(createServer, { host: listen.host, port: listen.port }))
      )
      return yield* serveUntilEnd(http).pipe(closed)
    }).pipe(
      Effect.scoped,
      // A server's warnings (a failed review) are for its log, on stderr, unless a log level was asked for.
      Effect.provideService(References.MinimumLogLevel, logLevel === "None" ? "Warn" : logLevel)
    )
  )
