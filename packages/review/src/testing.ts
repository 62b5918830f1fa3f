/**
 * The test kit: a scripted review model that answers from a list and records every request, a scripted `LanguageModel`
 * for a host's agent (answers and tool calls from a list), an in-memory transcript (chats and groups) and agents, and
 * one layer that wires mneme (`Memory.layer`) over a temporary memory root with them. Hosts test their own integration
 * with it, and so does mneme.
 */
import { type Backoff, type Lines, type MemoryConfig, ModelError, TranscriptError } from "@mneme/core"
import { Context, Effect, FileSystem, Layer, type Path, Ref, Stream } from "effect"
// By module, not from the "effect/ai" index, which loads all of effect/ai (the MCP server among it) in every process.
import * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import type * as Prompt from "effect/ai/Prompt"
import type * as Response from "effect/ai/Response"
import type { PlatformError } from "effect/PlatformError"
import { Agents, type AgentInfo } from "./Agents.ts"
import * as Groups from "./Groups.ts"
import * as Memory from "./Memory.ts"
import { layerTest, type Platform } from "./Platform.ts"
import type { RootFiles } from "./RootFiles.ts"
import * as ReviewModel from "./ReviewModel.ts"
import { defaultAnchor, make as makeTranscript, Transcript } from "./Transcript.ts"

/** One scripted answer: a text, an error, or an effect that gives either (to wait, or to look around mid-call). */
export type Scripted = string | ModelError | Effect.Effect<string | ReviewModel.Answer, ModelError>

/** The scripted model's controls: more answers, and the requests it was sent. */
export class ScriptedModel extends Context.Service<
  ScriptedModel,
  {
    /** Adds answers to the end of the list. */
    readonly push: (...answers: ReadonlyArray<Scripted>) => Effect.Effect<void>
    /** Every request so far, oldest first. */
    readonly requests: Effect.Effect<ReadonlyArray<ReviewModel.Request>>
  }
>()("@mneme/review/testing/ScriptedModel") {}

/** The error a scripted model gives when its list is used up and it has no `otherwise`. */
export const noAnswerLeft = new ModelError({ reason: "the scripted model has no answer left", retryable: false })

const answerOf = (scripted: Scripted): Effect.Effect<ReviewModel.Answer, ModelError> =>
  typeof scripted === "string"
    ? Effect.succeed({ text: scripted })
    : scripted instanceof ModelError
      ? Effect.fail(scripted)
      : Effect.map(scripted, (answer) => (typeof answer === "string" ? { text: answer } : answer))

/** A `ReviewModel` that answers from `answers` in order, then with `otherwise` (or `noAnswerLeft`) for ever. */
export const scriptedModel = (
  answers: ReadonlyArray<Scripted> = [],
  options: { readonly otherwise?: Scripted } = {}
): Layer.Layer<ScriptedModel | ReviewModel.ReviewModel> =>
  Layer.effectContext(
    Effect.gen(function* () {
      const list = yield* Ref.make<ReadonlyArray<Scripted>>(answers)
      const requests = yield* Ref.make<ReadonlyArray<ReviewModel.Request>>([])
      const next = Ref.modify(list, ([first, ...rest]): [Scripted, ReadonlyArray<Scripted>] =>
        first === undefined ? [options.otherwise ?? noAnswerLeft, []] : [first, rest]
      )
      const generate = (request: ReviewModel.Request) =>
        Ref.update(requests, (all) => [...all, request]).pipe(Effect.andThen(next), Effect.flatMap(answerOf))
      return Context.make(ReviewModel.ReviewModel, ReviewModel.ReviewModel.of({ generate })).pipe(
        Context.add(
          ScriptedModel,
          ScriptedModel.of({
            push: (...more) => Ref.update(list, (all) => [...all, ...more]),
            requests: Ref.get(requests)
          })
        )
      )
    })
  )

/** One reply of a scripted agent model: a text, or tool calls (each by tool name, with its parameters) and a text. */
export type AgentReply =
  | string
  | {
      readonly text?: string
      readonly toolCalls: ReadonlyArray<{ readonly name: string; readonly params: unknown }>
    }

