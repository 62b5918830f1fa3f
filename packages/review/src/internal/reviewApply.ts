/**
 * Applying a vetted answer (docs/spec.md 4.4 step 6) as one batch of the memory store: each change planned against the
 * entries the review listed (a numbered edit or remove acts on exactly that entry: its scope, its topic and its real
 * text, with `exact` matching), applied in order under one hold of the writer, and each result read back into what
 * landed. A change whose entry has gone or that is not allowed is skipped with a warning; any other failure is
 * remembered while the rest are tried, and then fails the review. The review's record can be made in the batch's
 * commit, where the answer lands whole.
 */
import {
  type Answer,
  type BadTopic,
  Denied,
  type Entry,
  Lines,
  type MemoryEdit,
  type MemoryFull,
  MemoryScope,
  NoMatch,
  type Selection,
  TeamMemory,
  type TooManyTopics
} from "@mneme/core"
import { Effect, Result } from "effect"
import type { AgentInfo } from "../Agents.ts"
import type { StoredScope } from "../MemoryRoot.ts"
import type { MemoryStore } from "../MemoryStore.ts"
import {
  type Applied,
  type Changes,
  describeChange,
  type Edited,
  type FailedChange,
  noChanges,
  type Skipped,
  warnings
} from "../ReviewOutcome.ts"

/** A failure that fails the review once the rest of the answer was tried. */
export type ApplyFailure = MemoryFull | TooManyTopics | BadTopic

/** What one change of the answer landed as, once applied. */
type Landed =
  | { readonly _tag: "Added"; readonly entry: Applied }
  | { readonly _tag: "Edited"; readonly entry: Edited }
  | { readonly _tag: "Removed"; readonly entry: Applied }

/** One change of the answer, planned: a change of the store and what it lands as, or skipped before the store. */
type Planned =
  | {
      readonly _tag: "Store"
      readonly change: Answer.Change
      readonly input: MemoryEdit.Change
      readonly landed: (outcome: MemoryEdit.Outcome) => Landed
    }
  | { readonly _tag: "Skip"; readonly change: Answer.Change; readonly error: NoMatch | Denied }

/** What applying an answer did. */
export interface Done {
  /** What landed and what was skipped (the answer's left-out entries are the caller's). */
  readonly changes: Changes
  /** Whether anything changed. */
  readonly changed: boolean
  /** The first failure that fails the review, once the rest was tried (every one is in `changes.failed`). */
  readonly failure: ApplyFailure | undefined
}

/**
 * What an answer's changes are turned into edits against: who, the entries listed and the scopes they were read
 * from, and the source each change cites (in the answer's order).
 */
export interface AnswerBasis {
  readonly agent: AgentInfo
  readonly shown: ReadonlyArray<Selection.Shown>
  readonly own: StoredScope
  readonly team: StoredScope
  readonly sources: ReadonlyArray<string>
  readonly settings: Lines.CutSettings
}

const actor = { actor: "review", auto: true } as const

/** `meta` with `source` set, kept in place when present. */
const withSource = (meta: Entry.Metadata, source: string): Entry.Metadata =>
  meta.some(([key]) => key === "source")
    ? meta.map(([key, value]) => [key, key === "source" ? source : value] as const)
    : [...meta, ["source", source] as const]

const topicOf = (topic: string | undefined) => (topic === undefined ? {} : { topic })

/** A short description of a change, for warnings. */
export const describe = describeChange

/** The file an entry of `side` and `topic` was listed from, relative to the root. */
const fileOf = (context: AnswerBasis, side: "own" | "team", topic: string | undefined) =>
  (side === "own" ? context.own : context.team).files.find((file) => file.topic === topic)?.file ?? ""

/** Plans an `add`: to team memory only where the agent may write it, to its own otherwise. */
const planAdd = (context: AnswerBasis, change: Extract<Answer.Change, { op: "add" }>, source: string): Planned => {
  const { agent } = context
  const team = change.team === true && agent.mayWriteTeam
  return {
    _tag: "Store",
    change,
    input: {
      op: "add",
      scope: team ? MemoryScope.team : MemoryScope.own(agent.id),
      ...topicOf(change.topic),
      text: change.text,
      meta: team
        ? [
            ["source", source],
            ["by", agent.id]
          ]
        : [["source", source]],
      ...actor
    },
    landed: (outcome) => ({
      _tag: "Added",
      entry: { scope: team ? "team" : "own", topic: outcome.topic, text: change.text }
    })
  }
}

/**
 * Plans an `edit` or `remove` of the entry it numbers, in that entry's scope and topic and matched exactly by its real
 * text; skipped where the agent may not change team memory, or where an earlier change of the answer named the entry.
 */
const planNumbered = (
  context: AnswerBasis,
  change: Exclude<Answer.Change, { op: "add" }>,
  earlier: ReadonlyArray<Answer.Change>,
  source: string
): Planned => {
  const entry = context.shown[change.entry - 1]
  if (entry === undefined) {
    return { _tag: "Skip", change, error: new NoMatch({ file: "", match: `entry ${change.entry}`, candidates: [] }) }
  }
  const place = {
    scope: entry.scope === "team" ? MemoryScope.team : MemoryScope.own(context.agent.id),
    ...topicOf(entry.topic)
  }
  if (entry.scope === "team" && !context.agent.mayWriteTeam) {
    return { _tag: "Skip", change, error: new Denied({ reason: new TeamMemory({ agentId: context.agent.id }) }) }
  }
  if (earlier.some((other) => other.op !== "add" && other.entry === change.entry)) {
    const file = fileOf(context, entry.scope, entry.topic)
    return { _tag: "Skip", change, error: new NoMatch({ file, match: entry.text, candidates: [] }) }
  }
  const listed = { scope: entry.scope, topic: entry.topic }
  return change.op === "edit"
    ? {
        _tag: "Store",
        change,
        input: {
          op: "replace",
          ...place,
          match: entry.text,
          exact: true,
          text: change.text,
          meta: withSource(entry.meta, source),
          ...actor
        },
        landed: () => ({ _tag: "Edited", entry: { ...listed, before: entry.text, text: change.text } })
      }
    : {
        _tag: "Store",
        change,
        input: { op: "remove", ...place, match: entry.text, exact: true, ...actor },
        landed: () => ({ _tag: "Removed", entry: { ...listed, text: entry.text } })
      }
}

