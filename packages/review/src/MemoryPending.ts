/**
 * Entries waiting for a person (issue 28): what a review proposes that `MemoryConfig.approval` holds back is kept
 * beside the memory of its scope, in `pending.json` of the scope's folder, each with its text, topic, source, why it
 * waits and when, until a person approves it (written through the memory store, vetted again) or rejects it. At most
 * `pendingMax` per scope: the oldest is dropped, with a warning, to make room. Written through the root's one writer,
 * atomically, each change journaled with it: an entry held (`hold`), approved (`approve`) or rejected (`reject`, also
 * an entry dropped to make room, `auto`) is one journal line of the scope's `pending.json`, its text as the line's
 * `after` (held) or `before` (leaving the list). Both backends keep pending entries: the files backend's are here
 * (`FileRoot.layer` provides this service beside the root), the Postgres backend's in `@mneme/sql`; a review over a
 * backend without this service leaves what it would hold out.
 */
import { MemoryConfig, MemoryScope, ReadFailed, type StorageError } from "@mneme/core"
import { Context, Effect, Path, Result, Schema } from "effect"
import { readFailed, storageError } from "./internal/files.ts"
import type { Actor, JournalRecord, MemoryRoot, Writer } from "./MemoryRoot.ts"
import type { MemoryStore } from "./MemoryStore.ts"
import { RootFiles } from "./RootFiles.ts"

/** One entry waiting for a person. */
export const Held = Schema.Struct({
  text: Schema.String,
  /** The topic file it goes to; MEMORY.md when absent. */
  topic: Schema.optionalKey(Schema.String),
  /** The lines it comes from, as the transcript anchors them. */
  source: Schema.String,
  /** The agent that proposed it (kept as the `by` of a team entry). */
  by: Schema.optionalKey(Schema.String),
  /** Why it waits, in words. */
  why: Schema.String,
  /** When it was held, epoch ms. */
  at: Schema.Number
})

/** One entry waiting for a person. */
export type Held = typeof Held.Type

const PendingFile = Schema.Struct({ version: Schema.Literal(1), entries: Schema.Array(Held) })
const decodeFile = Schema.decodeUnknownOption(Schema.fromJsonString(PendingFile))

/** The texts of the entries a `pending.json`'s text holds, or `undefined` when it holds no list of them. */
export const textsOf = (text: string): ReadonlyArray<string> | undefined => {
  const decoded = decodeFile(text)
  return decoded._tag === "None" ? undefined : decoded.value.entries.map((entry) => entry.text)
}

/** The file of a scope's pending entries, in the scope's folder. */
export const pendingName = "pending.json"

/** The warning logged when a scope's pending entries are full and the oldest is dropped. */
export const droppedWarning = "mneme: too many entries wait for a person; the oldest were dropped"

/** Whether two held entries are the same one. */
export const same = (a: Held, b: Held): boolean => a.at === b.at && a.text === b.text && a.topic === b.topic

/** A person's decision that takes entries out of the pending list, and who made it. */
export interface Decision {
  readonly op: "approve" | "reject"
  readonly actor: string
}

/** The pending entries of each scope. */
export class MemoryPending extends Context.Service<
  MemoryPending,
  {
    /** The scope's entries waiting for a person, oldest first. */
    readonly list: (scope: MemoryScope.MemoryScope) => Effect.Effect<ReadonlyArray<Held>, StorageError>
    /**
     * Holds `entries` in the scope, within `pendingMax` (the oldest dropped, with a warning), journaled as `actor`'s;
     * gives how many dropped.
     */
    readonly hold: (
      scope: MemoryScope.MemoryScope,
      entries: ReadonlyArray<Held>,
      actor: Actor
    ) => Effect.Effect<number, StorageError>
    /** Takes `entries` out of the scope, journaled as `decision`; gives those that were there. */
    readonly remove: (
      scope: MemoryScope.MemoryScope,
      entries: ReadonlyArray<Held>,
      decision: Decision
    ) => Effect.Effect<ReadonlyArray<Held>, StorageError>
    /**
     * Puts `entries` in the scope as they are, after those waiting there (a text waiting already is not held twice),
     * journaling nothing: for a copy of memory, whose journal carries their `hold` lines already.
     */
    readonly restore: (
      scope: MemoryScope.MemoryScope,
      entries: ReadonlyArray<Held>
    ) => Effect.Effect<void, StorageError>
  }
