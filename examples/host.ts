/**
 * mneme composed into an Effect host: the host's transcript and agents as mneme's ports, mneme over a memory folder
 * (`Memory.layer`), and the host's turn loop telling the review when turns start and end.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import type { Lines } from "@mneme/core"
import { NodePlatform, OpenAiCompat } from "@mneme/node"
import { Agents, Memory, MemoryReview, type ReviewModel, Transcript } from "@mneme/review"
import { Effect, Layer, Stream } from "effect"

/** The host's own conversation log (here, an array per conversation). */
export const log = new Map<string, Array<Lines.Line>>()

/** The host's transcript and agents, as the ports mneme reads them through. */
const HostPorts = Layer.mergeAll(
  Layer.succeed(
    Transcript.Transcript,
    Transcript.Transcript.of({
      newestFirst: (conversationId) => Stream.fromIterable((log.get(conversationId) ?? []).toReversed()),
      agentOf: () => Effect.succeed("ada"),
      anchor: (conversationId, seq) => Effect.succeed(Transcript.defaultAnchor(conversationId, seq))
    })
  ),
  Layer.succeed(
    Agents.Agents,
    Agents.Agents.of({
      get: (agentId) =>
        Effect.succeed(
          agentId === "ada" ? { id: agentId, name: "Ada", role: "assistant", mayWriteTeam: true } : undefined
        )
    })
  )
)

/** Memory for the host: the review, the store and the review state over `root`, with the model given. */
export const memoryLayer = (root: string, model: Layer.Layer<ReviewModel.ReviewModel>) =>
  Memory.layer({ root, settings: { interfaceLanguage: "English" } }).pipe(
    Layer.provide(Layer.mergeAll(HostPorts, model, NodeServices.layer, NodePlatform.layer))
  )

/** The model from MNEME_BASE_URL, MNEME_API_KEY and MNEME_MODEL. */
export const modelFromEnvironment = OpenAiCompat.layerReviewModelConfig.pipe(Layer.orDie)

/** One turn of the host: the user's line, the agent's reply, and the review told when the turn starts and ends. */
export const turn = Effect.fn("turn")(function* (conversationId: string, userText: string, reply: string) {
  const review = yield* MemoryReview.MemoryReview
  yield* review.turnStarted(conversationId)
  const lines = log.get(conversationId) ?? []
  lines.push({ seq: lines.length + 1, who: "user", text: userText })
  lines.push({ seq: lines.length + 1, who: "agent", text: reply })
  log.set(conversationId, lines)
  yield* review.turnEnded(conversationId)
})

/** Before the host shuts down: let waiting reviews finish, then read what memory holds. */
export const shutdown = Effect.gen(function* () {
  const review = yield* MemoryReview.MemoryReview
  yield* review.awaitIdle
  return yield* review.view("ada")
})
