/**
 * One run of the memory panel: what it serves and with what, the keys its guard checks (made when the server listens,
 * as its port is known then), the link it prints, and the proposals of the ask box waiting for the person.
 */
import type { ReviewModel } from "@mneme/review"
import { Context, Effect, Layer, Ref } from "effect"
import { HttpServer } from "effect/http"
import { networkInterfaces } from "node:os"
import type * as Ask from "./ask.ts"
import * as Guard from "./guard.ts"

/** What the panel serves and with what. */
export interface Options {
  /** The memory root as shown: a folder as the person named it, or a Postgres database without its password. */
  readonly root: string
  /** The address to listen on (127.0.0.1 unless the person says otherwise). */
  readonly host: string
  /** The folder of JSONL transcripts conversations can be reviewed from, if any. */
  readonly transcripts: string | undefined
  /** The model of the ask box, the summary and "review now"; `undefined` when none is configured. */
  readonly model: ReviewModel.ReviewModel["Service"] | undefined
  /** What to do to configure a model, said where one is needed. */
  readonly howToConfigure: string
}

/** A proposal of the ask box waiting for the person to confirm it. */
export interface Pending {
  readonly agentId: string
  readonly proposal: Ask.Proposal
}

/** The most proposals kept waiting at once (the oldest is dropped past it). */
export const pendingMax = 50

/** One run of the panel: its options, its keys, the link it printed, the proposals waiting. */
export class Panel extends Context.Service<
  Panel,
  {
    readonly options: Options
    readonly keys: Guard.Keys
    /** The address served, for people: `http://127.0.0.1:4177/`. */
    readonly address: string
    /** The address with the access token, to open. */
    readonly link: string
    readonly pending: Ref.Ref<ReadonlyMap<string, Pending>>
  }
>()("@mneme/node/internal/panel/Panel") {
  /** The panel's keys and link, made when the server listens (its port is known then). */
  static readonly layer = (options: Options) =>
    Layer.effect(
      Panel,
      Effect.gen(function* () {
        const server = yield* HttpServer.HttpServer
        const port = "port" in server.address ? server.address.port : 0
        const interfaces = Object.values(networkInterfaces()).flatMap((list) =>
          (list ?? []).map((info) => info.address)
        )
        const keys: Guard.Keys = {
          token: Guard.randomToken(),
          secret: Guard.randomToken(),
          hosts: Guard.hostsFor(options.host, port, interfaces),
          cookie: Guard.cookieName(port)
        }
        const shown = ["0.0.0.0", "::", "[::]"].includes(options.host) ? "127.0.0.1" : options.host
        const address = `http://${Guard.urlHost(shown)}:${port}/`
        return Panel.of({
          options,
          keys,
          address,
          link: `${address}?token=${keys.token}`,
          pending: yield* Ref.make<ReadonlyMap<string, Pending>>(new Map())
        })
      })
    )
}
