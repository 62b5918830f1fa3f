/**
 * The memory store (docs/spec.md 1–3): the only way mneme changes memory — add, replace and remove, one change or a batch,
 * and undo from the journal — as a thin service over the storage port. Each change is planned by `MemoryEdit` (the
 * rules, pure) against the files the port reads under its single writer, and written back through the port: each file
 * once, atomically, with its journal lines. The settings are read once, when the layer is built.
 */
import {
  type BadTopic,
  type Denied,
  Entry,
  MemoryConfig,
  MemoryEdit,
  type MemoryFull,
  MemoryScope,
  type NoMatch,
  type NotUndoable,
  type StorageError,
  type TooManyTopics
} from "@mneme/core"
import { Clock, Context, DateTime, Effect, Layer, Option, Result } from "effect"
import * as Purge from "./Purge.ts"
import {
  type Actor,
  type JournalLine,
  MemoryRoot,
  type ReadOptions,
  type ReviewStateDocument,
  type StoredFile,
  type StoredScope
} from "./MemoryRoot.ts"

/** An entry to add. */
export type AddInput = MemoryEdit.AddInput

/** An entry to replace, named by `match` (only by its exact text with `exact`). */
export type ReplaceInput = MemoryEdit.ReplaceInput

/** An entry to remove, named by `match` (only by its exact text with `exact`). */
export type RemoveInput = MemoryEdit.RemoveInput

/** One change of a batch. */
export type Change = MemoryEdit.Change

/** Why one change of a batch could not be made. */
export type ChangeError = MemoryEdit.ChangeError

/** What a change did, with a message a tool can hand an agent. */
export type Outcome = MemoryEdit.Outcome

/** A scope as stored, and its topic files that MEMORY.md's index does not link. */
export interface ScopeView extends StoredScope {
  readonly unlinked: ReadonlyArray<StoredFile>
}

/** One entry of an agent's view. */
export interface ViewEntry {
  readonly scope: "own" | "team"
  readonly topic: string | undefined
  readonly text: string
  readonly added: string | undefined
  readonly by: string | undefined
  readonly source: string | undefined
}

/** What a host can see of an agent's memory (docs/spec.md 4.6, without the last review). */
export interface View {
  readonly agentId: string
  readonly entries: ReadonlyArray<ViewEntry>
  /** MEMORY.md sizes in characters. */
  readonly sizes: { readonly own: number; readonly team: number }
  readonly limits: { readonly entry: number; readonly memory: number; readonly topic: number; readonly topics: number }
}

/** An agent of the root: its folder, its MEMORY.md's size and its number of topics (unknown for a folder of unknown origin). */
export interface AgentSummary {
  readonly agentId: string | undefined
  /** The folder, relative to the root. */
  readonly dir: string
  readonly size: number | undefined
  readonly topics: number | undefined
}

/**
 * How `apply` journals its batch: `journalAs: "consolidate"` journals every line with that op, so the batch is one
 * change an undo reverts whole (a consolidation pass).
 */
export interface ApplyOptions {
  readonly journalAs?: "consolidate" | undefined
}

/** What `undo` takes: the scope, and the last `count` changes of it (1 when neither is given) or the change `id`. */
export interface UndoInput extends Actor {
  readonly scope: MemoryScope.MemoryScope
  readonly count?: number | undefined
  readonly id?: string | undefined
}

/**
 * What `purge` takes: the entry `match` names in a scope (and topic), as `remove` names it; or every entry of the root
 * whose sources all lie in the conversation `conversation`.
 */
export type PurgeInput = Actor &
  (
    | {
        readonly scope: MemoryScope.MemoryScope
        readonly topic?: string | undefined
        readonly match: string
        readonly exact?: boolean | undefined
      }
    | { readonly conversation: string }
  )

/** What a purge did: how many entries it removed, from which files, and how many journal lines it erased. */
export interface PurgeOutcome {
  readonly entries: number
  readonly files: ReadonlyArray<string>
  readonly erased: number
  readonly message: string
}

