/**
 * One pass of a review over the new lines (docs/spec.md 4.3–4.4): read both scopes, choose what to show, ask the model,
 * parse and vet its answer, and apply it as one batch. A pass gives back what it did as a value; a pass that fails
 * says why, how far it got, and what of its answer landed before it failed. The pass no other can follow makes the
 * review's record in its batch's commit.
 */
import {
  Answer,
  type BadTopic,
  Consolidation,
  Lines,
  type MalformedAnswer,
  type MemoryConfig,
  MemoryScope,
  type ModelError,
  Prompt,
  type StorageError,
  Text,
  type UnlistedEntry,
  Vet
} from "@mneme/core"
import { Clock, Data, Effect, Metric } from "effect"
import type { Agents, AgentInfo } from "../Agents.ts"
import { type MemoryStore, type ScopeView, withinSizes } from "../MemoryStore.ts"
import type { ReviewModel } from "../ReviewModel.ts"
import type { ReviewState } from "../ReviewState.ts"
import { type Changes, type Consolidated, metrics, noChanges, type ReviewError, warnings } from "../ReviewOutcome.ts"
import type * as MemoryConsolidation from "../MemoryConsolidation.ts"
import type { MemoryPending } from "../MemoryPending.ts"
import * as Apply from "./reviewApply.ts"
import * as Hold from "./reviewHold.ts"
import { choose, type Held } from "./reviewChoose.ts"
import * as Source from "./reviewSource.ts"

/** What a pass works with. */
export interface Services {
  readonly settings: MemoryConfig.Settings
  readonly store: MemoryStore["Service"]
  readonly state: ReviewState["Service"]
  readonly agents: Agents["Service"]
  readonly model: ReviewModel["Service"]
  /** What choosing keeps between passes over the same memory, held by the reviewer. */
  readonly chooser: Held
  /** Consolidates a scope's full MEMORY.md within its bound (`MemoryConsolidation`); none: a full file fails. */
  readonly consolidate?:
    ((scope: MemoryScope.MemoryScope) => Effect.Effect<MemoryConsolidation.Result, ReviewError>) | undefined
  /** Where entries wait for a person (`MemoryConfig.approval`); none: a backend that keeps none, nothing waits. */
  readonly pending?: MemoryPending["Service"] | undefined
}

/**
 * What a pass is about: the agent, the lines, and the sources what it keeps cites: the anchor of each line an answer
 * says a fact comes from, or `anchor` (the newest user line's) where it says none the request showed.
 */
export interface Input {
  readonly agent: AgentInfo
  readonly context: ReadonlyArray<Lines.Line>
  readonly lines: ReadonlyArray<Lines.Line>
  readonly moreFollow: boolean
  readonly anchor: string
  /** The anchor of the conversation's line `seq`. */
  readonly anchorOf: (seq: number) => Effect.Effect<string>
  /** Who else takes part, in a group conversation. */
  readonly group?: Prompt.Group | undefined
  /** The first pass of a review warns of odd files; the passes after it see the same files. */
  readonly first: boolean
  /**
   * The review's cursor: the key it is kept under, the one the review read (each pass's batch lands only while the
   * cursor is still that: `StaleCursor` once another review has moved it) and the one it moves to with the review's
   * record, made in the batch of the pass no other can follow, in one commit (`MemoryStore.transaction`).
   */
  readonly cursor: {
    readonly key: string
    readonly read: number | undefined
    readonly last: number
    readonly agentId: string
  }
  /** Whether another pass may follow this one (when its answer is at the cap and changes something). */
  readonly mayFollow: boolean
}

/**
 * What a pass did: what landed, whether anything changed, whether its answer was at the cap, and whether it made the
 * review's record.
 */
export interface Passed {
  readonly changes: Changes
  readonly changed: boolean
  readonly atCap: boolean
  readonly recorded: boolean
}

/**
 * A pass failed: why; at which stage (`read`: reading memory, before the model was asked; `ask`: asking, parsing,
 * vetting, or a batch the store could not write, so nothing of the answer landed; `apply`: the answer was applied in
 * part); and what of its answer the outcome lists.
 */
export class PassFailed extends Data.TaggedError("PassFailed")<{
  readonly error: ReviewError
  readonly stage: "read" | "ask" | "apply"
  readonly changes: Changes
}> {}

/** The agent was deleted while the model answered: nothing of the answer is kept. */
export class AgentDeleted extends Data.TaggedError("AgentDeleted")<{ readonly agentId: string }> {}

/** Warns once of each topic file the scopes could not read, and of the topic files their index does not link. */
const warnOddFiles = (scopes: ReadonlyArray<ScopeView>) =>
  Effect.gen(function* () {
    yield* Effect.forEach(
      scopes.flatMap((scope) => scope.unreadable),
      ({ file, error }) =>
        Effect.logWarning(warnings.unreadable).pipe(Effect.annotateLogs({ file, reason: error.message })),
      { discard: true }
    )
    const unlinked = scopes.flatMap((scope) => scope.unlinked.map((file) => file.file))
    if (unlinked.length > 0) yield* Effect.logWarning(warnings.unlinked).pipe(Effect.annotateLogs({ files: unlinked }))
  })

