/**
 * Entries waiting for a person (issue 28): what a review proposes that `MemoryConfig.approval` holds back is kept
 * beside the memory of its scope, in `pending.json` of the scope's folder, each with its text, topic, source, why it
 * waits and when, until a person approves it (written through the memory store, vetted again) or rejects it. At most
 * `pendingMax` per scope: the oldest is dropped, with a warning, to make room. Written through the root's one writer,
 * atomically; the files backend alone keeps pending entries (`FileRoot.layer` provides this service beside the root),
 * so a review over another backend leaves what it would hold out.
 */
import { MemoryConfig, ReadFailed, Scope, type StorageError } from "@mneme/core"
import { Context, Effect, Path, Result, Schema } from "effect"
import { readFailed, storageError } from "./internal/files.ts"
import type { MemoryRoot, Writer } from "./MemoryRoot.ts"
import type { MemoryStore } from "./MemoryStore.ts"
import { Platform } from "./Platform.ts"

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

/** The file of a scope's pending entries, in the scope's folder. */
export const pendingName = "pending.json"

/** The warning logged when a scope's pending entries are full and the oldest is dropped. */
export const droppedWarning = "mneme: too many entries wait for a person; the oldest were dropped"

/** Whether two held entries are the same one. */
export const same = (a: Held, b: Held): boolean => a.at === b.at && a.text === b.text && a.topic === b.topic

/** The pending entries of each scope. */
export class MemoryPending extends Context.Service<
  MemoryPending,
  {
    /** The scope's entries waiting for a person, oldest first. */
    readonly list: (scope: Scope.Scope) => Effect.Effect<ReadonlyArray<Held>, StorageError>
    /** Holds `entries` in the scope, within `pendingMax` (the oldest dropped, with a warning); gives how many dropped. */
    readonly hold: (scope: Scope.Scope, entries: ReadonlyArray<Held>) => Effect.Effect<number, StorageError>
    /** Takes `entries` out of the scope; gives those that were there. */
    readonly remove: (
      scope: Scope.Scope,
      entries: ReadonlyArray<Held>
    ) => Effect.Effect<ReadonlyArray<Held>, StorageError>
  }
>()("@mneme/review/MemoryPending") {}

/** The pending entries of the files backend `root` (a folder), through its one writer. */
export const make = Effect.fnUntraced(function* (root: MemoryRoot["Service"]) {
  const path = yield* Path.Path
  const platform = yield* Platform
  const settings = yield* MemoryConfig.MemoryConfig

  const readFile = Effect.fnUntraced(function* (dir: string) {
    const file = `${dir}/${pendingName}`
    // Read as the memory files are: at once, and never through a link (one there is a failure naming the file).
    const bytes = yield* platform.readFile(path.join(root.root, file)).pipe(Effect.mapError(readFailed(file)))
    if (bytes === undefined) return { file, entries: [] as ReadonlyArray<Held> }
    const decoded = decodeFile(new TextDecoder().decode(bytes))
    if (decoded._tag === "None") {
      return yield* storageError(new ReadFailed({ file, detail: "it is not a list of entries waiting for a person" }))
    }
    return { file, entries: decoded.value.entries }
  })

  /** Reads the scope's entries under the writer and writes what `change` makes of them (nothing when unchanged). */
  const change = <A>(
    scope: Scope.Scope,
    body: (entries: ReadonlyArray<Held>) => { readonly next: ReadonlyArray<Held>; readonly result: A }
  ) =>
    root.write((writer: Writer) =>
      Effect.gen(function* () {
        const { dir } = yield* writer.read(scope, [])
        const { file, entries } = yield* readFile(dir)
        const { next, result } = body(entries)
        if (next.length !== entries.length || next.some((entry, i) => !same(entry, entries[i]!))) {
          const content = next.length === 0 ? undefined : JSON.stringify({ version: 1, entries: next }, null, 2) + "\n"
          yield* writer.commit([{ file, content }], [])
        }
        return result
      })
    )

  return MemoryPending.of({
    list: (scope) =>
      Effect.flatMap(root.read(scope), ({ dir }) => readFile(dir)).pipe(Effect.map(({ entries }) => entries)),
    hold: (scope, held) =>
      change(scope, (entries) => {
        const all = [...entries, ...held.filter((entry) => !entries.some((kept) => kept.text === entry.text))]
        const dropped = Math.max(0, all.length - settings.pendingMax)
        return { next: all.slice(dropped), result: dropped }
      }).pipe(
        Effect.tap((dropped) =>
          dropped === 0
            ? Effect.void
            : Effect.logWarning(droppedWarning).pipe(
                Effect.annotateLogs({ scope: Scope.side(scope), dropped, max: settings.pendingMax })
              )
        )
      ),
    remove: (scope, taken) =>
      change(scope, (entries) => ({
        next: entries.filter((entry) => !taken.some((other) => same(entry, other))),
        result: entries.filter((entry) => taken.some((other) => same(entry, other)))
      }))
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
  scope: Scope.Scope,
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
  yield* pending.remove(scope, written)
  return entries.map((entry, i): Decided =>
    Result.match(results[i]!, {
      onSuccess: (outcome) => ({ entry, done: true, message: outcome.message }),
      onFailure: (error) => ({ entry, done: false, message: `still pending: ${error.message}` })
    })
  )
})

/** Drops `entries` of the scope's pending list, writing nothing to memory. */
export const reject = Effect.fnUntraced(function* (
  pending: MemoryPending["Service"],
  scope: Scope.Scope,
  entries: ReadonlyArray<Held>
) {
  const removed = yield* pending.remove(scope, entries)
  return entries.map((entry): Decided =>
    removed.some((other) => same(entry, other))
      ? { entry, done: true, message: `rejected ${JSON.stringify(entry.text)}; nothing was written` }
      : { entry, done: false, message: `${JSON.stringify(entry.text)} no longer waits` }
  )
})