/**
 * A read that takes of a file past its size only what is shown of it (its first entries within its size, the rest
 * counted): for `load` where the entries shown are all that is looked at (`mneme show`, a review's request).
 */
export const withinSizes = (settings: Pick<MemoryConfig.Settings, "memoryMax" | "topicMax">): ReadOptions => ({
  within: { memory: settings.memoryMax, topic: settings.topicMax }
})

/** A scope with its unlinked topic files. */
const viewOf = (stored: StoredScope): ScopeView => {
  const links = new Set(stored.files.find((file) => file.topic === undefined)?.parsed.links.map((link) => link.topic))
  return { ...stored, unlinked: stored.files.filter((file) => file.topic !== undefined && !links.has(file.topic)) }
}

/** The zone `added` dates are written in: `timeZone`, or UTC with one warning when it is not a known zone. */
const zoneOf = Effect.fnUntraced(function* (timeZone: string) {
  const zone = DateTime.zoneMakeNamed(timeZone)
  if (Option.isNone(zone)) {
    yield* Effect.logWarning(`mneme: unknown time zone ${JSON.stringify(timeZone)}; dates are written in UTC`)
  }
  return Option.getOrUndefined(zone)
})

/**
 * A planned batch, unless a change's storage failed (a topic file that could not be read), which fails it whole; the
 * other results are each change's own.
 */
const settled = (batch: MemoryEdit.Batch) => {
  const failed = batch.results.find(
    (result): result is Result.Failure<Outcome, StorageError> =>
      Result.isFailure(result) && result.failure._tag === "StorageError"
  )
  return failed === undefined
    ? Effect.succeed({
        draft: batch.draft,
        results: batch.results as ReadonlyArray<Result.Result<Outcome, ChangeError>>
      })
    : Effect.fail(failed.failure)
}

/**
 * The topics of a scope a batch's changes need read: those they name, where every one of them is a replace or a remove
 * (which acts on its own file, and on MEMORY.md's index); `undefined` (the whole scope) where one adds (which looks for
 * the same fact in every file, and counts the topics).
 */
const filesOf = (
  changes: ReadonlyArray<MemoryEdit.Prepared>,
  scope: MemoryScope.MemoryScope
): ReadonlyArray<string> | undefined => {
  const topics = new Set<string>()
  for (const { change, topic } of changes) {
    if (!MemoryScope.equals(change.scope, scope)) continue
    if (change.op === "add") return undefined
    if (topic !== undefined) topics.add(topic)
  }
  return [...topics]
}

