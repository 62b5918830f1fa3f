/**
 * The memory store (docs/spec.md 1–3): the only way mneme changes memory — add, replace and remove, one change or a batch,
 * and undo from the journal — as a thin service over the storage port. Each change is planned by `MemoryEdit` (the
 * rules, pure) against the files the port reads under its single writer, and written back through the port: each file
 * once, atomically, with its journal lines. The settings are read once, when the layer is built.
 *
 * The service and its layer are here; a batch is made in internal/storeApply.ts, undo in storeUndo.ts, purge in
 * storePurge.ts, and what the store shows (a scope's view, an agent's, the agents') in storeView.ts.
 */
import {
  type BadTopic,
  type Denied,
  MemoryConfig,
  MemoryEdit,
  type MemoryFull,
  MemoryScope,
  type NoMatch,
  type NotUndoable,
  type StorageError,
  type TooManyTopics
} from "@mneme/core"
import { Context, Effect, Layer, Result } from "effect"
import * as StoreApply from "./internal/storeApply.ts"
import * as StorePurge from "./internal/storePurge.ts"
import * as StoreUndo from "./internal/storeUndo.ts"
import * as StoreView from "./internal/storeView.ts"
import { type Actor, type JournalLine, MemoryRoot, type ReadOptions } from "./MemoryRoot.ts"

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
export type ScopeView = StoreView.ScopeView

/** One entry of an agent's view. */
export type ViewEntry = StoreView.ViewEntry

/** What a host can see of an agent's memory (docs/spec.md 4.6, without the last review). */
export type View = StoreView.View

/** An agent of the root: its folder, its MEMORY.md's size and its number of topics (unknown for a folder of unknown origin). */
export type AgentSummary = StoreView.AgentSummary

/**
 * How `apply` journals its batch: `journalAs: "consolidate"` journals every line with that op, so the batch is one
 * change an undo reverts whole (a consolidation pass).
 */
export type ApplyOptions = StoreApply.ApplyOptions

/** What `undo` takes: the scope, and the last `count` changes of it (1 when neither is given) or the change `id`. */
export type UndoInput = StoreUndo.UndoInput

/**
 * What `purge` takes: the entry `match` names in a scope (and topic), as `remove` names it; or every entry of the root
 * whose sources all lie in the conversation `conversation`.
 */
export type PurgeInput = StorePurge.PurgeInput

/** What a purge did: how many entries it removed, from which files, and how many journal lines it erased. */
export type PurgeOutcome = StorePurge.PurgeOutcome

/**
 * A read that takes of a file past its size only what is shown of it (its first entries within its size, the rest
 * counted): for `load` where the entries shown are all that is looked at (`mneme show`, a review's request).
 */
export const withinSizes = (settings: Pick<MemoryConfig.Settings, "memoryMax" | "topicMax">): ReadOptions => ({
  within: { memory: settings.memoryMax, topic: settings.topicMax }
})

const make = Effect.gen(function* () {
  const root = yield* MemoryRoot
  const settings = yield* MemoryConfig.MemoryConfig
  const today = yield* StoreApply.today(settings)
  const sameKeys = MemoryEdit.sameKeys()
  const context = Effect.map(today, (date): MemoryEdit.EditSettings => ({ settings, today: date, sameKeys }))

  const load = Effect.fn("MemoryStore.load")(function* (scope: MemoryScope.MemoryScope, options?: ReadOptions) {
    return StoreView.scopeView(yield* root.read(scope, options))
  })

  const apply = Effect.fn("MemoryStore.apply")(function* (changes: ReadonlyArray<Change>, options?: ApplyOptions) {
    const given = yield* context
    const prepared = changes.map((change) => MemoryEdit.prepare(change, given))
    if (!prepared.some(Result.isSuccess)) {
      return (yield* StoreApply.settled(MemoryEdit.planAll(MemoryEdit.start([]), prepared))).results
    }
    return yield* root.write((writer) => StoreApply.applyWith(writer, prepared, options))
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
    return yield* StoreUndo.undoIn(root, settings, input)
  })

  const purge = Effect.fn("MemoryStore.purge")(function* (input: PurgeInput) {
    return yield* StorePurge.purgeIn(root, yield* context, input)
  })

  const agents = StoreView.agentSummaries(root, withinSizes(settings)).pipe(Effect.withSpan("MemoryStore.agents"))

  const journal = Effect.fn("MemoryStore.journal")(function* (options?: {
    readonly limit?: number | undefined
    readonly scope?: MemoryScope.MemoryScope | undefined
  }) {
    return yield* root.journal(options)
  })

  const view = Effect.fn("MemoryStore.view")(function* (agentId: string) {
    const [own, team] = yield* Effect.all([load(MemoryScope.own(agentId)), load(MemoryScope.team)])
    return StoreView.agentView(agentId, own, team, settings)
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