>()("@mneme/review/MemoryPending") {}

/** The file a scope's pending entries are journaled as (and, in a memory folder, kept in): `<dir>/pending.json`. */
export const fileOf = (dir: string): string => `${dir}/${pendingName}`

/** The journal records of `entries` of the scope folder `dir` entering (`hold`) or leaving the pending list. */
export const records = (
  dir: string,
  op: "hold" | "approve" | "reject",
  entries: ReadonlyArray<Held>,
  actor: Actor
): ReadonlyArray<JournalRecord> =>
  entries.map((entry) => ({
    op,
    scope: dir,
    file: fileOf(dir),
    actor: actor.actor,
    ...(actor.auto === undefined ? {} : { auto: actor.auto }),
    ...(op === "hold" ? { after: entry.text } : { before: entry.text })
  }))

/**
 * What a change does to a scope's pending list, planned over the list as read under the writer: the list after it, the
 * entries it takes out and those it puts in (for a backend that keeps rows), its journal records, and what it gives.
 */
export interface Change<A> {
  readonly next: ReadonlyArray<Held>
  readonly gone: ReadonlyArray<Held>
  readonly added: ReadonlyArray<Held>
  readonly records: ReadonlyArray<JournalRecord>
  readonly result: A
}

/** The entries of `held` whose text waits neither in `entries` nor earlier in `held`. */
const freshOf = (entries: ReadonlyArray<Held>, held: ReadonlyArray<Held>): ReadonlyArray<Held> =>
  held.filter(
    (entry, i) =>
      !entries.some((kept) => kept.text === entry.text) && !held.slice(0, i).some((o) => o.text === entry.text)
  )

/**
 * Holding `held` in the list `entries` of the scope folder `dir`, within `max`: each text not waiting already is added;
 * the oldest are dropped to make room, each journaled as a rejection no one asked for. Gives how many dropped.
 */
export const holdChange = (
  entries: ReadonlyArray<Held>,
  held: ReadonlyArray<Held>,
  options: { readonly max: number; readonly dir: string; readonly actor: Actor }
): Change<number> => {
  const { actor, dir, max } = options
  const fresh = freshOf(entries, held)
  const all = [...entries, ...fresh]
  const cut = Math.max(0, all.length - max)
  const dropped = all.slice(0, cut)
  return {
    next: all.slice(cut),
    gone: dropped.filter((entry) => entries.includes(entry)),
    added: fresh.filter((entry) => !dropped.includes(entry)),
    records: [
      ...records(dir, "hold", fresh, actor),
      ...records(dir, "reject", dropped, { actor: actor.actor, auto: true })
    ],
    result: dropped.length
  }
}

/** Taking `taken` out of the list `entries` of the scope folder `dir`, as `decision`. Gives those that were there. */
export const removeChange = (
  entries: ReadonlyArray<Held>,
  taken: ReadonlyArray<Held>,
  decision: Decision,
  dir: string
): Change<ReadonlyArray<Held>> => {
  const gone = entries.filter((entry) => taken.some((other) => same(entry, other)))
  return {
    next: entries.filter((entry) => !gone.includes(entry)),
    gone,
    added: [],
    records: records(dir, decision.op, gone, { actor: decision.actor }),
    result: gone
  }
}

/** Putting `restored` back in the list `entries` as they are: each text not waiting already is added, nothing journaled. */
export const restoreChange = (entries: ReadonlyArray<Held>, restored: ReadonlyArray<Held>): Change<void> => {
  const fresh = freshOf(entries, restored)
  return { next: [...entries, ...fresh], gone: [], added: fresh, records: [], result: undefined }
}

/** Warns that `dropped` entries of the scope were dropped to make room, when any were. */
export const warnDropped = (scope: MemoryScope.MemoryScope, dropped: number, max: number): Effect.Effect<void> =>
  dropped === 0
    ? Effect.void
    : Effect.logWarning(droppedWarning).pipe(Effect.annotateLogs({ scope: MemoryScope.side(scope), dropped, max }))