/** The scripted agent model's controls: the prompts it was sent. */
export class ScriptedAgentModel extends Context.Service<
  ScriptedAgentModel,
  {
    /** Every prompt so far (the system message and the history of each call), oldest first. */
    readonly prompts: Effect.Effect<ReadonlyArray<Prompt.Prompt>>
  }
>()("@mneme/review/testing/ScriptedAgentModel") {}

/** The parts a provider would send for one reply: its tool calls (numbered ids from `first`), its text, the finish. */
const partsOf = (reply: AgentReply, first: number): Array<Response.PartEncoded> => {
  const { text, toolCalls } = typeof reply === "string" ? { text: reply, toolCalls: [] } : reply
  return [
    ...(text === undefined ? [] : [{ type: "text" as const, text }]),
    ...toolCalls.map((call, i) => ({
      type: "tool-call" as const,
      id: `call-${first + i}`,
      name: call.name,
      params: call.params
    })),
    {
      type: "finish",
      reason: toolCalls.length > 0 ? "tool-calls" : "stop",
      usage: { inputTokens: { total: undefined }, outputTokens: { total: undefined } }
    }
  ]
}

/**
 * An effect/ai `LanguageModel` for a host's agent that answers each call with the next of `replies` (a text, or tool
 * calls the toolkit given to the call then runs) and records every prompt; a call after the last reply fails.
 */
export const scriptedAgentModel = (
  replies: ReadonlyArray<AgentReply>
): Layer.Layer<LanguageModel.LanguageModel | ScriptedAgentModel> =>
  Layer.effectContext(
    Effect.gen(function* () {
      const left = yield* Ref.make(replies)
      const prompts = yield* Ref.make<ReadonlyArray<Prompt.Prompt>>([])
      const ids = yield* Ref.make(1)
      const model = yield* LanguageModel.make({
        generateText: (options) =>
          Effect.gen(function* () {
            yield* Ref.update(prompts, (all) => [...all, options.prompt])
            const next = yield* Ref.modify(left, ([first, ...rest]) => [first, rest] as const)
            if (next === undefined) {
              return yield* AiError.make({
                module: "ScriptedAgentModel",
                method: "generateText",
                reason: new AiError.UnknownError({ description: "the scripted agent model has no reply left" })
              })
            }
            const calls = typeof next === "string" ? 0 : next.toolCalls.length
            return partsOf(next, yield* Ref.getAndUpdate(ids, (n) => n + calls))
          }),
        streamText: () => Stream.empty
      })
      return Context.make(LanguageModel.LanguageModel, model).pipe(
        Context.add(ScriptedAgentModel, ScriptedAgentModel.of({ prompts: Ref.get(prompts) }))
      )
    })
  )

/** A line to append: its `seq` is the next after the conversation's last unless given. */
export interface NewLine {
  readonly seq?: number
  readonly who: Lines.Line["who"]
  readonly name?: string
  readonly text: string
  /** A tool call, a tool result or quoted memory (see `Lines.Kind`). */
  readonly kind?: Lines.Kind
}

/** The in-memory transcript's controls. */
export class TranscriptMemory extends Context.Service<
  TranscriptMemory,
  {
    /** Adds (or replaces) an agent; its name defaults to its id, and it may not write team memory unless told. */
    readonly addAgent: (agent: {
      readonly id: string
      readonly name?: string
      readonly role?: string
      readonly mayWriteTeam?: boolean
    }) => Effect.Effect<void>
    /** Deletes an agent: `Agents.get` no longer knows it. */
    readonly removeAgent: (agentId: string) => Effect.Effect<void>
    /** Starts a conversation owned by an agent. */
    readonly bind: (conversationId: string, agentId: string) => Effect.Effect<void>
    /**
     * Starts a group conversation of these member agents (docs/spec.md 4.7). In its lines an agent's line names the agent by id
     * (`{ who: "agent", name: "ada" }`) and a person's line names the person (`{ who: "user", name: "Alice" }`).
     */
    readonly bindGroup: (conversationId: string, members: ReadonlyArray<string>) => Effect.Effect<void>
    /** Changes the members of a group conversation: a member joins, or leaves. */
    readonly setMembers: (conversationId: string, members: ReadonlyArray<string>) => Effect.Effect<void>
    /** Drops the lines of a conversation up to `seq` (included), as a host with a bounded log does. */
    readonly drop: (conversationId: string, seq: number) => Effect.Effect<void>
    /** Appends lines to a conversation; gives them back with their `seq`. */
    readonly append: (
      conversationId: string,
      ...lines: ReadonlyArray<NewLine>
    ) => Effect.Effect<ReadonlyArray<Lines.Line>>
    /** Makes reading a conversation fail with this reason, or work again with `undefined`. */
    readonly breakReads: (conversationId: string, reason: string | undefined) => Effect.Effect<void>
    /** How many lines have been pulled from the conversation's transcript so far. */
    readonly pulled: (conversationId: string) => Effect.Effect<number>
  }