/** Reads both scopes and writes the request; nothing has been asked yet. */
const prepare = Effect.fnUntraced(function* (services: Services, input: Input) {
  const { settings, store } = services
  // Of a file past its size, only what the request shows is read (its first entries within its size).
  const sizes = withinSizes(settings)
  const [own, team] = yield* Effect.all(
    [store.load(MemoryScope.own(input.agent.id), sizes), store.load(MemoryScope.team, sizes)],
    { concurrency: 2 }
  )
  if (input.first) yield* warnOddFiles([own, team])
  const chosen = choose(own, team, input.lines, settings, services.chooser)
  const request = Prompt.request(
    {
      agent: {
        name: input.agent.name,
        ...(input.agent.role === undefined ? {} : { role: input.agent.role }),
        mayWriteTeam: input.agent.mayWriteTeam
      },
      sizes: chosen.sizes,
      shown: chosen.shown,
      hidden: chosen.hidden,
      memoryNotShown: chosen.memoryNotShown,
      context: input.context,
      lines: input.lines,
      moreFollow: input.moreFollow,
      group: input.group
    },
    settings,
    services.chooser.redact
  )
  return { own, team, shown: chosen.shown, request }
})

/** Asks the model, and parses and vets its answer against the entries listed. */
const ask = Effect.fnUntraced(function* (services: Services, request: string, listed: number) {
  const { settings, model } = services
  yield* Metric.update(metrics.promptSize, Text.length(Prompt.system) + Text.length(request))
  const answer = yield* model.generate({ system: Prompt.system, request })
  yield* Metric.update(metrics.answerSize, Text.length(answer.text))
  if (answer.usage?.inputTokens !== undefined) yield* Metric.update(metrics.inputTokens, answer.usage.inputTokens)
  if (answer.usage?.outputTokens !== undefined) yield* Metric.update(metrics.outputTokens, answer.usage.outputTokens)
  return yield* Effect.flatMap(Answer.parse(answer.text), (changes) => Answer.vet(changes, listed, settings))
})

/** The entries of an answer memory cannot keep, as the outcome lists them, with the answer's one warning. */
const leftOut = Effect.fnUntraced(function* (left: Answer.Vetted["leftOut"]) {
  const first = left[0]
  if (first === undefined) return []
  yield* Effect.logWarning(warnings.leftOut).pipe(
    Effect.annotateLogs({ problem: Answer.warning(first.problem, left.length) })
  )
  return left.map(({ change, problem }) => ({
    text: change.op === "remove" ? "" : change.text,
    problem: Vet.describe(problem)
  }))
})

/** Holds the entries that wait for a person, each in the scope it would go to, with its source; one warning. */
const hold = Effect.fnUntraced(function* (
  services: Services,
  agent: AgentInfo,
  waiting: ReadonlyArray<Hold.Waiting>,
  sources: ReadonlyArray<string>
) {
  if (waiting.length === 0 || services.pending === undefined) return
  const at = yield* Clock.currentTimeMillis
  const scopes = [MemoryScope.own(agent.id), MemoryScope.team]
  for (const scope of scopes) {
    const held = waiting.flatMap(({ change, why }, i) =>
      (change.team === true && agent.mayWriteTeam) === (scope.kind === "team")
        ? [
            {
              text: change.text,
              ...(change.topic === undefined ? {} : { topic: change.topic }),
              source: sources[i]!,
              by: agent.id,
              why,
              at
            }
          ]
        : []
    )
    if (held.length > 0) yield* services.pending.hold(scope, held, { actor: "review", auto: true })
  }
  yield* Effect.logWarning(warnings.held).pipe(
    Effect.annotateLogs({ entries: waiting.length, why: waiting.map(({ why }) => why) })
  )
})

/** Consolidates each scope of `scopes` within its bound, and warns what each that ran did. */
const makeRoom = Effect.fnUntraced(function* (services: Services, scopes: ReadonlyArray<MemoryScope.MemoryScope>) {
  const done: Array<Consolidated> = []
  for (const scope of scopes) {
    const result = yield* services.consolidate?.(scope) ?? Effect.succeed(undefined)
    if (result?._tag !== "Consolidated" || result.modelCalls === 0) continue
    done.push(result)
    yield* Effect.logWarning(warnings.consolidated).pipe(
      Effect.annotateLogs({
        file: result.file,
        before: result.before,
        after: result.after,
        removed: result.removed.length,
        edited: result.edited.length,
        moved: result.moved.length
      })
    )
  }
  return done
})

/** The consolidations of `done` as a pass's changes. */
const consolidations = (done: ReadonlyArray<Consolidated>): Changes =>
  done.length === 0 ? noChanges : { ...noChanges, consolidated: done }