/** The pending entries of the files backend `root` (a folder), through its one writer. */
export const make = Effect.fnUntraced(function* (root: MemoryRoot["Service"]) {
  const path = yield* Path.Path
  const reads = yield* RootFiles
  const settings = yield* MemoryConfig.MemoryConfig

  const readFile = Effect.fnUntraced(function* (dir: string) {
    const file = `${dir}/${pendingName}`
    // Read as the memory files are: at once, and never through a link (one there is a failure naming the file).
    const bytes = yield* reads.readFile(path.join(root.root, file)).pipe(Effect.mapError(readFailed(file)))
    if (bytes === undefined) return { file, entries: [] as ReadonlyArray<Held> }
    const decoded = decodeFile(new TextDecoder().decode(bytes))
    if (decoded._tag === "None") {
      return yield* storageError(new ReadFailed({ file, detail: "it is not a list of entries waiting for a person" }))
    }
    return { file, entries: decoded.value.entries }
  })

  /**
   * Reads the scope's entries under the writer and writes the list `plan` makes of them with its journal records, in
   * one commit (nothing when unchanged).
   */
  const change = <A>(scope: MemoryScope.MemoryScope, plan: (entries: ReadonlyArray<Held>, dir: string) => Change<A>) =>
    root.write((writer: Writer) =>
      Effect.gen(function* () {
        const { dir } = yield* writer.read(scope, [])
        const { file, entries } = yield* readFile(dir)
        const { next, records, result } = plan(entries, dir)
        if (next.length !== entries.length || next.some((entry, i) => !same(entry, entries[i]!))) {
          const content = next.length === 0 ? undefined : JSON.stringify({ version: 1, entries: next }, null, 2) + "\n"
          yield* writer.commit([{ file, content }], records)
        }
        return result
      })
    )

  return MemoryPending.of({
    list: (scope) =>
      Effect.flatMap(root.read(scope), ({ dir }) => readFile(dir)).pipe(Effect.map(({ entries }) => entries)),
    hold: (scope, held, actor) =>
      change(scope, (entries, dir) => holdChange(entries, held, { max: settings.pendingMax, dir, actor })).pipe(
        Effect.tap((dropped) => warnDropped(scope, dropped, settings.pendingMax))
      ),
    remove: (scope, taken, decision) => change(scope, (entries, dir) => removeChange(entries, taken, decision, dir)),
    restore: (scope, restored) => change(scope, (entries) => restoreChange(entries, restored))
  })
})

/** What a person's decision on one pending entry did. */
export interface Decided {
  readonly entry: Held
  /** Whether the entry left the pending list (written or rejected). */
  readonly done: boolean
  /** What happened, in words. */
  readonly message: string
}

/**
 * Writes `entries` of the scope through the memory store (vetted again: sizes, duplicates, secrets; journaled as the
 * `actor`'s), then takes those written (or already there) out of the pending list; one the store refuses stays pending,
 * with the store's reason.
 */
export const approve = Effect.fnUntraced(function* (
  store: MemoryStore["Service"],
  pending: MemoryPending["Service"],
  scope: MemoryScope.MemoryScope,
  entries: ReadonlyArray<Held>,
  actor: string
) {
  const results = yield* store.apply(
    entries.map((entry) => ({
      op: "add" as const,
      scope,
      ...(entry.topic === undefined ? {} : { topic: entry.topic }),
      text: entry.text,
      meta: [
        ["source", entry.source] as const,
        ...(scope.kind === "team" && entry.by !== undefined ? [["by", entry.by] as const] : [])
      ],
      actor
    }))
  )
  const written = entries.filter((_, i) => Result.isSuccess(results[i]!))
  yield* pending.remove(scope, written, { op: "approve", actor })
  return entries.map((entry, i): Decided =>
    Result.match(results[i]!, {
      onSuccess: (outcome) => ({ entry, done: true, message: outcome.message }),
      onFailure: (error) => ({ entry, done: false, message: `still pending: ${error.message}` })
    })
  )
})

/** Drops `entries` of the scope's pending list, writing nothing to memory; journaled as the `actor`'s. */
export const reject = Effect.fnUntraced(function* (
  pending: MemoryPending["Service"],
  scope: MemoryScope.MemoryScope,
  entries: ReadonlyArray<Held>,
  actor: string
) {
  const removed = yield* pending.remove(scope, entries, { op: "reject", actor })
  return entries.map((entry): Decided =>
    removed.some((other) => same(entry, other))
      ? { entry, done: true, message: `rejected ${JSON.stringify(entry.text)}; nothing was written` }
      : { entry, done: false, message: `${JSON.stringify(entry.text)} no longer waits` }
  )
})