const make = Effect.gen(function* () {
  const root = yield* MemoryRoot
  const settings = yield* MemoryConfig.MemoryConfig
  // Looked up for the first date written, not when the store is made: a command that only reads never pays for it.
  const zone = yield* Effect.cached(Effect.suspend(() => zoneOf(settings.timeZone)))
  /** Today's date in the configured zone (worked out once a write, a few microseconds). */
  const today = Effect.gen(function* () {
    const now = DateTime.makeUnsafe(yield* Clock.currentTimeMillis)
    const inZone = yield* zone
    return DateTime.formatIsoDate(inZone === undefined ? now : DateTime.setZone(now, inZone))
  })

  const load = Effect.fn("MemoryStore.load")(function* (scope: MemoryScope.MemoryScope, options?: ReadOptions) {
    return viewOf(yield* root.read(scope, options))
  })

  const apply = Effect.fn("MemoryStore.apply")(function* (changes: ReadonlyArray<Change>, options?: ApplyOptions) {
    const context: MemoryEdit.EditSettings = { settings, today: yield* today }
    const prepared = changes.map((change) => MemoryEdit.prepare(change, context))
    const ready = prepared.flatMap((change) => (Result.isSuccess(change) ? [change.success] : []))
    const scopes = ready.map((change) => change.change.scope)
    if (scopes.length === 0) {
      return (yield* settled(MemoryEdit.planAll(MemoryEdit.start([]), prepared))).results
    }
    return yield* root.write((writer) =>
      Effect.gen(function* () {
        const distinct = scopes.filter(
          (scope, i) => scopes.findIndex((other) => MemoryScope.equals(other, scope)) === i
        )
        const read = yield* Effect.forEach(distinct, (scope) => writer.read(scope, filesOf(ready, scope)), {
          concurrency: "unbounded"
        })
        const { draft, results } = yield* settled(MemoryEdit.planAll(MemoryEdit.start(read), prepared))
        if (draft.writes.length > 0) {
          const journalAs = options?.journalAs
          yield* writer.commit(
            draft.writes,
            journalAs === undefined ? draft.journal : draft.journal.map((record) => ({ ...record, op: journalAs }))
          )
        }
        return results
      })
    )
  })

  /** One change as a batch of one: its outcome, or its error. */
  const one = <E extends ChangeError>(change: Change): Effect.Effect<Outcome, E | StorageError> =>
    Effect.flatMap(apply([change]), ([result]) => Effect.fromResult(result as Result.Result<Outcome, E>))

  const add = Effect.fn("MemoryStore.add")(function* (input: AddInput) {
    return yield* one<MemoryFull | TooManyTopics | Denied | BadTopic>({ op: "add", ...input })
  })

  const replace = Effect.fn("MemoryStore.replace")(function* (input: ReplaceInput) {
    return yield* one<NoMatch | MemoryFull | Denied | BadTopic>({ op: "replace", ...input })
  })

  const remove = Effect.fn("MemoryStore.remove")(function* (input: RemoveInput) {
    return yield* one<NoMatch | Denied | BadTopic>({ op: "remove", ...input })
  })

  const undo = Effect.fn("MemoryStore.undo")(function* (input: UndoInput) {
    const actor: Actor = input.auto === undefined ? { actor: input.actor } : { actor: input.actor, auto: input.auto }
    return yield* root.write((writer) =>
      Effect.gen(function* () {
        const stored = yield* writer.read(input.scope)
        const lines = yield* root.journal({ scope: input.scope })
        const count = input.count ?? 1
        const changes =
          input.id !== undefined
            ? [yield* Effect.fromResult(MemoryEdit.changeWithId(lines, input.id, stored.dir))]
            : count <= 0
              ? []
              : MemoryEdit.undoable(lines).slice(-count).toReversed()
        const outcomes: Array<Outcome> = []
        let draft = MemoryEdit.start([stored])
        for (const change of changes) {
          const planned = MemoryEdit.undo(draft, change, actor, { settings })
          const { draft: next, outcome } = yield* Effect.fromResult(planned)
          draft = next
          outcomes.push(outcome)
        }
        if (draft.writes.length > 0) yield* writer.commit(draft.writes, draft.journal)
        return outcomes
      })
    )
  })

  const purge = Effect.fn("MemoryStore.purge")(function* (input: PurgeInput) {
    const actor: Actor = input.auto === undefined ? { actor: input.actor } : { actor: input.actor, auto: input.auto }
    const scopes =
      "conversation" in input
        ? [
            MemoryScope.team,
            ...(yield* root.agents).flatMap(({ agentId }) => (agentId === undefined ? [] : [MemoryScope.own(agentId)]))
          ]
        : [input.scope]
    const context: MemoryEdit.EditSettings = { settings, today: yield* today }
    // One unit of work: the files, the purge's journal lines and the erased review state land together.
    return yield* root.transaction(
      root.write((writer) =>
        Effect.gen(function* () {
          const read = yield* Effect.forEach(scopes, (scope) => writer.read(scope), { concurrency: "unbounded" })
          const changes: ReadonlyArray<Change> =
            "conversation" in input
              ? read.flatMap((stored) =>
                  stored.files.flatMap((file) =>
                    [
                      ...new Set(
                        file.parsed.entries
                          .filter((entry) => Purge.fromConversation(entry, input.conversation))
                          .map((entry) => entry.text)
                      )
                    ].map((text): Change => ({
                      op: "remove",
                      scope: stored.scope,
                      topic: file.topic,
                      match: text,
                      exact: true,
                      ...actor
                    }))
                  )
                )
              : [
                  {
                    op: "remove",
                    scope: input.scope,
                    topic: input.topic,
                    match: input.match,
                    exact: input.exact,
                    ...actor
                  }
                ]
          const prepared = changes.map((change) => MemoryEdit.prepare(change, context))
          const { draft, results } = yield* settled(MemoryEdit.planAll(MemoryEdit.start(read), prepared))
          const removed: Array<Outcome> = []
          for (const result of results) {
            if (Result.isSuccess(result)) removed.push(result.success)
            else if (!("conversation" in input))
              return yield* Effect.fail(result.failure as NoMatch | Denied | BadTopic)
          }
          const texts = removed.map((outcome) => Entry.clean(outcome.before ?? ""))
          const files = [...new Set(removed.map((outcome) => outcome.file))]
          if (removed.length === 0) {
            const message = `purged nothing: no entry's sources all lie in ${JSON.stringify("conversation" in input ? input.conversation : "")}`
            return { entries: 0, files, erased: 0, message } satisfies PurgeOutcome
          }
          // The history first: a purge stopped after it leaves the entries in place, and can be made again.
          const erased = yield* writer.erase(texts)
          const dirs = read.filter((stored) =>
            removed.some((outcome) => MemoryScope.equals(outcome.scope, stored.scope))
          )
          yield* writer.commit(
            draft.writes,
            dirs.map(({ dir, scope }) => ({
              op: "purge" as const,
              scope: dir,
              file: dir,
              ...actor,
              entries: removed.filter((outcome) => MemoryScope.equals(outcome.scope, scope)).length
            }))
          )
          yield* root.updateState((state: ReviewStateDocument) => Purge.eraseState(state, texts))
          const count = removed.length
          const message = `purged ${count} entr${count === 1 ? "y" : "ies"} from ${files.join(", ")}: the text is gone from memory, the journal (${erased} line${erased === 1 ? "" : "s"} erased) and the review state, and cannot be undone`
          return { entries: count, files, erased, message } satisfies PurgeOutcome
        })
      )
    )
  })

  const agents = Effect.gen(function* () {
    const folders = yield* root.agents
    return yield* Effect.forEach(folders, ({ agentId, dir }) =>
      agentId === undefined
        ? Effect.succeed<AgentSummary>({ agentId, dir, size: undefined, topics: undefined })
        : Effect.map(root.read(MemoryScope.own(agentId), withinSizes(settings)), (stored): AgentSummary => ({
            agentId,
            dir,
            size: stored.files.find((file) => file.topic === undefined)?.size ?? 0,
            topics: stored.files.length - 1 + stored.unreadable.length
          }))
    )
  }).pipe(Effect.withSpan("MemoryStore.agents"))

  const journal = Effect.fn("MemoryStore.journal")(function* (options?: {
    readonly limit?: number | undefined
    readonly scope?: MemoryScope.MemoryScope | undefined
  }) {
    return yield* root.journal(options)
  })

  const view = Effect.fn("MemoryStore.view")(function* (agentId: string) {
    const [own, team] = yield* Effect.all([load(MemoryScope.own(agentId)), load(MemoryScope.team)])
    const entries = (scope: ScopeView) =>
      scope.files.flatMap((file) =>
        file.parsed.entries.map((entry): ViewEntry => ({
          scope: MemoryScope.side(scope.scope),
          topic: file.topic,
          text: entry.text,
          added: Entry.metaValue(entry.meta, "added"),
          by: Entry.metaValue(entry.meta, "by"),
          source: Entry.metaValue(entry.meta, "source")
        }))
      )
    const memorySize = (scope: ScopeView) => scope.files.find((file) => file.topic === undefined)?.size ?? 0
    const view: View = {
      agentId,
      entries: [...entries(own), ...entries(team)],
      sizes: { own: memorySize(own), team: memorySize(team) },
      limits: {
        entry: settings.entryMax,
        memory: settings.memoryMax,
        topic: settings.topicMax,
        topics: settings.topicsMax
      }
    }
    return view
  })

  const archive = Effect.fn("MemoryStore.archive")(function* (agentId: string, actor: Actor = { actor: "host" }) {
    return yield* root.archive(agentId, actor)
  })

  return MemoryStore.of({
    load,
    add,
    replace,
    remove,
    purge,
    apply,
    undo,
    agents,
    journal,
    view,
    archive,
    transaction: root.transaction
  })
})

