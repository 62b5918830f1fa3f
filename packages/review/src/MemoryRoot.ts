/**
 * The storage port of a memory root (docs/design.md, "The shape"): the one place where memory files, the journal and the
 * review state are read and written. It owns the root's single writer (one semaphore in the process and one lock
 * across processes, shared by the store and the review state), resolves every path inside the root, writes
 * atomically and journals every change. The memory store and the review state are thin services over it, so a second
 * backend (Postgres, in `@mneme/sql`) implements this port and nothing above it changes.
 *
 * The files backend is `FileRoot.layer({ root })`.
 */
import { Backoff, type MemoryEdit, MemoryFile, type MemoryScope, StaleCursor, type StorageError } from "@mneme/core"
import { Context, DateTime, Effect, Random, Schema } from "effect"

/** Who makes a change: "review", "agent", "person", "cli", a host's name; `auto` when no one asked for it. */
export interface Actor {
  readonly actor: string
  readonly auto?: boolean
}

/**
 * One memory file as stored: its path relative to the root (`agents/<folder>/MEMORY.md`, `team/<topic>.md`), its topic,
 * whether it exists, its text as parsed (a backend may keep parsed files while they are unchanged), its size, and what a
 * read `within` sizes left out (`ReadOptions`). The file `MemoryEdit` plans over: one type on both sides of the port.
 */
export interface StoredFile extends MemoryEdit.File {}

/** How far `read` reads a file. */
export interface ReadOptions {
  /**
   * The sizes of MEMORY.md and of a topic, in characters: a file past its size may be read only as far as its first
   * entries whose texts fit in it (all that is shown of such a file), its other entries counted, not kept. Without,
   * every file is read whole.
   */
  readonly within?: { readonly memory: number; readonly topic: number } | undefined
}

/** A topic file that could not be read: left out of its scope's files, with why. */
export type Unreadable = MemoryEdit.Unreadable

/** The MEMORY.md of a scope that has none yet (docs/spec.md 1: a missing MEMORY.md reads as empty), at `file`. */
export const missingMemory = (file: string): StoredFile => ({
  file,
  topic: undefined,
  exists: false,
  parsed: emptyParsed,
  size: 0
})

const emptyParsed = MemoryFile.parse("")

/**
 * A scope as stored: MEMORY.md first (empty when missing), then its topics by name, and what could not be read; its
 * folder relative to the root (`team`, `agents/<folder>`), as the journal names it.
 */
export interface StoredScope extends MemoryEdit.Files {}

/** A file a change writes: its new text, or `undefined` to delete it. */
export interface FileWrite {
  readonly file: string
  readonly content: string | undefined
  /**
   * The new text as parsed (`MemoryFile.parse(content)`), when the writer has it: a backend that keeps parsed files
   * keeps it, so the next read of the same text parses nothing.
   */
  readonly parsed?: MemoryFile.Parsed | undefined
}

/** One line of the journal: every change, with the line before and after. */
export const JournalLine = Schema.Struct({
  version: Schema.Literals([1, 2]),
  /** A unique id (version 2), so one change can be named (undo). */
  id: Schema.optionalKey(Schema.String),
  time: Schema.Number,
  /**
   * `consolidate`: a line of a consolidation pass (SPEC's "a full memory makes room"), undone with its others.
   * `purge`: the record that entries were purged (`entries` of them), with no text; never undone.
   * `hold`, `approve`, `reject`: an entry entering the scope's list of entries waiting for a person (`after`), or
   * leaving it (`before`), approved (its `add` follows, or precedes, as the memory store journals it) or rejected (an
   * `auto` rejection is an entry dropped to make room); the file is the scope's `pending.json`; never undone.
   */
  op: Schema.Literals([
    "add",
    "replace",
    "remove",
    "archive",
    "undo",
    "consolidate",
    "purge",
    "hold",
    "approve",
    "reject"
  ]),
  /** The scope's folder, relative to the root. */
  scope: Schema.String,
  file: Schema.String,
  actor: Schema.String,
  auto: Schema.optionalKey(Schema.Boolean),
  before: Schema.optionalKey(Schema.String),
  after: Schema.optionalKey(Schema.String),
  /** For an undo: the id of the change it reverts. */
  undoes: Schema.optionalKey(Schema.String),
  /** For a purge: how many entries it removed. */
  entries: Schema.optionalKey(Schema.Number),
  /** The line's texts (`before`, `after`) were erased by a purge: the change can no longer be undone. */
  purged: Schema.optionalKey(Schema.Boolean)
})