/** An answer's changes as the edits of the store, in order, or skipped before it (pure). */
export const toEdits = (context: AnswerBasis, changes: ReadonlyArray<Answer.Change>): ReadonlyArray<Planned> =>
  changes.map((change, i) =>
    change.op === "add"
      ? planAdd(context, change, context.sources[i]!)
      : planNumbered(context, change, changes.slice(0, i), context.sources[i]!)
  )

/** A change skipped, with its reason masked for secrets (it may quote an entry a person wrote). */
const skipped = (change: Answer.Change, error: NoMatch | Denied, settings: Lines.CutSettings): Skipped => ({
  change,
  reason: Lines.mask(error.message, settings)
})

/** Whether a result of the store's batch fails the review (a skip does not). */
const failsReview = (
  result: Result.Result<MemoryEdit.Outcome, ApplyFailure | NoMatch | Denied>
): result is Result.Failure<MemoryEdit.Outcome, ApplyFailure> =>
  Result.isFailure(result) && result.failure._tag !== "NoMatch" && result.failure._tag !== "Denied"

/** What the results of the store's batch (one per planned change sent, in order) come to. */
const tally = (
  planned: ReadonlyArray<Planned>,
  results: ReadonlyArray<Result.Result<MemoryEdit.Outcome, ApplyFailure | NoMatch | Denied>>,
  settings: Lines.CutSettings
): Done => {
  const sent = planned.filter((p) => p._tag === "Store")
  const landed = sent.flatMap((p, i) => {
    const result = results[i]
    return result !== undefined && Result.isSuccess(result) && result.success.changed ? [p.landed(result.success)] : []
  })
  const failed = sent.flatMap((p, i): ReadonlyArray<FailedChange> => {
    const result = results[i]
    return result !== undefined && failsReview(result)
      ? [{ change: p.change, error: result.failure, reason: Lines.mask(result.failure.message, settings) }]
      : []
  })
  const skips = planned.flatMap((p): ReadonlyArray<Skipped> => {
    if (p._tag === "Skip") return [skipped(p.change, p.error, settings)]
    const result = results[sent.indexOf(p)]
    if (result === undefined) return []
    // A change the store made no change for (an entry the scope already holds) is skipped, in the store's words.
    if (Result.isSuccess(result)) {
      return result.success.changed ? [] : [{ change: p.change, reason: Lines.mask(result.success.message, settings) }]
    }
    return result.failure._tag === "NoMatch" || result.failure._tag === "Denied"
      ? [skipped(p.change, result.failure, settings)]
      : []
  })
  const mask = (entry: Applied): Applied => ({ ...entry, text: Lines.mask(entry.text, settings) })
  return {
    changes: {
      ...noChanges,
      added: landed.flatMap((l) => (l._tag === "Added" ? [mask(l.entry)] : [])),
      edited: landed.flatMap((l) =>
        l._tag === "Edited" ? [{ ...mask(l.entry), before: Lines.mask(l.entry.before, settings) }] : []
      ),
      removed: landed.flatMap((l) => (l._tag === "Removed" ? [mask(l.entry)] : [])),
      skipped: skips,
      failed
    },
    changed: landed.length > 0,
    failure: failed[0]?.error
  }
}

/**
 * What two applies of one answer did, the second trying again the changes the first could not make: what each landed
 * and skipped, and the second's failures.
 */
export const merged = (first: Done, again: Done): Done => {
  // The changes that found memory full were tried again: their failures are the second's.
  const failed = [
    ...first.changes.failed.filter((failed) => failed.error._tag !== "MemoryFull"),
    ...again.changes.failed
  ]
  return {
    changes: {
      ...first.changes,
      added: [...first.changes.added, ...again.changes.added],
      edited: [...first.changes.edited, ...again.changes.edited],
      removed: [...first.changes.removed, ...again.changes.removed],
      skipped: [...first.changes.skipped, ...again.changes.skipped],
      failed
    },
    changed: first.changed || again.changed,
    failure: failed[0]?.error
  }
}

/**
 * Applies the planned changes as one batch of the store (none when every change was skipped), and warns each skip;
 * inside a transaction of the store, the batch joins it.
 */
export const apply = Effect.fnUntraced(function* (
  store: MemoryStore["Service"],
  planned: ReadonlyArray<Planned>,
  settings: Lines.CutSettings
) {
  const batch = planned.flatMap((p) => (p._tag === "Store" ? [p.input] : []))
  const results = batch.length === 0 ? [] : yield* store.apply(batch)
  const done = tally(planned, results, settings)
  yield* Effect.forEach(
    done.changes.skipped,
    (skip) =>
      Effect.logWarning(warnings.skipped).pipe(
        Effect.annotateLogs({ change: describe(skip.change), reason: skip.reason })
      ),
    { discard: true }
  )
  return done
})