/** The memory store of one root. */
export class MemoryStore extends Context.Service<
  MemoryStore,
  {
    /** Reads a scope: MEMORY.md first (empty when missing), then its topics by name, what could not be read, and
     * the topic files the index does not link; each file whole, unless `options` says otherwise (`withinSizes`). */
    readonly load: (scope: MemoryScope.MemoryScope, options?: ReadOptions) => Effect.Effect<ScopeView, StorageError>
    /** Adds an entry, unless the scope already holds the same text (white space folded, case ignored). */
    readonly add: (
      input: AddInput
    ) => Effect.Effect<Outcome, MemoryFull | TooManyTopics | Denied | BadTopic | StorageError>
    /** Replaces the entry `match` names with `text`, in its place. */
    readonly replace: (
      input: ReplaceInput
    ) => Effect.Effect<Outcome, NoMatch | MemoryFull | Denied | BadTopic | StorageError>
    /** Removes the entry `match` names; a topic left empty is deleted with its index link. */
    readonly remove: (input: RemoveInput) => Effect.Effect<Outcome, NoMatch | Denied | BadTopic | StorageError>
    /**
     * Removes entries and erases their text from the journal's history and the review state (forgetting that erases):
     * the entry `match` names, or every entry whose sources all lie in a conversation. One `purge` journal line per
     * scope records it (when, who, how many entries; no text). NotUndoable for any undo of it.
     */
    readonly purge: (input: PurgeInput) => Effect.Effect<PurgeOutcome, NoMatch | Denied | BadTopic | StorageError>
    /**
     * Makes changes as one batch: planned in order against the files read once under one hold of the writer, each
     * file written once and the journal appended once; each change's own result. Inside a `transaction`, the batch
     * joins it and lands with the rest of it (the review's record). A StorageError fails the batch, and then nothing is
     * written.
     */
    readonly apply: (
      changes: ReadonlyArray<Change>,
      options?: ApplyOptions
    ) => Effect.Effect<ReadonlyArray<Result.Result<Outcome, ChangeError>>, StorageError>
    /**
     * Reverts the last `count` changes of a scope (1 by default, newest first), or the change `id`, from the journal,
     * and journals the undo; NotUndoable, and nothing changed, where a file no longer holds what a change wrote.
     */
    readonly undo: (
      input: UndoInput
    ) => Effect.Effect<ReadonlyArray<Outcome>, NotUndoable | MemoryFull | TooManyTopics | StorageError>
    /** The agents of the root, with their folders, MEMORY.md sizes and topic counts. */
    readonly agents: Effect.Effect<ReadonlyArray<AgentSummary>, StorageError>
    /** The journal's lines, oldest first: the last `limit`, of one scope when given. */
    readonly journal: (options?: {
      readonly limit?: number | undefined
      readonly scope?: MemoryScope.MemoryScope | undefined
    }) => Effect.Effect<ReadonlyArray<JournalLine>, StorageError>
    /** Every entry an agent sees, its MEMORY.md sizes and the limits. */
    readonly view: (agentId: string) => Effect.Effect<View, StorageError>
    /** Moves an agent's folder whole under `archive/`; gives the archive folder, relative to the root. */
    readonly archive: (agentId: string, actor?: Actor) => Effect.Effect<string, StorageError>
    /**
     * Runs `effect` as one unit of work of the store's root (`MemoryRoot.transaction`): the batches it applies and the
     * changes of the review state it makes land in one commit, or none of them does.
     */
    readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StorageError, R>
  }
>()("@mneme/review/MemoryStore") {
  /** The store over the memory root's storage port, with the `MemoryConfig` in force when it is built. */
  static readonly layer: Layer.Layer<MemoryStore, never, MemoryRoot> = Layer.effect(MemoryStore, make)
}

/** The store over the memory root's storage port. */
export const layer = MemoryStore.layer