/** One line of the journal. */
export type JournalLine = typeof JournalLine.Type

/** What a change journals; the port fills in the version, the id and the time. */
export type JournalRecord = Omit<JournalLine, "version" | "id" | "time">

/** The format version of the journal lines this release writes, in every backend. */
export const journalVersion = 2

/**
 * The journal's lines of one change made at `time` (epoch ms), with their ids, minted here for every backend: the
 * change's own id (`<time in base 36>-<random in base 36>`) for a change of one line, else that and `.<index>` for each,
 * so the lines of one change can be told from those of the next.
 */
export const journalLines = (
  records: ReadonlyArray<JournalRecord>,
  time: number
): Effect.Effect<ReadonlyArray<JournalLine>> =>
  Effect.map(Random.nextIntBetween(0, 2 ** 48), (random) => {
    const change = `${time.toString(36)}-${random.toString(36)}`
    return records.map((record, index): JournalLine => ({
      version: journalVersion,
      id: records.length === 1 ? change : `${change}.${index}`,
      time,
      ...record
    }))
  })

/**
 * Where an agent's folder `from` (`agents/<name>`) is archived at `now` (epoch ms), before a number is added to tell
 * it from an archive already there: `archive/<name>-<time>`, the time with `:` and `.` as `-`. Every backend names
 * archives so.
 */
export const archiveBase = (from: string, now: number): string =>
  `archive/${from.slice("agents/".length)}-${DateTime.formatIso(DateTime.makeUnsafe(now)).replace(/[:.]/g, "-")}`

/** The journal record of archiving the agent folder `from` to `to`. */
export const archiveRecord = (from: string, to: string, actor: Actor): JournalRecord => ({
  op: "archive",
  scope: from,
  file: from,
  actor: actor.actor,
  ...(actor.auto === undefined ? {} : { auto: actor.auto }),
  after: to
})

/** How an agent's latest review ended (docs/spec.md 4.6). */
export const LastReview = Schema.Struct({
  at: Schema.Number,
  ok: Schema.Boolean,
  reason: Schema.NullOr(Schema.String)
})

/** How an agent's latest review ended. */
export type LastReview = typeof LastReview.Type

/**
 * Lines of a group's log a host dropped before a member had reviewed them (docs/spec.md 4.7): those after the member's cursor
 * (`after`, `null` when it had none) up to `upto`, dropped at `at`.
 */
export const DroppedLines = Schema.Struct({
  after: Schema.NullOr(Schema.Number),
  upto: Schema.Number,
  at: Schema.Number
})

/** Lines dropped before a member had reviewed them. */
export type DroppedLines = typeof DroppedLines.Type

/**
 * What an agent's reviews spent on one day: model calls and tokens (as reported, else estimated), and whether the
 * budget's stop was warned that day.
 */
export const DayUsage = Schema.Struct({
  calls: Schema.Number,
  tokens: Schema.Number,
  warned: Schema.optionalKey(Schema.Boolean)
})

/** What an agent's reviews spent on one day. */
export type DayUsage = typeof DayUsage.Type

/**
 * The review state: a cursor per key, failure records per key, the last review per agent, and the lines each member
 * of a group lost to a host's drop (absent when none did), what each agent's reviews spent per day, and when each
 * scope's MEMORY.md was last consolidated.
 */
export const ReviewStateDocument = Schema.Struct({
  version: Schema.Literal(2),
  cursors: Schema.Record(Schema.String, Schema.Number),
  failures: Schema.Record(Schema.String, Backoff.FailureRecord),
  lastReviews: Schema.Record(Schema.String, LastReview),
  dropped: Schema.optionalKey(Schema.Record(Schema.String, Schema.Array(DroppedLines))),
  /** Per agent, per day (`YYYY-MM-DD`, the last 8 kept): what its reviews spent (absent before any was counted). */
  usage: Schema.optionalKey(Schema.Record(Schema.String, Schema.Record(Schema.String, DayUsage))),
  /** Per scope folder (`agents/<folder>`, `team`), when its MEMORY.md was last consolidated (epoch ms). */
  consolidated: Schema.optionalKey(Schema.Record(Schema.String, Schema.Number))
})

