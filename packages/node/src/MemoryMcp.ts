/**
 * mneme's memory for any MCP client (docs/spec.md 7), as registrations of an `effect/ai` `McpServer`: the agent's memory tools
 * (`remember`, `forget`, `recall`: the `MemoryTools` handlers themselves), `show` and `review_turn`; the memory files
 * as resources (`memory://<agent>/MEMORY.md`, `memory://<agent>/<topic>.md`, `memory://team/…`), with a change
 * notification to a client that subscribes; and the agent's memory section as the prompt `memory-context`, frozen for
 * the client's session. `mneme mcp` serves them over stdio or streamable HTTP; a host with an `McpServer` of its own
 * can mount them beside its other registrations.
 *
 * Every tool result names the agent. A limit (the size of an entry, a secret, a full file) is never in a parameter
 * schema: the call goes through and its result says why nothing was written (`isError: true`), words the model can act
 * on. `review_turn` appends the turn's lines to the conversation's log (`ConversationLog`) and tells the review that
 * the turn ended, so the background review runs as in a host: debounced, one at a time, bounded by the failure policy.
 * MCP says nothing of a model's turns, so each tool call is a turn of its own for `toolWritesPerTurn`.
 */
import { Lines, MemoryConfig, MemoryScope, type StorageError, type TranscriptError } from "@mneme/core"
import { FileRoot, Memory, MemoryPrompt, MemoryReview, MemoryStore, MemoryTools, type ReviewModel } from "@mneme/review"
import { Cause, Duration, Effect, Layer, Option, Stream } from "effect"
import { McpProtocol, McpSchema, McpServer } from "effect/ai"
import * as ConversationLog from "./ConversationLog.ts"
import * as Txt from "./internal/text.ts"
import { agentProblem } from "./internal/mcp/names.ts"
import { resources } from "./internal/mcp/resources.ts"
import { showMarkdown } from "./internal/mcp/show.ts"
import { makeTools, ToolError } from "./internal/mcp/tools.ts"

/** The MCP revisions served: every one with sessions, so a prompt can be frozen per session. */
export const protocols = [
  McpProtocol.v2025_11_25,
  McpProtocol.v2025_06_18,
  McpProtocol.v2025_03_26,
  McpProtocol.v2024_11_05
] as const

/** What the server tells a client's model about itself. */
export const instructions =
  "Long-term memory of the user and their work, kept as Markdown across conversations. Use recall to look up what " +
  "memory holds before asking the user again, remember to keep a lasting fact as it comes up, forget to remove one " +
  "that is wrong, and show to see all of memory. At the end of each turn, give the turn's new lines to review_turn: " +
  "a background review then keeps what lasts, so you need not remember everything yourself."

// ---------------------------------------------------------------------------------------------------------------------
// Names

export { agentProblem, pendingUriOf, uriOf } from "./internal/mcp/names.ts"

// ---------------------------------------------------------------------------------------------------------------------
// The tools

export { Changed, Reason, Recalled, Shown, ToolError, TurnKept, TurnLine } from "./internal/mcp/tools.ts"

// ---------------------------------------------------------------------------------------------------------------------
// The registrations

/** What the registrations take: the agent served, whether reviews run, and how often memory is looked at. */
export interface Options {
  readonly agentId: string
  /** Why no review runs, when no model is configured: `review_turn` then keeps the lines and says this. */
  readonly noReview?: string | undefined
  /** How often memory is looked at for changes made elsewhere (another process, a person), for the resources. */
  readonly watchEvery?: Duration.Input | undefined
}

/** A failure of a tool's work as its result. */
const failureOf =
  (agent: string, settings: MemoryConfig.Settings) =>
  (
    error:
      | MemoryTools.MemoryToolError
      | ConversationLog.BadConversation
      | ConversationLog.BadLine
      | StorageError
      | TranscriptError
  ): ToolError =>
    new ToolError({
      agent,
      reason: error._tag === "MemoryToolError" ? error.reason : error._tag,
      message: Lines.mask(error.message, settings),
      ...(error._tag === "MemoryToolError" && error.candidates !== undefined ? { candidates: error.candidates } : {})
    })