>()("@mneme/review/testing/TranscriptMemory") {}

interface Conversation {
  /** The agent that owns it; `undefined` for a group. */
  readonly agentId: string | undefined
  /** The member agents of a group; `undefined` for a conversation one agent owns. */
  readonly members: ReadonlyArray<string> | undefined
  readonly lines: ReadonlyArray<Lines.Line>
  readonly broken: string | undefined
  readonly pulled: number
}

/** An in-memory `Transcript`, `Groups` and `Agents`, with `TranscriptMemory` to fill them. */
export const transcriptMemory: Layer.Layer<TranscriptMemory | Transcript | Agents> = Layer.effectContext(
  Effect.gen(function* () {
    const agents = yield* Ref.make(new Map<string, AgentInfo>())
    const conversations = yield* Ref.make(new Map<string, Conversation>())
    const update = (conversationId: string, f: (conversation: Conversation) => Conversation) =>
      Ref.update(conversations, (all) => {
        const conversation = all.get(conversationId)
        return conversation === undefined ? all : new Map(all).set(conversationId, f(conversation))
      })
    const find = (conversationId: string) =>
      Effect.flatMap(Ref.get(conversations), (all) => {
        const conversation = all.get(conversationId)
        return conversation === undefined
          ? Effect.fail(new TranscriptError({ reason: `no conversation ${JSON.stringify(conversationId)}` }))
          : Effect.succeed(conversation)
      })
    /** The lines of a conversation, from the one at `from` on (oldest first) or down to it (newest first). */
    const lines = (
      conversationId: string,
      pick: (lines: ReadonlyArray<Lines.Line>) => Iterable<Lines.Line>
    ): Stream.Stream<Lines.Line, TranscriptError> =>
      Stream.unwrap(
        Effect.map(find(conversationId), (conversation) =>
          conversation.broken !== undefined
            ? Stream.fail(new TranscriptError({ reason: conversation.broken }))
            : Stream.fromIterable(pick(conversation.lines), { chunkSize: 1 }).pipe(
                Stream.tap(() => update(conversationId, (c) => ({ ...c, pulled: c.pulled + 1 })))
              )
        )
      )
    /** The index of the first line whose seq is above `seq` (the lines are in seq order). */
    const after = (all: ReadonlyArray<Lines.Line>, seq: number) => {
      let low = 0
      let high = all.length
      while (low < high) {
        const middle = (low + high) >>> 1
        if (all[middle]!.seq <= seq) low = middle + 1
        else high = middle
      }
      return low
    }
    const newestFirst = (conversationId: string) => lines(conversationId, (all) => all.toReversed())
    const transcript = makeTranscript({
      newestFirst,
      oldestAfter: (conversationId, cursor) => lines(conversationId, (all) => all.slice(after(all, cursor))),
      newestUpTo: (conversationId, seq) => lines(conversationId, (all) => all.slice(0, after(all, seq)).reverse()),
      agentOf: (conversationId) =>
        Effect.flatMap(find(conversationId), (conversation) =>
          conversation.agentId === undefined
            ? Effect.fail(
                new TranscriptError({
                  reason: `${JSON.stringify(conversationId)} is a group: it has members, no owner`
                })
              )
            : Effect.succeed(conversation.agentId)
        ),
      anchor: (conversationId, seq) => Effect.succeed(defaultAnchor(conversationId, seq))
    })
    const memory = TranscriptMemory.of({
      addAgent: (agent) =>
        Ref.update(agents, (all) =>
          new Map(all).set(agent.id, {
            id: agent.id,
            name: agent.name ?? agent.id,
            ...(agent.role === undefined ? {} : { role: agent.role }),
            mayWriteTeam: agent.mayWriteTeam ?? false
          })
        ),
      removeAgent: (agentId) =>
        Ref.update(agents, (all) => {
          const rest = new Map(all)
          rest.delete(agentId)
          return rest
        }),
      bind: (conversationId, agentId) =>
        Ref.update(conversations, (all) =>
          new Map(all).set(conversationId, { agentId, members: undefined, lines: [], broken: undefined, pulled: 0 })
        ),
      bindGroup: (conversationId, members) =>
        Ref.update(conversations, (all) =>
          new Map(all).set(conversationId, {
            agentId: undefined,
            members: [...members],
            lines: [],
            broken: undefined,
            pulled: 0
          })
        ),
      setMembers: (conversationId, members) => update(conversationId, (c) => ({ ...c, members: [...members] })),
      drop: (conversationId, seq) =>
        update(conversationId, (c) => ({ ...c, lines: c.lines.filter((line) => line.seq > seq) })),
      append: (conversationId, ...lines) =>
        Ref.modify(conversations, (all): [ReadonlyArray<Lines.Line>, Map<string, Conversation>] => {
          const conversation = all.get(conversationId)
          if (conversation === undefined) return [[], all]
          const added: Array<Lines.Line> = []
          let last = conversation.lines.at(-1)?.seq ?? 0
          for (const { seq, ...line } of lines) {
            last = seq ?? last + 1
            added.push({ seq: last, ...line })
          }
          return [
            added,
            new Map(all).set(conversationId, { ...conversation, lines: [...conversation.lines, ...added] })
          ]
        }),
      breakReads: (conversationId, reason) => update(conversationId, (c) => ({ ...c, broken: reason })),
      pulled: (conversationId) =>
        Effect.map(find(conversationId), (conversation) => conversation.pulled).pipe(Effect.orDie)
    })
    return Context.make(TranscriptMemory, memory).pipe(
      Context.add(Transcript, transcript),
      Context.add(
        Groups.Groups,
        Groups.make((conversationId) => Effect.map(find(conversationId), (conversation) => conversation.members))
      ),
      Context.add(Agents, Agents.of({ get: (agentId) => Effect.map(Ref.get(agents), (all) => all.get(agentId)) }))
    )
  })
)