/** The scopes whose MEMORY.md a pass's first read found past `consolidateAt` of its size, that the agent may change. */
const fullScopes = (services: Services, input: Input, prepared: { own: ScopeView; team: ScopeView }) =>
  [prepared.own, ...(input.agent.mayWriteTeam ? [prepared.team] : [])].flatMap((scope) =>
    Consolidation.isDue(scope.files.find((file) => file.topic === undefined)?.size ?? 0, services.settings)
      ? [scope.scope]
      : []
  )

/** One pass: a span of its own. */
export const pass = Effect.fn("MemoryReview.pass")(function* (services: Services, input: Input) {
  const read = prepare(services, input).pipe(
    Effect.mapError((error: StorageError) => new PassFailed({ error, stage: "read", changes: noChanges }))
  )
  let prepared = yield* read
  // A MEMORY.md nearly full is consolidated first (within its bound), so the answer has room to land.
  const full = input.first && services.consolidate !== undefined ? fullScopes(services, input, prepared) : []
  const before = yield* makeRoom(services, full).pipe(
    Effect.mapError((error) => new PassFailed({ error, stage: "ask", changes: noChanges }))
  )
  if (before.length > 0) prepared = yield* read
  const vetted = yield* ask(services, prepared.request, prepared.shown.length).pipe(
    Effect.mapError(
      (error: ModelError | MalformedAnswer | UnlistedEntry | BadTopic) =>
        new PassFailed({ error, stage: "ask", changes: consolidations(before) })
    )
  )
  const shownLines = Prompt.shownLines(input.context, input.lines)
  const split = Hold.split(vetted, shownLines, services.settings.approval, services.pending !== undefined)
  const vetting = {
    ...consolidations(before),
    leftOut: [...(yield* leftOut(split.leftOut)), ...split.waiting.map(Hold.asLeftOut)],
    secretsDropped: vetted.secretsDropped
  }
  if ((yield* services.agents.get(input.agent.id)) === undefined) {
    return yield* new AgentDeleted({ agentId: input.agent.id })
  }
  const allSources = yield* Source.sources(
    [...split.apply, ...split.waiting.map(({ change }) => change)],
    shownLines,
    input.anchorOf,
    input.anchor
  )
  const sources = allSources.slice(0, split.apply.length)
  yield* hold(services, input.agent, split.waiting, allSources.slice(split.apply.length)).pipe(
    Effect.mapError((error) => new PassFailed({ error, stage: "ask", changes: vetting }))
  )
  const planned = Apply.toEdits(
    {
      agent: input.agent,
      shown: prepared.shown,
      own: prepared.own,
      team: prepared.team,
      sources,
      settings: services.settings
    },
    split.apply
  )
  const recordAt = vetted.atCap && input.mayFollow ? undefined : yield* Clock.currentTimeMillis
  const { key, last, agentId } = input.cursor
  // The batch, and the record where this pass makes it and its answer lands whole, as one unit of work.
  const applying = (changes: typeof planned) =>
    services.store
      .transaction(
        Effect.gen(function* () {
          yield* services.state.expectCursor(key, input.cursor.read)
          const done = yield* Apply.apply(services.store, changes, services.settings)
          if (recordAt !== undefined && done.failure === undefined) {
            yield* services.state.recordReview(key, last, agentId, { at: recordAt, ok: true, reason: null })
          }
          return done
        })
      )
      .pipe(Effect.mapError((error) => new PassFailed({ error, stage: "ask", changes: vetting })))
  const first = yield* applying(planned)
  // A change that found MEMORY.md full makes room: the scope is consolidated (within its bound), then the changes
  // that failed so are tried again.
  const fullChanges = planned.filter(
    (p) =>
      p._tag === "Store" &&
      first.changes.failed.some((failed) => failed.change === p.change && failed.error._tag === "MemoryFull")
  )
  const fullAt = fullChanges.flatMap((p) => (p._tag === "Store" ? [p.input.scope] : []))
  const made =
    services.consolidate === undefined || fullAt.length === 0
      ? []
      : yield* makeRoom(
          services,
          fullAt.filter((scope, i) => fullAt.findIndex((other) => MemoryScope.equals(other, scope)) === i)
        ).pipe(Effect.mapError((error) => new PassFailed({ error, stage: "apply", changes: first.changes })))
  const done = made.length === 0 ? first : Apply.merged(first, yield* applying(fullChanges))
  const consolidated = [...before, ...made]
  const changes = {
    ...done.changes,
    leftOut: vetting.leftOut,
    secretsDropped: vetting.secretsDropped,
    ...(consolidated.length === 0 ? {} : { consolidated })
  }
  if (done.failure !== undefined) return yield* new PassFailed({ error: done.failure, stage: "apply", changes })
  return { changes, changed: done.changed, atCap: vetted.atCap, recorded: recordAt !== undefined } satisfies Passed
})