/** The tools' handlers: the memory tools' own, each call a turn of the agent, and `show` and `review_turn`. */
const handlersLayer = (
  options: Options,
  settings: MemoryConfig.Settings,
  tools: ReturnType<typeof makeTools>,
  changed: Effect.Effect<void>
) =>
  tools.toLayer(
    Effect.gen(function* () {
      const memory = yield* MemoryTools.MemoryTools
      const store = yield* MemoryStore.MemoryStore
      const review = yield* MemoryReview.MemoryReview
      const log = yield* ConversationLog.ConversationLog
      const agent = options.agentId
      const failure = failureOf(agent, settings)

      /** Runs a memory tool as one turn of the agent: its result, or its failure result. */
      const delegate = (name: keyof typeof MemoryTools.MemoryTools.tools, params: unknown) =>
        memory.handle(name, params as never).pipe(
          Effect.flatMap(Stream.runLast),
          Effect.orDie,
          Effect.flatMap((last) =>
            Option.isNone(last)
              ? Effect.die(new Cause.IllegalArgumentError(`the tool ${name} gave no result`))
              : last.value.isFailure
                ? Effect.fail(failure(last.value.result as MemoryTools.MemoryToolError))
                : Effect.succeed(last.value.result)
          ),
          MemoryTools.withTurn(agent)
        )

      const writing = <A extends { readonly changed: boolean }>(effect: Effect.Effect<A, ToolError>) =>
        Effect.tap(effect, (outcome) => (outcome.changed ? changed : Effect.void))

      return tools.of({
        remember: (params) =>
          writing(
            Effect.map(delegate("remember", params), (result) => ({
              agent,
              ...(result as typeof MemoryTools.Changed.Type)
            }))
          ),
        forget: (params) =>
          writing(
            Effect.map(delegate("forget", params), (result) => ({
              agent,
              ...(result as typeof MemoryTools.Changed.Type)
            }))
          ),
        recall: (params) =>
          Effect.map(delegate("recall", params), (result) => ({
            agent,
            ...(result as typeof MemoryTools.RecallResult.Type)
          })),
        show: () =>
          Effect.gen(function* () {
            const [own, team] = yield* Effect.all([store.load(MemoryScope.own(agent)), store.load(MemoryScope.team)], {
              concurrency: "unbounded"
            })
            const lastReview = yield* review.lastReview(agent)
            return { agent, memory: showMarkdown(agent, own, team, lastReview, settings) }
          }).pipe(Effect.mapError(failure)),
        review_turn: (params) =>
          Effect.gen(function* () {
            const lines = params.lines.map((line): ConversationLog.NewLine => ({
              who: line.who,
              text: line.text,
              ...(line.name === undefined || line.name === null ? {} : { name: line.name }),
              ...(line.kind === undefined || line.kind === null ? {} : { kind: line.kind })
            }))
            const appended = yield* log.append(params.conversation, agent, lines)
            if (options.noReview === undefined) yield* review.turnEnded(params.conversation)
            const lastReview = yield* review.lastReview(agent)
            const kept =
              appended.first === undefined
                ? "no new line was given"
                : `lines #${appended.first} to #${appended.last} of the conversation are kept`
            return {
              agent,
              conversation: appended.conversation,
              kept: appended.lines,
              first: appended.first ?? null,
              last: appended.last ?? null,
              review:
                options.noReview === undefined
                  ? `${kept}; their review runs in the background ${Txt.plural(Duration.toSeconds(settings.reviewDelay), "second", "seconds")} after this conversation's last turn end`
                  : `${kept}, but no review will run until a model is set: ${options.noReview}`,
              lastReview
            }
          }).pipe(Effect.mapError(failure))
      })
    })
  )

/** The prompt `memory-context`: the agent's memory section, frozen for the session of the client asking. */
const prompt = (options: Options) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const sections = yield* MemoryPrompt.MemoryPrompt
      // One frozen section per client session: a session's initialize request is the same object for its life.
      const sessions = new WeakMap<object, MemoryPrompt.Session>()
      return McpServer.prompt({
        name: "memory-context",
        title: "Memory",
        description:
          "The agent's long-term memory for its system prompt: its MEMORY.md and the team's within a budget, " +
          "secrets masked, with a short text on the memory tools; the same text for the whole session",
        content: () =>
          Effect.gen(function* () {
            const client = yield* McpSchema.McpServerClient
            const known = sessions.get(client.initializePayload)
            if (known !== undefined) return known.section
            const session = yield* sections.session(options.agentId)
            sessions.set(client.initializePayload, session)
            return session.section
          })
      })
    })
  )

/**
 * The registrations of an `McpServer` over mneme's services (`services`): the tools, the memory files as resources,
 * and the `memory-context` prompt, for the agent `options.agentId`. The settings are the `MemoryConfig` in force.
 */
export const registrations = (options: Options) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const problem = agentProblem(options.agentId)
      if (problem !== undefined) return yield* new Cause.IllegalArgumentError(problem)
      const settings = yield* MemoryConfig.MemoryConfig
      const tools = makeTools(settings)
      return Layer.unwrap(
        Effect.map(resources(options, settings), (changed) =>
          Layer.mergeAll(
            McpServer.toolkit(tools).pipe(Layer.provide(handlersLayer(options, settings, tools, changed))),
            prompt(options)
          )
        )
      )
    })
  )

/** What `services` provides: mneme over the memory root, and its conversation logs. */
export type Services = Memory.Services | ConversationLog.ConversationLog

/**
 * mneme over the memory folder `root` for the MCP server: the composition `Memory.layerOver` with the conversation
 * logs as its transcript, and the one agent served (who may write team memory). It needs the review's model and the
 * platform (`Memory.Machine`); the settings are the `MemoryConfig` in force.
 */
export const services = (options: {
  readonly root: string
  readonly agentId: string
}): Layer.Layer<Services, never, ReviewModel.ReviewModel | Memory.Machine> => {
  // One storage port for both: the logs append as the root's single writer, the writer every change goes through.
  const root = FileRoot.layer({ root: options.root })
  const log = ConversationLog.layer({ root: options.root }).pipe(Layer.provide(root))
  return Memory.layerOver(root).pipe(
    Layer.provide(ConversationLog.layerPorts(options.agentId)),
    Layer.provideMerge(log)
  )
}
