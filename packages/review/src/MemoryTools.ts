/**
 * The agent's memory tools (docs/spec.md 7) as an `effect/ai` `Toolkit`: `remember`, `forget` and `recall`, and their handlers
 * over the memory store. Every write is vetted like any other (docs/spec.md 2) and journaled with `actor: "agent"`; a change
 * memory cannot make (a full file, no match, an entry too long or secret, team memory the agent may not write, too many
 * writes in one turn, a text that reads as an instruction to the agent, which a person must approve) is a result the
 * model can act on, marked as a failure (`isFailure`, a provider's `is_error`), never a failed turn.
 *
 * The host says whose turn it is: the tools act for the agent of the `CurrentTurn` the host provides around a turn
 * (`withTurn(agentId)`), and a turn's tools make at most `toolWritesPerTurn` changes to memory: a write that changes
 * nothing (refused, or an entry memory already holds) is not counted. A turn is one handle: what runs under one
 * `withTurn` (or one `startTurn` given to `call`) shares its count, and its writes run one at a time so the count is
 * exact. A turn given the session whose
 * frozen memory section the agent's prompt shows (`MemoryPrompt.session`) has every result say what has changed in
 * either MEMORY.md since that section was frozen (`meanwhile`), so the agent knows where its prompt is out of date.
 */
import {
  type BadTopic,
  Denied,
  type Entry,
  Instruction,
  Lines,
  MaskedTaggedError,
  MemoryConfig,
  type MemoryFull,
  type NoMatch,
  type NoSuchTopic,
  Scope,
  type StorageError,
  TeamMemory,
  Text,
  type TooManyTopics
} from "@mneme/core"
import { Context, Effect, Option, Ref, Schema, Semaphore, Stream } from "effect"
// By module, not from the "effect/ai" index, which loads all of effect/ai (the MCP server among it) in every process.
import type * as AiError from "effect/ai/AiError"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import type * as JsonSchema from "effect/JsonSchema"
import { Agents } from "./Agents.ts"
import * as MemoryRecall from "./MemoryRecall.ts"
import { memoryEntries, type Session } from "./MemoryPrompt.ts"
import { MemoryStore } from "./MemoryStore.ts"

// ---------------------------------------------------------------------------------------------------------------------
// The turn

/** One turn of an agent: whom the tools act for, the source the entries they add cite, and the writes made so far. */
export interface Turn {
  readonly agentId: string
  /** What entries added in this turn cite as their source (a conversation's anchor), if the host gives it. */
  readonly source: string | undefined
  /** How many changes to memory this turn's writes (`remember`, `forget`) have made. */
  readonly writes: Ref.Ref<number>
  /** One write of the turn at a time, so that its count of changes is exact when the next one asks. */
  readonly writing: Semaphore.Semaphore
  /** The session whose memory section the agent's prompt shows, if the host gives it. */
  readonly session: Session | undefined
}

/** The turn the memory tools act in; the host provides it around each turn (`withTurn`). */
export class CurrentTurn extends Context.Service<CurrentTurn, Turn>()("@mneme/review/MemoryTools/CurrentTurn") {}

/** What a host may say of a turn besides the agent. */
export interface TurnOptions {
  /** What entries the agent adds in this turn cite as their source, such as `Transcript.defaultAnchor(id, seq)`. */
  readonly source?: string | undefined
  /** The session whose memory section the agent's prompt shows: results then say what has changed since. */
  readonly session?: Session | undefined
}

/** A new turn of `agentId`, with no changes made yet. */
export const startTurn = (agentId: string, options: TurnOptions = {}): Effect.Effect<Turn> =>
  Effect.map(Effect.all([Ref.make(0), Semaphore.make(1)]), ([writes, writing]) => ({
    agentId,
    source: options.source,
    writes,
    writing,
    session: options.session
  }))

/** Runs `effect` as one turn of `agentId`: the memory tools it calls act for that agent and share one count of writes. */
export const withTurn =
  (agentId: string, options: TurnOptions = {}) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, CurrentTurn>> =>
    Effect.flatMap(startTurn(agentId, options), (turn) => Effect.provideService(effect, CurrentTurn, turn))

// ---------------------------------------------------------------------------------------------------------------------
// The tools

