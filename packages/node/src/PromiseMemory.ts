/**
 * mneme for hosts that are not written with Effect: `createMemory({ root, model })` gives plain async functions over
 * the same services, the same rules and the same files as an Effect host (`Memory.layer`): append a conversation's
 * lines (kept in the memory folder's conversation logs, as the MCP server keeps them, or read from the host's own
 * transcript), say when turns start and end (the background review runs as in an Effect host), put the agent's memory
 * section in its system prompt, give its model the memory tools (OpenAI's or Anthropic's shape) and run their calls,
 * recall, and close, which waits for the reviews still to come. A failure is an `Error` (a `MemoryError`) carrying the
 * typed error's tag and message.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { MaskedTaggedError, MemoryConfig } from "@mneme/core"
import { FileRoot, Memory, MemoryPrompt, MemoryRecall, MemoryReview, MemoryTools } from "@mneme/review"
import { Cause, Duration, Effect, Exit, Layer, ManagedRuntime, Result, Schema } from "effect"
import * as ConversationLog from "./ConversationLog.ts"
import * as NodePlatform from "./NodePlatform.ts"
import {
  agentsPort,
  decodeNewLine,
  problemOf,
  readerPort,
  type AgentOptions,
  type Line,
  type TranscriptReader
} from "./internal/promiseMemory/hostPorts.ts"
import { defined, modelLayer, type ModelOptions } from "./internal/promiseMemory/model.ts"

/** A failure of mneme, as a plain `Error`: `tag` is the typed error's tag (`MemoryFull`, `BadConversation`…). */
export class MemoryError extends Error {
  override readonly name = "MemoryError"
  /** The typed error's tag, to tell failures apart. */
  readonly tag: string
  /** The typed error's tag, as Effect code reads it. */
  readonly _tag: string
  constructor(tag: string, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause })
    this.tag = tag
    this._tag = tag
  }
}

/** The options given to `createMemory` do not work; its message says which and why. */
export class BadOptions extends MaskedTaggedError<BadOptions>()("BadOptions", { reason: Schema.String }) {
  override get message() {
    return this.reason
  }
}

export type { ModelOptions } from "./internal/promiseMemory/model.ts"
export type { AgentOptions, Line, NumberedLine, TranscriptReader } from "./internal/promiseMemory/hostPorts.ts"

/** Settings over mneme's defaults (`MemoryConfig.Settings`), durations in milliseconds. */
export type Settings = Partial<
  Omit<MemoryConfig.Settings, "reviewDelay" | "modelTimeout"> & {
    /** How long after a turn ends its review is queued, in milliseconds (2,000 by default). */
    readonly reviewDelay: number
  }
>

/** What `createMemory` takes. */
export interface MemoryOptions {
  /** The memory folder. */
  readonly root: string
  /** The review's model; without one, no review runs (memory still works through the tools). */
  readonly model?: ModelOptions | undefined
  /** The agent whose conversations `append` logs when it is not told (by default `default`). */
  readonly agentId?: string | undefined
  /** The host's agents; without it, every agent id is an agent of that name that may write team memory. */
  readonly agents?: Readonly<Record<string, AgentOptions>> | undefined
  /** The host's own transcript; without it, `append` keeps the lines in `<root>/conversations/`. */
  readonly transcript?: TranscriptReader | undefined
  readonly settings?: Settings | undefined
}

/** A tool call's result: its value for the model, whether it is a failure, and the value as the text to send back. */
export interface ToolResult extends MemoryTools.CallResult {
  readonly content: string
}

/** What `append` kept: the seq of its first and last line. */
export interface Appended {
  readonly first: number | undefined
  readonly last: number | undefined
}

