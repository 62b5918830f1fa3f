/**
 * A full memory makes room: a consolidation pass over one scope's MEMORY.md. The model is shown the whole file and
 * answers in the review's own format with `move` beside it (`Consolidation` in the core); its answer is vetted by the
 * review's rules and applied as one batch journaled `op: consolidate`, which an undo reverts whole. Every entry it
 * removes, merges or moves is listed in its outcome, and its text stays in the journal's lines. It is bounded: at most
 * one per scope per `consolidateEvery` (kept in the review state, so a restart buys none), unless a person asks.
 */
import {
  type BadTopic,
  Consolidation,
  Entry,
  Lines,
  type MalformedAnswer,
  MemoryConfig,
  MemoryEdit,
  MemoryScope,
  type ModelError,
  type StorageError,
  type UnlistedEntry,
  Vet
} from "@mneme/core"
import { Clock, Duration, Effect, Result } from "effect"
import type { StoredFile } from "./MemoryRoot.ts"
import * as MemoryRecall from "./MemoryRecall.ts"
import { MemoryStore, withinSizes } from "./MemoryStore.ts"
import { ReviewModel } from "./ReviewModel.ts"
import type * as ReviewOutcome from "./ReviewOutcome.ts"
import type { Applied, Edited, Moved } from "./ReviewOutcome.ts"
import { ReviewState } from "./ReviewState.ts"

/** What a consolidation works with. */
export interface Services {
  readonly settings: MemoryConfig.Settings
  readonly store: MemoryStore["Service"]
  readonly state: ReviewState["Service"]
  readonly model: ReviewModel["Service"]
}

/** What a consolidation did (or, dry, would do). */
export type Consolidated = ReviewOutcome.Consolidated

/** The bound allows no consolidation of this scope before `until` (epoch ms). */
export interface NotDue {
  readonly _tag: "NotDue"
  readonly file: string
  readonly until: number
}

/** The MEMORY.md is past its size (edited by hand): it is not shown whole to a model, and stays a person's to trim. */
export interface PastSize {
  readonly _tag: "PastSize"
  readonly file: string
  readonly size: number
}

/** How a consolidation went. */
export type Result = Consolidated | NotDue | PastSize

/** Why a consolidation failed: the model, its answer, or the storage. */
export type ConsolidationError = ModelError | MalformedAnswer | UnlistedEntry | BadTopic | StorageError

/** Options: `force` a person's run past the bound; `dryRun` asks and plans but writes nothing, the bound included. */
export interface Options {
  readonly force?: boolean | undefined
  readonly dryRun?: boolean | undefined
  /** Who the journal names: "review" by default. */
  readonly actor?: string | undefined
}

const memoryOf = (files: ReadonlyArray<StoredFile>) => files.find((file) => file.topic === undefined)!

/** One change of the plan: the store's changes (a move is two) and what it is for the outcome. */
interface Step {
  readonly inputs: ReadonlyArray<MemoryEdit.Change>
  readonly landed:
    | { readonly _tag: "Removed"; readonly entry: Applied }
    | { readonly _tag: "Edited"; readonly entry: Edited }
    | { readonly _tag: "Moved"; readonly entry: Moved }
    | { readonly _tag: "Added"; readonly entry: Applied }
}