/** Why a tool changed nothing, as its result tells the model. */
export const Reason = Schema.Literals([
  "MemoryFull",
  "NoMatch",
  "Denied",
  "Empty",
  "TooLong",
  "Secret",
  "BadTopic",
  "NoSuchTopic",
  "TooManyTopics",
  "TooManyWrites",
  "NeedsApproval",
  "StorageError"
])

/** Why a tool changed nothing. */
export type Reason = typeof Reason.Type

/** A tool's failure result: why, a message the model can act on, and the entries a match could mean. */
export class MemoryToolError extends MaskedTaggedError<MemoryToolError>()("MemoryToolError", {
  reason: Reason,
  message: Schema.String,
  /** For NoMatch: up to eight entries the match is part of, to quote one whole. */
  candidates: Schema.optionalKey(Schema.Array(Schema.String))
}) {}

/** An optional parameter; a model that sends `null` for it means the same as leaving it out. */
const optional = <S extends Schema.Top>(schema: S) => Schema.optionalKey(Schema.NullOr(schema))

const topicParameter = optional(Schema.String).annotate({
  description: 'A topic of memory (a short lower-case name such as "travel"); MEMORY.md when left out'
})

const teamParameter = optional(Schema.Boolean).annotate({
  description: "true for team memory, which every agent reads; the agent's own memory when left out"
})

/** What `remember` and `forget` answer: whether memory changed, and how, with the file's size against its limit. */
export const Changed = Schema.Struct({
  changed: Schema.Boolean,
  message: Schema.String,
  /** What has changed in either MEMORY.md since the prompt's memory section was frozen, when it has. */
  meanwhile: Schema.optionalKey(Schema.String)
})

/** An entry `recall` gives. */
export const Recalled = Schema.Struct({
  scope: Schema.Literals(["own", "team"]),
  topic: Schema.optionalKey(Schema.String),
  text: Schema.String,
  added: Schema.optionalKey(Schema.String),
  /** How much it means to the query, for a search (higher is more). */
  score: Schema.optionalKey(Schema.Number)
})

/** What `recall` answers: a sentence saying what it found, the entries, best first, and whether more match. */
export const RecallResult = Schema.Struct({
  message: Schema.String,
  entries: Schema.Array(Recalled),
  more: Schema.Boolean,
  /** What has changed in either MEMORY.md since the prompt's memory section was frozen, when it has. */
  meanwhile: Schema.optionalKey(Schema.String)
})

/** `remember`: adds an entry, or replaces the one `replace` names. */
export const RememberTool = Tool.make("remember", {
  description:
    "Keep a lasting fact in long-term memory: one short, self-contained sentence that says whom it is about " +
    '("The user prefers tea to coffee"). Keep only what will matter in later conversations, never secrets. With ' +
    "replace, the entry that text names is changed in its place.",
  parameters: Schema.Struct({
    text: Schema.String.annotate({ description: "The fact, as one self-contained sentence" }),
    topic: topicParameter,
    team: teamParameter,
    replace: optional(Schema.String).annotate({
      description: "The text of the entry this one replaces, or a part only that entry holds"
    })
  }),
  success: Changed,
  failure: MemoryToolError,
  failureMode: "return",
  dependencies: [CurrentTurn]
})

/** `forget`: removes the entry `match` names. */
export const ForgetTool = Tool.make("forget", {
  description:
    "Remove an entry of long-term memory that is wrong or no longer true. match is the entry's text, or a part " +
    "only it holds; give its topic (and team) where recall found it.",
  parameters: Schema.Struct({
    match: Schema.String.annotate({ description: "The entry's text, or a part only that entry holds" }),
    topic: topicParameter,
    team: teamParameter
  }),
  success: Changed,
  failure: MemoryToolError,
  failureMode: "return",
  dependencies: [CurrentTurn]
})

/** `recall`: searches own and team memory, or reads a topic whole. */
export const RecallTool = Tool.make("recall", {
  description:
    "Search all of long-term memory, the agent's own and the team's, topics included: only the entries that matter " +
    "to query (its names, rare words and dates count most), best first, each with its score. With topic (and no " +
    "query), read that topic whole.",
  parameters: Schema.Struct({
    query: optional(Schema.String).annotate({ description: "Words to search for" }),
    topic: optional(Schema.String).annotate({ description: "A topic to read whole, or to search in" })
  }),
  success: RecallResult,
  failure: MemoryToolError,
  failureMode: "return",
  dependencies: [CurrentTurn]
})