/** Memory for a host, as plain async functions. */
export interface Memory {
  /**
   * Appends lines to a conversation's log (oldest first), numbered on from its last line, for the agent the
   * conversation is of (`options.agentId`, else the one `createMemory` was given). Not for a host that gives its own
   * transcript.
   */
  readonly append: (
    conversationId: string,
    lines: Line | ReadonlyArray<Line>,
    options?: { readonly agentId?: string | undefined }
  ) => Promise<Appended>
  /** A turn of the conversation starts: a review waiting for its delay is put off. */
  readonly turnStarted: (conversationId: string) => Promise<void>
  /** A turn of the conversation ended: its review runs in the background once the review delay has passed. */
  readonly turnEnded: (conversationId: string) => Promise<void>
  /**
   * The agent's memory section for its system prompt. With a conversation, the section is frozen for that
   * conversation (the same bytes every time, so a provider's prefix cache holds), and the tools' results in it say what
   * changed since; without one, memory as it is now.
   */
  readonly section: (agentId: string, options?: { readonly conversationId?: string | undefined }) => Promise<string>
  /** The memory tools as a model's function calling declares them: OpenAI's (`tools`) or Anthropic's shape. */
  readonly tools: (shape: "openai" | "anthropic") => ReadonlyArray<object>
  /**
   * Runs one tool call the agent's model made, by name with its arguments (an object, or the JSON text OpenAI sends).
   * The calls of one conversation between two turn starts or ends are one turn (at most `toolWritesPerTurn` writes). A
   * change memory cannot make is a result with `isError`, never a rejection.
   */
  readonly callTool: (
    agentId: string,
    name: string,
    args: unknown,
    options?: { readonly conversationId?: string | undefined }
  ) => Promise<ToolResult>
  /** The entries of the agent's own and team memory that match the query best (all, for none), or one topic's. */
  readonly recall: (
    agentId: string,
    query?: string,
    options?: { readonly topic?: string | undefined; readonly teamOnly?: boolean | undefined }
  ) => Promise<MemoryRecall.Recalled>
  /** Every entry of the agent, the sizes against the limits, and how its last review went. */
  readonly view: (agentId: string) => Promise<MemoryReview.View>
  /** Reviews waiting for their delay, queued or running. */
  readonly pending: () => Promise<number>
  /** Waits for the reviews still to come (waiting, queued and running; at most `timeoutMs`), then lets go of memory. */
  readonly close: (options?: { readonly timeoutMs?: number | undefined }) => Promise<void>
}

/** A failure as an `Error` carrying its tag and message. */
const asError = (cause: Cause.Cause<unknown>): MemoryError => {
  if (Cause.hasInterruptsOnly(cause)) return new MemoryError("Interrupted", "mneme was closed while this ran")
  const error = Cause.squash(cause)
  const tag =
    typeof error === "object" && error !== null && "_tag" in error && typeof error._tag === "string"
      ? error._tag
      : undefined
  const message = error instanceof Error ? error.message : String(error)
  if (tag !== undefined && Cause.hasFails(cause)) return new MemoryError(tag, message === "" ? tag : message, error)
  return new MemoryError("Defect", `mneme itself failed, which is a bug: ${message}`, error)
}

/** The tools' arguments as OpenAI sends them: a JSON text. */
const decodeArguments = Schema.decodeUnknownResult(Schema.fromJsonString(Schema.Unknown))

/** The most conversations' frozen sections kept at once. */
const sessionsKept = 1_000

/** The memory tools in the shape a model's function calling takes them. */
const toolsIn = (shape: "openai" | "anthropic"): ReadonlyArray<object> =>
  MemoryTools.definitions.map((tool) =>
    shape === "openai"
      ? { type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters } }
      : { name: tool.name, description: tool.description, input_schema: tool.parameters }
  )

/**
 * Memory over the folder `options.root` for a host that is not written with Effect (see the module's comment). The
 * memory is ready when the promise resolves; options that cannot work reject it with a `MemoryError` that says why.
 */