/** What the one-line test set-up takes. */
export interface Options {
  /** The scripted model's answers, and what it answers once they are used up. */
  readonly answers?: ReadonlyArray<Scripted>
  readonly otherwise?: Scripted
  /** Overrides of the defaults of `MemoryConfig`. */
  readonly settings?: Partial<MemoryConfig.Settings>
  /** Another failure policy. */
  readonly policy?: Backoff.Policy
  /** A memory root to use instead of a new temporary folder (removed when the layer closes). */
  readonly root?: string
}

/**
 * Everything a review test needs: `Memory.layer` over a temporary root (its folder is the `MemoryRoot`'s `root`), a
 * scripted model, an in-memory host, and the test double of the platform.
 */
export const layer = (
  options: Options = {}
): Layer.Layer<
  | Memory.Services
  | TranscriptMemory
  | Transcript
  | Agents
  | ScriptedModel
  | ReviewModel.ReviewModel
  | Platform
  | RootFiles,
  PlatformError,
  FileSystem.FileSystem | Path.Path
> => {
  const ports = Layer.merge(
    transcriptMemory,
    scriptedModel(options.answers, options.otherwise === undefined ? {} : { otherwise: options.otherwise })
  )
  const memory = Layer.unwrap(
    Effect.map(
      options.root === undefined
        ? Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped({ prefix: "mneme-" }))
        : Effect.succeed(options.root),
      (root) => Memory.layer({ root, policy: options.policy, settings: options.settings })
    )
  )
  return memory.pipe(Layer.provideMerge(Layer.merge(ports, layerTest())))
}
