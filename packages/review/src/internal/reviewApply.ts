/**
 * Applying a vetted answer (SPEC 4.4 step 6): in order, with the scope rules, through the memory store. A change whose
 * entry has gone or that is not allowed is skipped with a warning; the agent deleted meanwhile stops it; any other
 * failure is remembered while the rest are tried, then fails it.
 */
import {
  type Answer,
  type BadTopic,
  type Denied,
  type Entry,
  type MemoryFull,
  type MemoryWriteError,
  type NoMatch,
  type Selection,
  type TooManyTopics
} from "@mneme/core"
import { Data, Effect, Result } from "effect"
import type { Agents } from "../Agents.ts"
import type { MemoryStore, Outcome as StoreOutcome, Scope } from "../MemoryStore.ts"
import type { Applied, Edited, Skipped } from "../MemoryReview.ts"

/** The agent was deleted while its review ran: the review stops and keeps nothing more. */
export class AgentGone extends Data.TaggedError("AgentGone")<{ readonly agentId: string }> {}

/** A failure that fails the review once the rest of the answer was tried. */
export type ApplyFailure = MemoryFull | TooManyTopics | BadTopic | MemoryWriteError

/** What applying did, added to as it goes. */
export interface Tally {
  readonly added: Array<Applied>
  readonly edited: Array<Edited>
  readonly removed: Array<Applied>
  readonly skipped: Array<Skipped>
}

const actor = { actor: "review", auto: true } as const

/** `meta` with `source` set to `anchor`, kept in place when present. */
const withSource = (meta: Entry.Metadata, anchor: string): Entry.Metadata =>
  meta.some(([key]) => key === "source")
    ? meta.map(([key, value]) => [key, key === "source" ? anchor : value] as const)
    : [...meta, ["source", anchor] as const]

const topicOf = (topic: string | undefined) => (topic === undefined ? {} : { topic })

/** A short description of a change, for warnings. */
export const describe = (change: Answer.Change): string =>
  change.op === "add" ? `add ${JSON.stringify(change.text)}` : `${change.op} entry ${change.entry}`

/** Applies `changes` in order; gives whether anything changed. */
export const apply = Effect.fnUntraced(function* (input: {
  readonly store: MemoryStore["Service"]
  readonly agents: Agents["Service"]
  readonly agentId: string
  readonly changes: ReadonlyArray<Answer.Change>
  readonly shown: ReadonlyArray<Selection.Shown>
  readonly anchor: string
  readonly tally: Tally
  readonly skip: (skipped: Skipped) => Effect.Effect<void>
}): Effect.fn.Return<boolean, AgentGone | ApplyFailure> {
  const { store, agentId, anchor, tally } = input
  const own: Scope = { kind: "agent", agentId }
  let failure: ApplyFailure | undefined
  let changed = false
  for (const change of input.changes) {
    const agent = yield* input.agents.get(agentId)
    if (agent === undefined) return yield* new AgentGone({ agentId })
    let done: Effect.Effect<StoreOutcome, ApplyFailure | NoMatch | Denied>
    let record: (outcome: StoreOutcome) => void
    if (change.op === "add") {
      const team = change.team === true && agent.mayWriteTeam
      const scope = team ? "team" : "own"
      done = store.add({
        scope: team ? { kind: "team" } : own,
        ...topicOf(change.topic),
        text: change.text,
        meta: team
          ? [
              ["source", anchor],
              ["by", agentId]
            ]
          : [["source", anchor]],
        ...actor
      })
      record = (outcome) => tally.added.push({ scope, topic: outcome.topic, text: change.text })
    } else {
      const entry = input.shown[change.entry - 1]
      if (entry === undefined || (entry.scope === "team" && !agent.mayWriteTeam)) {
        const reason =
          entry === undefined ? `entry ${change.entry} was not listed` : "this agent may not change team memory"
        yield* input.skip({ change, reason })
        continue
      }
      const target = { scope: entry.scope === "team" ? ({ kind: "team" } as const) : own, ...topicOf(entry.topic) }
      const applied = { scope: entry.scope, topic: entry.topic }
      if (change.op === "edit") {
        done = store.replace({
          ...target,
          match: entry.text,
          text: change.text,
          meta: withSource(entry.meta, anchor),
          ...actor
        })
        record = () => tally.edited.push({ ...applied, before: entry.text, text: change.text })
      } else {
        done = store.remove({ ...target, match: entry.text, ...actor })
        record = () => tally.removed.push({ ...applied, text: entry.text })
      }
    }
    const result = yield* Effect.result(done)
    if (Result.isSuccess(result)) {
      if (result.success.changed) {
        changed = true
        record(result.success)
      }
    } else if (result.failure._tag === "NoMatch" || result.failure._tag === "Denied") {
      yield* input.skip({ change, reason: result.failure.message })
    } else {
      failure ??= result.failure
    }
  }
  if (failure !== undefined) return yield* Effect.fail(failure)
  return changed
})
