/**
 * The unit of work of the storage port, over any backend (`MemoryRoot.make`): `transaction(effect)` holds the root's
 * writer for its extent, and what is written (`write`) and what the review state changes (`updateState`) inside it are
 * staged, then committed at its end in one commit of the backend: all of it, or none. As `SqlClient.withTransaction`
 * does, the open transaction is kept in the fiber's context, so what runs inside joins it without being handed it: the
 * store's batch and the review's record land together though neither knows the other.
 */
import { MemoryFile, type MemoryScope, type StorageError, Text } from "@mneme/core"
import { Context, Effect, Ref } from "effect"
import type {
  Backend,
  BackendWriter,
  FileWrite,
  JournalRecord,
  MemoryRoot,
  StateChange,
  StateKeys,
  StoredFile,
  StoredScope,
  Writer
} from "../MemoryRoot.ts"

/** What an open transaction has staged so far, in order. */
interface Staged {
  readonly writes: ReadonlyArray<FileWrite>
  readonly journal: ReadonlyArray<JournalRecord>
  readonly state: ReadonlyArray<StateChange>
}

const nothingStaged: Staged = { writes: [], journal: [], state: [] }

/** A transaction open on the backend `owner`: the writer it holds, and what it has staged. */
interface Open {
  readonly owner: Backend
  readonly writer: BackendWriter
  readonly staged: Ref.Ref<Staged>
}

/** The transactions open in a fiber, one per root at most (a transaction of one root may run inside another's). */
const OpenTransactions = Context.Reference<ReadonlyArray<Open>>("@mneme/review/MemoryRoot/OpenTransactions", {
  defaultValue: () => []
})

/** The union of the entries of `keys`; `undefined` (the whole state) when one of them is. */
const unionOf = (keys: ReadonlyArray<StateKeys | undefined>): StateKeys | undefined => {
  const union: Record<string, Array<string>> = {}
  for (const each of keys) {
    if (each === undefined) return undefined
    for (const [record, names] of Object.entries(each)) union[record] = [...(union[record] ?? []), ...names]
  }
  return union
}

/** The staged changes of the state as one, made in order, expecting every cursor each expects; none when none. */
export const composed = (changes: ReadonlyArray<StateChange>): StateChange | undefined =>
  changes.length <= 1
    ? changes[0]
    : Object.assign((state: Parameters<StateChange>[0]) => changes.reduce((next, change) => change(next), state), {
        keys: unionOf(changes.map((change) => change.keys)),
        expects: changes.flatMap((change) => change.expects ?? [])
      })

/** The files a transaction has staged in a scope's folder (its memory files, the last write of each). */
const stagedIn = (dir: string, writes: ReadonlyArray<FileWrite>): ReadonlyMap<string, FileWrite> =>
  new Map(
    writes
      .filter((write) => write.file.startsWith(`${dir}/`) && write.file.endsWith(".md"))
      .filter((write) => !write.file.slice(dir.length + 1).includes("/"))
      .map((write) => [write.file, write])
  )

/** A file as a staged write leaves it. */
const storedAs = (write: FileWrite & { readonly content: string }, topic: string | undefined): StoredFile => ({
  file: write.file,
  topic,
  exists: true,
  parsed: write.parsed ?? MemoryFile.parse(write.content),
  size: Text.length(write.content)
})

/** `stored` as it reads with the writes a transaction has staged in it (only the topics `topics` names, when given). */
export const overlaid = (
  stored: StoredScope,
  writes: ReadonlyArray<FileWrite>,
  topics: ReadonlyArray<string> | undefined
): StoredScope => {
  const staged = stagedIn(stored.dir, writes)
  if (staged.size === 0) return stored
  const memoryFile = `${stored.dir}/MEMORY.md`
  const topicOf = (file: string) => (file === memoryFile ? undefined : file.slice(stored.dir.length + 1, -".md".length))
  const kept = stored.files.flatMap((file): ReadonlyArray<StoredFile> => {
    const write = staged.get(file.file)
    if (write === undefined) return [file]
    if (write.content !== undefined) return [storedAs({ ...write, content: write.content }, file.topic)]
    return file.topic === undefined ? [{ ...file, exists: false, parsed: MemoryFile.parse(""), size: 0 }] : []
  })
  const present = new Set(kept.map((file) => file.file))
  const added = [...staged.values()].flatMap((write): ReadonlyArray<StoredFile> => {
    const topic = topicOf(write.file)
    if (present.has(write.file) || write.content === undefined) return []
    if (topic !== undefined && topics !== undefined && !topics.includes(topic)) return []
    return [storedAs({ ...write, content: write.content }, topic)]
  })
  const files = [...kept, ...added].sort((a, b) =>
    a.topic === b.topic ? 0 : a.topic === undefined ? -1 : b.topic === undefined ? 1 : a.topic < b.topic ? -1 : 1
  )
  return { ...stored, files }
}

/** The writer of `open`: reads see what it has staged, commits are staged. */
const joined = (open: Open): Writer => ({
  read: (scope: MemoryScope.MemoryScope, topics?: ReadonlyArray<string>) =>
    Effect.flatMap(open.writer.read(scope, topics), (stored) =>
      Effect.map(Ref.get(open.staged), (staged) => overlaid(stored, staged.writes, topics))
    ),
  commit: (writes, journal) =>
    Ref.update(open.staged, (staged) => ({
      ...staged,
      writes: [...staged.writes.filter((old) => !writes.some((write) => write.file === old.file)), ...writes],
      journal: [...staged.journal, ...journal]
    })),
  erase: open.writer.erase
})

/** The writer of a backend outside any transaction: each commit lands at once. */
const immediate = (writer: BackendWriter): Writer => ({
  read: writer.read,
  commit: (writes, journal) => writer.commit(writes, journal, undefined),
  erase: writer.erase
})

/** The storage port over `backend`, with its unit of work. */
export const make = (backend: Backend): MemoryRoot["Service"] => {
  const current = Effect.map(Effect.service(OpenTransactions), (open) => open.find((each) => each.owner === backend))

  const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | StorageError, R> =>
    Effect.flatMap(current, (open) =>
      open !== undefined
        ? effect
        : backend.write((writer) =>
            Effect.gen(function* () {
              const opened: Open = { owner: backend, writer, staged: yield* Ref.make(nothingStaged) }
              const result = yield* effect.pipe(Effect.updateService(OpenTransactions, (open) => [...open, opened]))
              const staged = yield* Ref.get(opened.staged)
              const state = composed(staged.state)
              if (staged.writes.length > 0 || staged.journal.length > 0 || state !== undefined) {
                yield* writer.commit(staged.writes, staged.journal, state)
              }
              return result
            })
          )
    )

  const write = <A, E, R>(body: (writer: Writer) => Effect.Effect<A, E, R>): Effect.Effect<A, E | StorageError, R> =>
    Effect.flatMap(current, (open) =>
      open === undefined ? backend.write((writer) => body(immediate(writer))) : body(joined(open))
    )

  const updateState = (change: StateChange): Effect.Effect<void, StorageError> =>
    Effect.flatMap(current, (open) =>
      open === undefined
        ? backend.updateState(change)
        : Ref.update(open.staged, (staged) => ({ ...staged, state: [...staged.state, change] }))
    )

  return { ...backend, write, transaction, updateState }
}