export const createMemory = async (options: MemoryOptions): Promise<Memory> => {
  const fail = (reason: string) => Promise.reject(asError(Cause.fail(new BadOptions({ reason }))))
  if (typeof options.root !== "string" || options.root.trim() === "") {
    return fail("root must be the memory folder, such as ./memory")
  }
  const model = modelLayer(options.model)
  if (Result.isFailure(model)) return fail(model.failure)
  const { reviewDelay, ...rest } = options.settings ?? {}
  const settings: Partial<MemoryConfig.Settings> = {
    ...rest,
    ...(reviewDelay === undefined ? {} : { reviewDelay: Duration.millis(reviewDelay) }),
    ...(options.model === undefined ? { reviewEnabled: false } : {})
  }
  const config = MemoryConfig.make(settings)
  const defaultAgent = options.agentId ?? "default"
  const root = FileRoot.layer({ root: options.root })
  const log = ConversationLog.layer({ root: options.root }).pipe(Layer.provide(root))
  const transcript = options.transcript === undefined ? ConversationLog.layerTranscript : readerPort(options.transcript)
  const services = Memory.layerOver(root, { settings }).pipe(
    Layer.provide(Layer.mergeAll(transcript, agentsPort(options.agents), model.success)),
    Layer.provideMerge(log),
    Layer.provideMerge(Layer.mergeAll(NodeServices.layer, NodePlatform.layer))
  )
  const runtime = ManagedRuntime.make(services)
  type Services = ManagedRuntime.ManagedRuntime.Services<typeof runtime>
  const run = <A, E>(effect: Effect.Effect<A, E, Services>): Promise<A> =>
    runtime
      .runPromiseExit(effect)
      .then((exit) => (Exit.isSuccess(exit) ? exit.value : Promise.reject(asError(exit.cause))))
  await run(Effect.void)

  // The sessions of conversations (their frozen sections), and the turns their tool calls are made in.
  const sessions = new Map<string, MemoryPrompt.Session>()
  const turns = new Map<string, MemoryTools.Turn>()
  /** The search indexes its recalls keep while memory files are unchanged. */
  const recallIndexes = MemoryRecall.indexes()
  const sessionKey = (agentId: string, conversationId: string) => `${agentId}\u0000${conversationId}`
  const endTurns = (conversationId: string) => {
    for (const key of turns.keys()) if (key.endsWith(`\u0000${conversationId}`)) turns.delete(key)
  }
  let closed = false
  const open = <A>(call: () => Promise<A>): Promise<A> =>
    closed ? Promise.reject(new MemoryError("Closed", "this memory was closed")) : call()

  return {
    append: (conversationId, given, appendOptions = {}) =>
      open(() =>
        run(
          Effect.gen(function* () {
            if (options.transcript !== undefined) {
              return yield* new BadOptions({
                reason: "append keeps lines in the memory folder's logs; this memory reads the host's own transcript"
              })
            }
            const lines: Array<ConversationLog.NewLine> = []
            for (const [index, line] of (Array.isArray(given) ? given : [given]).entries()) {
              const decoded = decodeNewLine(line)
              if (Result.isFailure(decoded)) {
                return yield* new ConversationLog.BadLine({ line: index + 1, detail: problemOf(decoded.failure) })
              }
              lines.push(decoded.success)
            }
            const log = yield* ConversationLog.ConversationLog
            const appended = yield* log.append(conversationId, appendOptions.agentId ?? defaultAgent, lines)
            return { first: appended.first, last: appended.last }
          })
        )
      ),
    turnStarted: (conversationId) =>
      open(() => {
        endTurns(conversationId)
        return run(MemoryReview.MemoryReview.use((review) => review.turnStarted(conversationId)))
      }),
    turnEnded: (conversationId) =>
      open(() => {
        endTurns(conversationId)
        return run(MemoryReview.MemoryReview.use((review) => review.turnEnded(conversationId)))
      }),
    section: (agentId, sectionOptions = {}) =>
      open(async () => {
        const conversationId = sectionOptions.conversationId
        if (conversationId === undefined) return run(MemoryPrompt.MemoryPrompt.use((prompt) => prompt.section(agentId)))
        const key = sessionKey(agentId, conversationId)
        const known = sessions.get(key)
        if (known !== undefined) return known.section
        const session = await run(MemoryPrompt.MemoryPrompt.use((prompt) => prompt.session(agentId)))
        // The oldest conversations' sessions go first once many are kept: a long-lived host starts new ones forever.
        if (sessions.size >= sessionsKept) sessions.delete(sessions.keys().next().value!)
        sessions.set(key, session)
        return session.section
      }),
    tools: toolsIn,
    callTool: (agentId, name, args, callOptions = {}) =>
      open(async () => {
        const conversationId = callOptions.conversationId ?? ""
        const key = sessionKey(agentId, conversationId)
        let turn = turns.get(key)
        if (turn === undefined) {
          turn = await run(MemoryTools.startTurn(agentId, { session: sessions.get(key) }))
          turns.set(key, turn)
        }
        const params = typeof args === "string" ? Result.getOrElse(decodeArguments(args), () => args) : args
        const result = await run(MemoryTools.call(turn, name, params))
        return { ...result, content: JSON.stringify(result.result) }
      }),
    recall: (agentId, query, recallOptions = {}) =>
      open(() =>
        run(
          MemoryRecall.recall(
            defined({ agentId, query, topic: recallOptions.topic, teamOnly: recallOptions.teamOnly }),
            {
              resultsMax: config.recallResultsMax,
              budget: config.recallBudget
            },
            recallIndexes
          )
        )
      ),
    view: (agentId) => open(() => run(MemoryReview.MemoryReview.use((review) => review.view(agentId)))),
    pending: () => open(() => run(MemoryReview.MemoryReview.use((review) => review.pending))),
    close: async (closeOptions = {}) => {
      if (closed) return
      closed = true
      const timeout = closeOptions.timeoutMs
      await run(
        MemoryReview.MemoryReview.use((review) =>
          timeout === undefined
            ? review.awaitIdle
            : Effect.asVoid(Effect.timeoutOption(review.awaitIdle, Duration.millis(timeout)))
        )
      )
      await runtime.dispose()
    }
  }
}