/** The memory tools: `remember`, `forget`, `recall`. */
export const MemoryTools = Toolkit.make(RememberTool, ForgetTool, RecallTool)

/** The handlers of the memory tools, as the toolkit's layer provides them. */
export type Handlers = Tool.HandlersFor<Toolkit.Tools<typeof MemoryTools>>

// ---------------------------------------------------------------------------------------------------------------------
// The handlers

/** Every error a tool's work can meet. */
type ToolFailure = MemoryFull | NoMatch | Denied | BadTopic | NoSuchTopic | TooManyTopics | StorageError

/** A write's work in a scope, for a turn: whether memory changed, and how. */
type Change = (
  scope: Scope.Scope,
  turn: Turn
) => Effect.Effect<{ readonly changed: boolean; readonly message: string }, ToolFailure>

const quote = (text: string) => JSON.stringify(text)

/** An entry memory cannot keep, or team memory the agent may not write, as the tool's result. */
const deniedRefusal = (denied: Denied["reason"]): MemoryToolError => {
  switch (denied._tag) {
    case "EmptyEntry":
      return new MemoryToolError({ reason: "Empty", message: denied.message })
    case "TooLong":
      return new MemoryToolError({
        reason: "TooLong",
        message: `${denied.message}: shorten it, or split it into several entries`
      })
    case "SecretEntry":
      return new MemoryToolError({ reason: "Secret", message: denied.message })
    case "TeamMemory":
      return new MemoryToolError({
        reason: "Denied",
        message: `${denied.message}: leave team out to use the agent's own memory`
      })
  }
}

/** A failure as the tool's result: its reason and message, with a hint on what to do where the message has none. */
const refusal = (error: ToolFailure): MemoryToolError => {
  switch (error._tag) {
    case "NoMatch":
      return new MemoryToolError({
        reason: "NoMatch",
        message:
          error.candidates.length === 0
            ? `${error.message}: recall finds where an entry is (its topic, and whether it is team memory)`
            : error.message,
        candidates: error.candidates
      })
    case "Denied":
      return deniedRefusal(error.reason)
    case "MemoryFull":
    case "BadTopic":
    case "NoSuchTopic":
    case "TooManyTopics":
    case "StorageError":
      return new MemoryToolError({ reason: error._tag, message: error.message })
  }
}

/** `value`, unless it is `null` or absent. */
const given = <A>(value: A | null | undefined): A | undefined => (value === null ? undefined : value)

/** A recalled entry as the tool gives it: where it is, its text masked, and when it was added. */
const recalledEntry = (entry: MemoryRecall.Found, mask: (text: string) => string): typeof Recalled.Type => ({
  scope: entry.scope,
  text: mask(entry.text),
  ...(entry.topic === undefined ? {} : { topic: entry.topic }),
  ...(entry.added === undefined ? {} : { added: entry.added }),
  ...(entry.score === 0 ? {} : { score: Math.round(entry.score * 100) / 100 })
})

/** What a recall found, in a sentence. */
const recallMessage = (recalled: MemoryRecall.Recalled, query: string): string => {
  const count = recalled.entries.length
  const entries = `${Text.count(count)} entr${count === 1 ? "y" : "ies"}`
  const where = recalled.topic === undefined ? "" : ` of the topic ${quote(recalled.topic)}`
  if (query.trim() === "") {
    return recalled.topic !== undefined
      ? `the topic ${quote(recalled.topic)}, whole: ${entries}`
      : recalled.more
        ? `the ${entries} newest; there are more: search with a query, or read a topic`
        : `all ${entries}, the newest first`
  }
  if (count === 0) return `no entry${where} matches ${quote(query)}`
  return recalled.more
    ? `the ${entries}${where} most related to ${quote(query)}; more match: narrow the query, or read a topic`
    : `${entries}${where} match${count === 1 ? "es" : ""} ${quote(query)}, the most related first`
}

/** The most entries `meanwhile` names of each file's gains and of its losses. */
const meanwhileListed = 3