/** The review state. */
export type ReviewStateDocument = typeof ReviewStateDocument.Type

/** The review state of a root nothing has been reviewed in. */
export const emptyState: ReviewStateDocument = { version: 2, cursors: {}, failures: {}, lastReviews: {} }

/** An agent's folder in the root. */
export interface AgentFolder {
  /** The agent's id, where the root records it (`undefined` for a folder of unknown origin). */
  readonly agentId: string | undefined
  /** The folder, relative to the root. */
  readonly dir: string
}

/**
 * Entries of the review state, by record (`cursors`, `failures`, `lastReviews`, `dropped`…): the keys a lookup reads, or
 * a change reads and changes.
 */
export type StateKeys = { readonly [record: string]: ReadonlyArray<string> }

/** What a change requires of the state it is made on: the cursor of `key` is still `cursor` (`undefined`: none). */
export interface CursorExpected {
  readonly key: string
  readonly cursor: number | undefined
}

/** What a change of the review state says of itself, so a backend reads only what it needs and refuses a stale one. */
export interface StateChangeScope {
  /**
   * The only entries the change reads and changes: it is then given a state holding those entries only (where
   * stored), the rest of the state neither read nor written. Absent: the whole state.
   */
  readonly keys?: StateKeys | undefined
  /**
   * The cursors the state must still hold, else the change (and the commit it is part of) is refused with
   * `StaleCursor`.
   */
  readonly expects?: ReadonlyArray<CursorExpected> | undefined
}

/** A change of the review state: its input returned when it changes nothing. */
export type StateChange = ((state: ReviewStateDocument) => ReviewStateDocument) & StateChangeScope

/** A change of the entries `keys` only, refused unless `expects` holds, when given. */
export const keyedChange = (
  keys: StateKeys,
  change: (state: ReviewStateDocument) => ReviewStateDocument,
  expects?: CursorExpected
): StateChange => {
  const withExpected = expects === undefined ? keys : { ...keys, cursors: [...(keys["cursors"] ?? []), expects.key] }
  return Object.assign((state: ReviewStateDocument) => change(state), {
    keys: withExpected,
    expects: expects === undefined ? undefined : [expects]
  })
}

/** Why `change` may not be made on `state` (a cursor it expects has moved), or `undefined` when it may. */
export const staleCursor = (change: StateChangeScope, state: ReviewStateDocument): StaleCursor | undefined => {
  for (const expects of change.expects ?? []) {
    const stored = Object.hasOwn(state.cursors, expects.key) ? state.cursors[expects.key] : undefined
    if (stored !== expects.cursor) {
      return new StaleCursor({ key: expects.key, read: expects.cursor ?? null, stored: stored ?? null })
    }
  }
  return undefined
}

/**
 * What the single writer offers inside one hold of the lock. Inside a `transaction`, a writer's commits are staged and
 * land with the transaction's; outside one, each commit lands at once.
 */
export interface Writer {
  /**
   * The scope as it is now, read under the lock (with what the open transaction has staged in it); with `topics`, only
   * its MEMORY.md and those of the topics it has (what a change that names its files needs), nothing else of it looked
   * at.
   */
  readonly read: (
    scope: MemoryScope.MemoryScope,
    topics?: ReadonlyArray<string>
  ) => Effect.Effect<StoredScope, StorageError>
  /**
   * Makes one change: writes each file once (atomically) and appends its journal records in one write; all of it lands,
   * or none of it (with the rest of the open transaction, if any); a change is never made without its journal lines.
   */
  readonly commit: (
    writes: ReadonlyArray<FileWrite>,
    journal: ReadonlyArray<JournalRecord>
  ) => Effect.Effect<void, StorageError>
  /**
   * Erases `texts` (entries' texts) from the journal's history at once (never staged): every line `Purge.erasing`
   * picks has its `before` and `after` dropped and is marked `purged` (a damaged line holding one of them is dropped),
   * the journal rewritten whole and atomically. Gives how many lines were erased.
   */
  readonly erase: (texts: ReadonlyArray<string>) => Effect.Effect<number, StorageError>
}

