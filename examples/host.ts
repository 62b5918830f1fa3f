/**
 * mneme composed into an Effect host: the host's transcript and agents as mneme's ports, mneme over a memory folder
 * (`Memory.layer`), and a small agent loop on effect/ai. Each conversation is a `Chat` whose system prompt holds the
 * agent's memory section, frozen for the conversation (`MemoryPrompt.session`); the agent has `MemoryTools` as its
 * toolkit; its tool calls and results are logged as marked lines, which the review never keeps; and the review is
 * told when each turn starts and ends.
 */
import type { Lines } from "@mneme/core"
import { NodePlatform, NodeServices, OpenAiCompat } from "@mneme/node"
import { Agents, Memory, MemoryPrompt, MemoryReview, MemoryTools, type ReviewModel, Transcript } from "@mneme/review"
import { Effect, Layer, Stream } from "effect"
import { Chat } from "effect/ai"

/** The host's own conversation log (here, an array per conversation). */
export const log = new Map<string, Array<Lines.Line>>()

/** Adds a line to a conversation's log. */
const append = (conversationId: string, line: Omit<Lines.Line, "seq">) => {
  const lines = log.get(conversationId) ?? []
  lines.push({ seq: lines.length + 1, ...line })
  log.set(conversationId, lines)
}

/** The host's transcript and agents, as the ports mneme reads them through. */
const HostPorts = Layer.mergeAll(
  Layer.succeed(
    Transcript.Transcript,
    Transcript.make({
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

/** Memory for the host over `root`: the review (with its model), the store, the tools' handlers, the section. */
export const memoryLayer = (root: string, model: Layer.Layer<ReviewModel.ReviewModel>) =>
  Memory.layer({ root, settings: { interfaceLanguage: "English" } }).pipe(
    Layer.provide(Layer.mergeAll(HostPorts, model, NodeServices.layer, NodePlatform.layer))
  )

/** The review's model from MNEME_BASE_URL, MNEME_API_KEY and MNEME_MODEL. */
export const modelFromEnvironment = OpenAiCompat.layerReviewModelConfig.pipe(Layer.orDie)

/** The conversations' chats, each begun with the agent's memory section as memory was then. */
const chats = new Map<string, Chat.Chat>()

/** A conversation's chat: on its first turn, a new session with the memory section in its system prompt. */
const chatOf = Effect.fn("chatOf")(function* (conversationId: string) {
  const known = chats.get(conversationId)
  if (known !== undefined) return known
  const { section } = yield* MemoryPrompt.MemoryPrompt.use((prompt) => prompt.session("ada"))
  const chat = yield* Chat.fromPrompt([{ role: "system", content: `You are Ada, a helpful assistant.\n\n${section}` }])
  chats.set(conversationId, chat)
  return chat
})

/** The most model calls in one turn: a model that keeps calling tools is stopped there. */
const callsPerTurn = 8

/** The agent's answer to the user's words, its tool calls and their results logged as marked lines on the way. */
const answer = Effect.fn("answer")(function* (conversationId: string, userText: string) {
  append(conversationId, { who: "user", text: userText })
  const chat = yield* chatOf(conversationId)
  let response = yield* chat.generateText({ prompt: userText, toolkit: MemoryTools.MemoryTools })
  for (let calls = 1; ; calls++) {
    for (const call of response.toolCalls) {
      const text = JSON.stringify({ tool: call.name, params: call.params })
      append(conversationId, { who: "agent", kind: "tool-call", text })
    }
    for (const result of response.toolResults) {
      append(conversationId, { who: "agent", kind: "tool-result", text: JSON.stringify(result.encodedResult) })
    }
    if (response.toolCalls.length === 0 || calls === callsPerTurn) break
    response = yield* chat.generateText({ prompt: [], toolkit: MemoryTools.MemoryTools })
  }
  append(conversationId, { who: "agent", text: response.text })
  return response.text
})

/**
 * One turn of the agent (its `LanguageModel` is the host's): its memory tools act as one turn of "ada", and the
 * review is told when the turn starts and when it ends, however it ends.
 */
export const turn = Effect.fn("turn")(function* (conversationId: string, userText: string) {
  const review = yield* MemoryReview.MemoryReview
  yield* review.turnStarted(conversationId)
  return yield* answer(conversationId, userText).pipe(Effect.ensuring(review.turnEnded(conversationId)))
}, MemoryTools.withTurn("ada"))

/** Before the host shuts down: let waiting reviews finish, then read what memory holds. */
export const shutdown = Effect.gen(function* () {
  const review = yield* MemoryReview.MemoryReview
  yield* review.awaitIdle
  return yield* review.view("ada")
})