/** The texts of `texts` not in `other` (as multisets, in order). */
const missingFrom = (texts: ReadonlyArray<string>, other: ReadonlyArray<string>): ReadonlyArray<string> => {
  const left = new Map<string, number>()
  for (const text of other) left.set(text, (left.get(text) ?? 0) + 1)
  return texts.filter((text) => {
    const count = left.get(text) ?? 0
    if (count > 0) left.set(text, count - 1)
    return count === 0
  })
}

/**
 * What has changed in both MEMORY.md files between `then` (the session's frozen section) and `now`, in a sentence
 * (`undefined` when nothing has): the entries each file gained and lost, a few of each, masked by `mask`.
 */
export const changedSince = (
  then: Session["entries"],
  now: Session["entries"],
  mask: (text: string) => string
): string | undefined => {
  const listed = (texts: ReadonlyArray<string>) =>
    texts
      .slice(0, meanwhileListed)
      .map((text) => quote(mask(text)))
      .join(", ") + (texts.length > meanwhileListed ? ` and ${Text.count(texts.length - meanwhileListed)} more` : "")
  const parts = (["own", "team"] as const).flatMap((side) => {
    const gained = missingFrom(now[side], then[side])
    const lost = missingFrom(then[side], now[side])
    const changes = [
      ...(gained.length === 0 ? [] : [`gained ${listed(gained)}`]),
      ...(lost.length === 0 ? [] : [`lost ${listed(lost)}`])
    ]
    return changes.length === 0 ? [] : [`${side === "own" ? "your" : "the team's"} MEMORY.md ${changes.join(" and ")}`]
  })
  return parts.length === 0
    ? undefined
    : `memory has changed since this conversation began (the memory section of your prompt shows it as it was then): ${parts.join("; ")}`
}

/**
 * The memory tools' handlers over the memory store, for the agent of the `CurrentTurn`; the host's `Agents` says
 * whether that agent may write team memory. The settings (the limits, `toolWritesPerTurn`, `recallResultsMax`,
 * `recallBudget`) are those of the `MemoryConfig` in force when the layer is built.
 */
