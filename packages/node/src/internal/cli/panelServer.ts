/**
 * What `mneme panel` runs (see `panel.ts`): loaded only when the command runs, as the panel's server and pages are a
 * good part of what the CLI would otherwise load for every command.
 */
import { MaskedTaggedError, MemoryConfig } from "@mneme/core"
import { MemoryStore, ReviewModel, ReviewState } from "@mneme/review"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Config, Console, Context, Effect, Layer, Option, Schema } from "effect"
import { createServer } from "node:http"
import * as NodePlatform from "../../NodePlatform.ts"
import * as Guard from "../panel/guard.ts"
import * as Server from "../panel/server.ts"
import { limits, memoryLocation, output, print, printJson, UsageError } from "./common.ts"
import * as MemoryLocation from "./memoryLocation.ts"
import { chooseModel } from "./model.ts"

/** The panel could not listen on the address asked for. */
export class CannotServe extends MaskedTaggedError<CannotServe>()("CannotServe", {
  address: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `cannot serve the panel on ${this.address}: ${this.detail} (choose another with --port, or --port 0 for any free one)`
  }
}

/** A model's layer when one is configured (`--model`, or MNEME_BASE_URL), else none. */
const modelIfConfigured = Effect.fnUntraced(function* (model: Option.Option<string>) {
  if (Option.isNone(model) && Option.isNone(yield* Config.option(Config.String("MNEME_BASE_URL")))) return undefined
  return yield* chooseModel(model)
})

/** What the panel says where a model is needed and none is configured. */
const howToConfigure =
  "Start the panel with --model replay:FILE (recorded answers) or --model <URL> (an OpenAI-compatible server), " +
  "or set MNEME_BASE_URL, with MNEME_MODEL and MNEME_API_KEY, before starting it"

/** The flags of `mneme panel` (see `panel`). */
export interface Options {
  readonly port: number
  readonly host: string
  readonly model: Option.Option<string>
  readonly transcripts: Option.Option<string>
}

/** Runs `mneme panel` with its flags: serves the panel until stopped. */
export const serve = Effect.fn("mneme.panel")(function* (input: Options) {
  const location = yield* memoryLocation
  const out = yield* output
  if (!Number.isSafeInteger(input.port) || input.port < 0 || input.port > 65535) {
    return yield* new UsageError({ reason: `--port must be a port number from 0 to 65535, not ${input.port}` })
  }
  if (input.host.trim() === "") return yield* new UsageError({ reason: "--host needs an address, e.g. 127.0.0.1" })
  const settings = yield* limits
  const chosen = yield* modelIfConfigured(input.model)
  const model = chosen === undefined ? undefined : Context.get(yield* Layer.build(chosen), ReviewModel.ReviewModel)
  const memory = Layer.mergeAll(MemoryStore.layer, ReviewState.layer).pipe(
    Layer.provideMerge(MemoryLocation.rootLayer(location)),
    Layer.provideMerge(NodePlatform.layer),
    Layer.provideMerge(MemoryConfig.layer(settings))
  )
  const server = Server.layer({
    root: location.shown,
    host: input.host,
    transcripts: Option.getOrUndefined(input.transcripts),
    model,
    howToConfigure
  }).pipe(
    Layer.provide(memory),
    Layer.provide(NodeHttpServer.layer(createServer, { port: input.port, host: input.host }))
  )
  const served = yield* Layer.build(server).pipe(
    Effect.catchTag("ServeError", (error) =>
      Effect.fail(
        new CannotServe({
          address: `${Guard.urlHost(input.host)}:${input.port}`,
          detail: error.cause instanceof Error ? error.cause.message : String(error.cause)
        })
      )
    )
  )
  const { address, link } = Context.get(served, Server.Panel)
  if (out.json) {
    yield* printJson({ memory: location.shown, address, link, model: model !== undefined })
  } else {
    yield* print([
      `mneme panel: memory in ${location.shown}, served at ${address}`,
      "Open this link to use it (it holds the access token: keep it to yourself):",
      `  ${link}`,
      model === undefined
        ? out.paint.dim("No model is configured: the ask box and the summary say how to configure one.")
        : out.paint.dim("The ask box, the summary and review now use the model configured."),
      "Stop it with Ctrl-C."
    ])
  }
  if (!Guard.isLoopback(input.host)) {
    yield* Console.error(
      `mneme: the panel listens on ${input.host}, not only on this machine: anyone who can reach it and has the ` +
        "link can read and change this memory"
    )
  }
  return yield* Effect.never
}, Effect.scoped)
