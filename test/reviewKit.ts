/**
 * Helpers for the review's acceptance tests: the test kit's layer over the real file system with every log line
 * captured, and short ways to set up an agent, a conversation and memory, and to end a turn.
 */
import { NodeServices } from "@effect/platform-node"
import type { MemoryConfig } from "@mneme/core"
import { MemoryReview, MemoryRoot, MemoryStore, ReviewState } from "@mneme/review"
import * as Testing from "@mneme/review/testing"
import { Context, Effect, FileSystem, Layer, Logger, References } from "effect"
import { TestClock } from "effect/testing"

/** One captured log line. */
export interface LogLine {
  readonly level: string
  readonly message: string
  readonly annotations: Readonly<Record<string, unknown>>
}

/** The captured log lines, oldest first. */
export class Logs extends Context.Service<Logs, ReadonlyArray<LogLine>>()("test/Logs") {}

const logs = Layer.unwrap(
  Effect.sync(() => {
    const lines: Array<LogLine> = []
    const capture = Logger.make((options) => {
      const parts: ReadonlyArray<unknown> = Array.isArray(options.message) ? options.message : [options.message]
      lines.push({
        level: options.logLevel,
        message: parts.map(String).join(" "),
        annotations: options.fiber.getRef(References.CurrentLogAnnotations)
      })
    })
    return Layer.merge(Layer.succeed(Logs, lines), Logger.layer([capture]))
  })
)

/** The test kit's layer over the real file system, with logs captured. */
export const layer = (options: Testing.Options = {}) =>
  Testing.layer(options).pipe(Layer.provideMerge(NodeServices.layer), Layer.provideMerge(logs))

/** Everything the kit's layer provides. */
export type Services = Layer.Success<ReturnType<typeof layer>>

/** The log lines with this exact message. */
export const logged = (message: string) => Effect.map(Logs, (all) => all.filter((line) => line.message === message))

/** An agent "a1" named Ada owning conversation "b2". */
export const agent = { id: "a1", name: "Ada" } as const
export const conversation = "b2"
export const key = `chat:${conversation}`
export const own = { kind: "agent", agentId: agent.id } as const

/** Sets up agent "a1" and conversation "b2", with `entries` in its MEMORY.md. */
export const setUp = (options: { readonly mayWriteTeam?: boolean; readonly entries?: ReadonlyArray<string> } = {}) =>
  Effect.gen(function* () {
    const host = yield* Testing.TranscriptMemory
    yield* host.addAgent({ ...agent, mayWriteTeam: options.mayWriteTeam ?? false })
    yield* host.bind(conversation, agent.id)
    const store = yield* MemoryStore.MemoryStore
    for (const text of options.entries ?? []) {
      yield* store.add({ scope: own, text, actor: "test" })
    }
  })

/** Appends lines to conversation "b2". */
export const append = (...lines: ReadonlyArray<Testing.NewLine>) =>
  Effect.flatMap(Testing.TranscriptMemory, (host) => host.append(conversation, ...lines))

/** Ends a turn of `id`, lets the delay pass, and waits until every review is done. */
export const turn = (id: string = conversation) =>
  Effect.gen(function* () {
    const review = yield* MemoryReview.MemoryReview
    yield* review.turnEnded(id)
    yield* TestClock.adjust("2 seconds")
    yield* review.awaitIdle
  })

/** The requests the scripted model was sent. */
export const requests = Effect.flatMap(Testing.ScriptedModel, (model) => model.requests)

/** The cursor of conversation "b2". */
export const cursor = Effect.flatMap(ReviewState.ReviewState, (state) => state.cursor(key))

/** The memory root's folder. */
export const root = Effect.map(MemoryRoot.MemoryRoot, (port) => port.root)

/** The text of a file under the memory root, or "" when it is missing. */
export const file = (path: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const full = `${yield* root}/${path}`
    return (yield* fs.exists(full)) ? yield* fs.readFileString(full) : ""
  })

/** Writes a file under the memory root by hand (a person's edit), making its folder. */
export const writeFile = (path: string, content: string | Uint8Array) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const full = `${yield* root}/${path}`
    yield* fs.makeDirectory(full.slice(0, full.lastIndexOf("/")), { recursive: true })
    yield* typeof content === "string" ? fs.writeFileString(full, content) : fs.writeFile(full, content)
  })

/** The answer `{"changes": [...]}`. */
export const answer = (...changes: ReadonlyArray<object>) => JSON.stringify({ changes: changes })

/** Settings overrides, for tests that need them. */
export type Settings = Partial<MemoryConfig.Settings>