export const layer = MemoryTools.toLayer(
  Effect.gen(function* () {
    const store = yield* MemoryStore
    const agents = yield* Agents
    const settings = yield* MemoryConfig.MemoryConfig
    const limits = { resultsMax: settings.recallResultsMax, budget: settings.recallBudget }
    const recallIndexes = MemoryRecall.indexes()
    const mask = (text: string) => Lines.mask(text, settings)
    /** What has changed since the current turn's session was frozen, if the host gave the session and anything has. */
    const meanwhile = Effect.gen(function* () {
      const { agentId, session } = yield* CurrentTurn
      if (session === undefined) return {}
      const [own, team] = yield* Effect.all([store.load(Scope.own(agentId)), store.load(Scope.team)], {
        concurrency: "unbounded"
      })
      const changed = changedSince(session.entries, { own: memoryEntries(own), team: memoryEntries(team) }, mask)
      return changed === undefined ? {} : { meanwhile: changed }
    }).pipe(Effect.catch(() => Effect.succeed({})))
    const masked = (error: MemoryToolError) =>
      new MemoryToolError({
        reason: error.reason,
        message: mask(error.message),
        ...(error.candidates === undefined ? {} : { candidates: error.candidates.map(mask) })
      })

    /**
     * Runs a write of the current turn: refused when the turn has made its changes, or when the host knows no such
     * agent or it may not write team memory; its outcome as the tool's result. Only a write that changed memory counts.
     */
    const write = Effect.fnUntraced(function* (team: boolean, change: Change) {
      const turn = yield* CurrentTurn
      return yield* turn.writing.withPermit(
        Effect.gen(function* () {
          const made = yield* Ref.get(turn.writes)
          if (made >= settings.toolWritesPerTurn) {
            const changes = `${Text.count(made)} change${made === 1 ? "" : "s"}`
            return yield* new MemoryToolError({
              reason: "TooManyWrites",
              message: `this turn has made ${changes} to memory, the most one turn may make: this one was not made; make the rest in a later turn if they still matter`
            })
          }
          const agent = yield* agents.get(turn.agentId)
          if (agent === undefined) {
            return yield* new MemoryToolError({
              reason: "Denied",
              message: `the host knows no agent ${quote(turn.agentId)}: its memory cannot be changed`
            })
          }
          if (team && !agent.mayWriteTeam) {
            return yield* refusal(new Denied({ reason: new TeamMemory({ agentId: agent.id }) }))
          }
          const scope = team ? Scope.team : Scope.own(turn.agentId)
          const outcome = yield* change(scope, turn).pipe(Effect.mapError(refusal))
          if (outcome.changed) yield* Ref.update(turn.writes, (n) => n + 1)
          return { changed: outcome.changed, message: mask(outcome.message), ...(yield* meanwhile) }
        })
      )
    })

    return MemoryTools.of({
      remember: Effect.fn("MemoryTools.remember")(function* (params) {
        const flag = Instruction.check(params.text)
        if (flag !== undefined) {
          return yield* new MemoryToolError({
            reason: "NeedsApproval",
            message: `nothing was written: ${Instruction.describe(flag)}; a person must approve such an entry. Keep facts about the user and their work, in the third person ("The user prefers answers in Spanish")`
          })
        }
        const team = given(params.team) === true
        return yield* write(team, (scope, turn) => {
          const meta: Entry.Metadata = [
            ...(turn.source === undefined ? [] : [["source", turn.source] as const]),
            ...(team ? [["by", turn.agentId] as const] : [])
          ]
          const topic = given(params.topic)
          const replace = given(params.replace)
          return replace === undefined
            ? store.add({ scope, topic, text: params.text, meta, actor: "agent" })
            : store.replace({ scope, topic, match: replace, text: params.text, actor: "agent" })
        })
      }, Effect.mapError(masked)),
      forget: Effect.fn("MemoryTools.forget")(function* (params) {
        return yield* write(given(params.team) === true, (scope) =>
          store.remove({ scope, topic: given(params.topic), match: params.match, actor: "agent" })
        )
      }, Effect.mapError(masked)),
      recall: Effect.fn("MemoryTools.recall")(function* (params) {
        const turn = yield* CurrentTurn
        const query = given(params.query) ?? ""
        const today = yield* MemoryRecall.today(settings.timeZone)
        const recalled = yield* MemoryRecall.recall(
          { agentId: turn.agentId, query, topic: given(params.topic), today },
          limits,
          recallIndexes
        ).pipe(Effect.provideService(MemoryStore, store), Effect.mapError(refusal))
        return {
          message: mask(recallMessage(recalled, query)),
          entries: recalled.entries.map((entry) => recalledEntry(entry, mask)),
          more: recalled.more,
          ...(yield* meanwhile)
        }
      }, Effect.mapError(masked))
    })
  })
)

// ---------------------------------------------------------------------------------------------------------------------
// For a host that is not written with Effect

/** A tool as a model client declares it: its name, what it does, and its parameters' JSON Schema. */
export interface Definition {
  readonly name: string
  readonly description: string
  readonly parameters: JsonSchema.JsonSchema
}

/** The memory tools as a model client declares them. */
export const definitions: ReadonlyArray<Definition> = Object.values(MemoryTools.tools).map((tool) => ({
  name: tool.name,
  description: Tool.getDescription(tool) ?? "",
  parameters: Tool.getJsonSchema(tool)
}))

/** A tool call's result: its JSON value for the model, and whether it is a failure (a provider's `is_error`). */
export interface CallResult {
  readonly isError: boolean
  readonly result: unknown
}

/**
 * Runs one tool call a model made, by the tool's name and its JSON parameters, in `turn`: its result as JSON for the
 * model. An unknown tool or parameters the tool cannot take are failure results too; nothing fails.
 */
export const call = (turn: Turn, name: string, params: unknown): Effect.Effect<CallResult, never, Handlers> =>
  Effect.gen(function* () {
    const tools = yield* MemoryTools
    const results = yield* tools.handle(name as keyof typeof MemoryTools.tools, params as never)
    const last = yield* Stream.runLast(results)
    return Option.match(last, {
      onNone: (): CallResult => ({ isError: true, result: { message: `the tool ${quote(name)} gave no result` } }),
      onSome: (output): CallResult => ({ isError: output.isFailure, result: output.encodedResult })
    })
  }).pipe(
    Effect.provideService(CurrentTurn, turn),
    Effect.catch((error: AiError.AiError) => Effect.succeed({ isError: true, result: { message: error.message } }))
  )