/** What a backend's writer offers inside one hold of its lock: a writer whose commit also changes the review state. */
export interface BackendWriter extends Omit<Writer, "commit"> {
  /**
   * Makes one change: writes each file once (atomically), appends its journal records in one write, and changes the
   * review state by `state` (read under the lock; `undefined`: unchanged). All of it lands, or none of it: nothing is
   * changed when the journal or the state cannot be written, or when `state` expects a cursor that has moved
   * (`StaleCursor`).
   */
  readonly commit: (
    writes: ReadonlyArray<FileWrite>,
    journal: ReadonlyArray<JournalRecord>,
    state: StateChange | undefined
  ) => Effect.Effect<void, StorageError>
}

/**
 * A backend of the storage port (the files, Postgres): the port without its unit of work, which `StorageBackend.make`
 * adds over it.
 */
export interface Backend extends Omit<MemoryRoot["Service"], "write" | "transaction"> {
  /** Runs `body` as the root's only writer, in this process and across processes; not interrupted midway. */
  readonly write: <A, E, R>(
    body: (writer: BackendWriter) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | StorageError, R>
}

/** The storage port of one memory root. */
export class MemoryRoot extends Context.Service<
  MemoryRoot,
  {
    /** How the root is named to people (an absolute folder, a database and schema). */
    readonly root: string
    /**
     * Reads a scope outside the writer (each file whole unless `options.within` says otherwise; a file a person changed
     * is always read again).
     */
    readonly read: (scope: MemoryScope.MemoryScope, options?: ReadOptions) => Effect.Effect<StoredScope, StorageError>
    /**
     * Runs `body` as the root's only writer, in this process and across processes; not interrupted midway. Inside an open
     * `transaction`, joins it: the writer is the transaction's, its commits staged.
     */
    readonly write: <A, E, R>(body: (writer: Writer) => Effect.Effect<A, E, R>) => Effect.Effect<A, E | StorageError, R>
    /**
     * Runs `effect` as one unit of work of the root (as `SqlClient.withTransaction` does for a database): the writer is
     * held for its extent, and what `write` commits and `updateState` changes inside it (the store's batch, the review
     * state's record) is staged and lands in one commit when `effect` succeeds, or not at all (nothing when it fails,
     * or when a change of the state expects a cursor that has moved: `StaleCursor`). Inside an open transaction of the
     * same root, joins it.
     */
    readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StorageError, R>
    /** The journal's lines, oldest first: the last `limit`, of one scope when given. */
    readonly journal: (options?: {
      readonly limit?: number | undefined
      readonly scope?: MemoryScope.MemoryScope | undefined
    }) => Effect.Effect<ReadonlyArray<JournalLine>, StorageError>
    /** The agents' folders of the root. */
    readonly agents: Effect.Effect<ReadonlyArray<AgentFolder>, StorageError>
    /** Moves an agent's folder whole under `archive/` (journaled); gives the archive folder, relative to the root. */
    readonly archive: (agentId: string, actor: Actor) => Effect.Effect<string, StorageError>
    /** The review state (`emptyState` when none is stored). */
    readonly readState: Effect.Effect<ReviewStateDocument, StorageError>
    /**
     * The entries `keys` of the review state, looked up by key: a state holding those of them that are stored, and
     * nothing else (its other records empty).
     */
    readonly readStateOf: (keys: StateKeys) => Effect.Effect<ReviewStateDocument, StorageError>
    /**
     * Changes the review state as the root's only writer; `change` returning its input writes nothing; a change whose
     * expected cursor has moved fails with `StaleCursor`, writing nothing. Inside an open `transaction`, staged with it.
     */
    readonly updateState: (change: StateChange) => Effect.Effect<void, StorageError>
  }
>()("@mneme/review/MemoryRoot") {}