/** Consolidates the MEMORY.md of `scope`, within the bound unless forced. */
export const consolidate = Effect.fnUntraced(function* (
  services: Services,
  scope: MemoryScope.MemoryScope,
  options: Options = {}
): Effect.fn.Return<Result, ConsolidationError> {
  const { settings, store, state, model } = services
  const side = MemoryScope.side(scope)
  // Only as much of a file past its size is read as is shown of it: such a file (edited by hand) is a person's to trim.
  const glance = yield* store.load(scope, withinSizes(settings))
  const shown = memoryOf(glance.files)
  if (shown.size > settings.memoryMax) return { _tag: "PastSize", file: shown.file, size: shown.size }
  const now = yield* Clock.currentTimeMillis
  const last = (yield* state.snapshot).consolidated?.[glance.dir]
  const every = Duration.toMillis(settings.consolidateEvery)
  if (options.force !== true && last !== undefined && now - last < every) {
    return { _tag: "NotDue", file: shown.file, until: last + every }
  }
  const loaded = yield* store.load(scope)
  const memory = memoryOf(loaded.files)
  const entries = memory.parsed.entries
  const nothing: Consolidated = {
    _tag: "Consolidated",
    scope: side,
    file: memory.file,
    before: memory.size,
    after: memory.size,
    removed: [],
    edited: [],
    moved: [],
    added: [],
    leftOut: [],
    skipped: [],
    modelCalls: 0,
    dryRun: options.dryRun === true
  }
  if (entries.length === 0) return nothing
  // The bound counts the attempt, so a consolidation that fails is not tried again at once.
  if (options.dryRun !== true) yield* state.markConsolidated(loaded.dir, now)
  const request = Consolidation.request(
    {
      scope: side === "team" ? "the team's memory (every agent reads it)" : "the agent's own memory",
      size: memory.size,
      limit: settings.memoryMax,
      entries: entries.map((entry) => ({ text: entry.text, added: Entry.metaValue(entry.meta, "added") })),
      topics: loaded.files.flatMap((file) => (file.topic === undefined ? [] : [file.topic]))
    },
    settings
  )
  const answer = yield* model.generate({ system: Consolidation.system, request, answer: "consolidation" })
  const vetted = yield* Effect.flatMap(Consolidation.parse(answer.text), (changes) =>
    Consolidation.vet(changes, entries.length, settings)
  )
  const actor = { actor: options.actor ?? "review", auto: options.actor === undefined }
  const named = new Set<number>()
  const skipped: Array<string> = []
  const steps: Array<Step> = []
  const numbered = (n: number) => {
    if (named.has(n)) {
      skipped.push(`entry ${n} is named by an earlier change`)
      return undefined
    }
    named.add(n)
    return entries[n - 1]!
  }
  const where = { scope, actor: actor.actor, auto: actor.auto }
  for (const change of vetted.apply) {
    if (change.op === "add") {
      steps.push({
        inputs: [
          { op: "add", ...where, ...(change.topic === undefined ? {} : { topic: change.topic }), text: change.text }
        ],
        landed: { _tag: "Added", entry: { scope: side, topic: change.topic, text: change.text } }
      })
      continue
    }
    const entry = numbered(change.entry)
    if (entry === undefined) continue
    steps.push(
      change.op === "edit"
        ? {
            inputs: [{ op: "replace", ...where, match: entry.text, exact: true, text: change.text, meta: entry.meta }],
            landed: {
              _tag: "Edited",
              entry: { scope: side, topic: undefined, before: entry.text, text: change.text }
            }
          }
        : {
            inputs: [{ op: "remove", ...where, match: entry.text, exact: true }],
            landed: { _tag: "Removed", entry: { scope: side, topic: undefined, text: entry.text } }
          }
    )
  }
  for (const move of vetted.moves) {
    const entry = numbered(move.entry)
    if (entry === undefined) continue
    steps.push({
      inputs: [
        { op: "remove", ...where, match: entry.text, exact: true },
        { op: "add", ...where, topic: move.topic, text: entry.text, meta: entry.meta }
      ],
      landed: { _tag: "Moved", entry: { text: entry.text, topic: move.topic } }
    })
  }
  // Room is made before it is used: removes first, then moves, then edits and adds.
  const rank = { Removed: 0, Moved: 1, Edited: 2, Added: 3 } as const
  steps.sort((a, b) => rank[a.landed._tag] - rank[b.landed._tag])
  // Planned first over the files as read: a step any of whose changes cannot be made is left out whole, so a move
  // whose topic cannot take the entry never removes it from MEMORY.md.
  const context: MemoryEdit.EditSettings = { settings, today: yield* MemoryRecall.today(settings.timeZone) }
  const trial = (kept: ReadonlyArray<Step>) =>
    MemoryEdit.planAll(
      MemoryEdit.start([loaded]),
      kept.flatMap((step) => step.inputs).map((input) => MemoryEdit.prepare(input, context))
    )
  const failing = (kept: ReadonlyArray<Step>) => {
    const { results } = trial(kept)
    let at = 0
    return kept.filter((step) => {
      const mine = results.slice(at, at + step.inputs.length)
      at += step.inputs.length
      const failure = mine.find(Result.isFailure)
      const unchanged = mine.find((result) => Result.isSuccess(result) && !result.success.changed)
      const why =
        failure?.failure.message ??
        (unchanged !== undefined && Result.isSuccess(unchanged) ? unchanged.success.message : undefined)
      if (why !== undefined) skipped.push(Lines.mask(why, settings))
      return why !== undefined
    })
  }
  const bad = failing(steps)
  const kept = steps.filter((step) => !bad.includes(step))
  const landed = kept.map((step) => step.landed)
  let after = memory.size
  if (options.dryRun === true) {
    const planned = trial(kept).draft.writes.find((write) => write.file === memory.file)
    after = planned?.content === undefined ? after : [...planned.content].length
  } else if (kept.length > 0) {
    yield* store.apply(
      kept.flatMap((step) => step.inputs),
      { journalAs: "consolidate" }
    )
    after = memoryOf((yield* store.load(scope)).files).size
  }
  const mask = <A extends { readonly text: string }>(entry: A): A => ({
    ...entry,
    text: Lines.mask(entry.text, settings)
  })
  return {
    ...nothing,
    after,
    removed: landed.flatMap((l) => (l._tag === "Removed" ? [mask(l.entry)] : [])),
    edited: landed.flatMap((l) =>
      l._tag === "Edited" ? [{ ...mask(l.entry), before: Lines.mask(l.entry.before, settings) }] : []
    ),
    moved: landed.flatMap((l) => (l._tag === "Moved" ? [mask(l.entry)] : [])),
    added: landed.flatMap((l) => (l._tag === "Added" ? [mask(l.entry)] : [])),
    leftOut: vetted.leftOut.map(({ change, problem }) => ({
      text: change.op === "remove" ? "" : Lines.mask(change.text, settings),
      problem: Vet.describe(problem)
    })),
    skipped,
    modelCalls: 1
  } satisfies Consolidated
})

/**
 * Consolidates the agent's own MEMORY.md, or the team's, by a person's hand (`mneme consolidate`): past the bound,
 * journaled with `actor`; `dryRun` writes nothing.
 */
export const byHand = Effect.fnUntraced(function* (
  scope: MemoryScope.MemoryScope,
  options: { readonly dryRun: boolean; readonly actor: string }
) {
  const services: Services = {
    settings: yield* MemoryConfig.MemoryConfig,
    store: yield* MemoryStore,
    state: yield* ReviewState,
    model: yield* ReviewModel
  }
  return yield* consolidate(services, scope, { force: true, dryRun: options.dryRun, actor: options.actor })
})
