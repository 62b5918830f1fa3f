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
import { Denied, type Entry, Instruction, Lines, MemoryConfig, MemoryScope, TeamMemory, Text } from "@mneme/core"
import { Effect, Option, Ref, Stream } from "effect"
// By module, not from the "effect/ai" index, which loads all of effect/ai (the MCP server among it) in every process.
import type * as AiError from "effect/ai/AiError"
import * as Tool from "effect/ai/Tool"
import type * as Toolkit from "effect/ai/Toolkit"
import type * as JsonSchema from "effect/JsonSchema"
import { Agents } from "./Agents.ts"
import * as MemoryRecall from "./MemoryRecall.ts"
import { memoryEntries, type Session } from "./MemoryPrompt.ts"
import { MemoryStore } from "./MemoryStore.ts"
import { MemoryToolError, MemoryTools } from "./internal/memoryToolkit.ts"
import { given, quote, recalledEntry, recallMessage, refusal, type ToolFailure } from "./internal/memoryToolResults.ts"
import { CurrentTurn, type Turn } from "./internal/memoryTurn.ts"

// ---------------------------------------------------------------------------------------------------------------------
// The turn

export { CurrentTurn, startTurn, type Turn, type TurnOptions, withTurn } from "./internal/memoryTurn.ts"

// ---------------------------------------------------------------------------------------------------------------------
// The tools

export {
  Changed,
  ForgetTool,
  MemoryToolError,
  MemoryTools,
  Reason,
  RecallResult,
  Recalled,
  RecallTool,
  RememberTool
} from "./internal/memoryToolkit.ts"

/** The handlers of the memory tools, as the toolkit's layer provides them. */
export type Handlers = Tool.HandlersFor<Toolkit.Tools<typeof MemoryTools>>

// ---------------------------------------------------------------------------------------------------------------------
// The handlers

/** A write's work in a scope, for a turn: whether memory changed, and how. */
type Change = (
  scope: MemoryScope.MemoryScope,
  turn: Turn
) => Effect.Effect<{ readonly changed: boolean; readonly message: string }, ToolFailure>

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
      const [own, team] = yield* Effect.all([store.load(MemoryScope.own(agentId)), store.load(MemoryScope.team)], {
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
          const scope = team ? MemoryScope.team : MemoryScope.own(turn.agentId)
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
