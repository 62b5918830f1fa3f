/**
 * The Postgres backend of the storage port (`PostgresRoot.layer`): a memory root as a schema (see `migrations.ts` for
 * its tables). The Markdown text of each file is its row's content, parsed by the same parser as the files backend's,
 * and a scope's folder is named as that backend names it, so a scope reads back the same `StoredScope` from either.
 *
 * One writer per root, across processes: every change is one transaction that first takes the root's advisory lock
 * (`pg_advisory_xact_lock`, held until the transaction ends, let go by Postgres when a writer's connection dies), and
 * in the process one writer at a time waits for it. A writer reads under the lock, so a replica that waited re-plans
 * against what the other wrote. A commit writes its files, its journal lines and the change of the review state it
 * carries in one savepoint of that transaction: all of them, or none (none when the state's change expects a cursor
 * another review has moved since: `StaleCursor`). The review state is looked up and changed by key, row by row. A
 * lock busy for longer than `wait` fails with `Busy`, naming its holder.
 */
import {
  MemoryFile,
  MemoryScope,
  NewerFormat,
  NotFound,
  OutsideRoot,
  RootUnusable,
  type StorageError,
  Text,
  Topic
} from "@mneme/core"
import { MemoryRoot, Purge, RootLayout, StorageBackend } from "@mneme/review"
import type { PgClient } from "@effect/sql-pg"
import { Array as Arr, Clock, Duration, Effect } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import * as Migrations from "./migrations.ts"
import * as PostgresLock from "./postgresLock.ts"
import {
  agentOfColumn,
  describe,
  type JournalRow,
  lineOf,
  partsOf,
  readFailed,
  storageError,
  writeFailed
} from "./postgresRows.ts"
import * as PostgresState from "./postgresState.ts"

export { describe } from "./postgresRows.ts"

/**
 * What the backend takes besides its client: the schema, how the root is named, how long a writer waits, and how long
 * a writer's transaction may sit idle.
 */
export interface Options {
  readonly schema: string
  readonly root: string
  readonly wait: Duration.Input
  readonly idle: Duration.Input
}

type StoredFile = MemoryRoot.StoredFile
type StoredScope = MemoryRoot.StoredScope
type JournalLine = MemoryRoot.JournalLine
type JournalRecord = MemoryRoot.JournalRecord

/** A schema name Postgres takes unquoted: a lower-case letter or `_`, then up to 62 of `[a-z0-9_]`. */
export const schemaName = /^[a-z_][a-z0-9_]{0,62}$/

const hash = RootLayout.hash

/** The parsed text of a file, kept while its text is unchanged (a read fetches the text, and parses only a changed one). */
interface Parsed {
  readonly text: string
  readonly parsed: MemoryFile.Parsed
  readonly chars: number
}

/** How many parsed files a root keeps, the least recently read dropped first (as the files backend does). */
const cacheLimit = 4_096

/** The storage port over the schema `options.schema`, with the client given (its tables made where missing). */
export const make = Effect.fnUntraced(function* (sql: PgClient.PgClient, options: Options) {
  const { schema, root } = options
  const wait = Duration.fromInputUnsafe(options.wait)
  const idle = `${Math.max(1, Math.round(Duration.toMillis(Duration.fromInputUnsafe(options.idle))))}ms`
  if (!schemaName.test(schema)) {
    return yield* storageError(
      new RootUnusable({
        root,
        detail: `${JSON.stringify(schema)} is not a schema name: use 1-63 lower-case letters, digits or "_", starting with a letter or "_"`
      })
    )
  }
  const table = (name: string) => sql(`${schema}.${name}`)
  const files = table("memory_files")
  const journalTable = table("journal")
  const stateTable = table("review_state")
  const cache = new Map<string, Parsed>()
  const names = Topic.cleaner(cacheLimit)
  const { locked, hold } = yield* PostgresLock.make(sql, { root, lockName: `mneme/${schema}`, wait, idle })
  const { readState, readStateOf, changeState } = PostgresState.make(sql, schema, stateTable)

  // -------------------------------------------------------------------------------------------------------------------
  // Reading

  const missingMemory = (dir: string): StoredFile => MemoryRoot.missingMemory(RootLayout.fileOf(dir, undefined))

  /** Keeps `parsed` as the parse of `file`, the least recently kept dropped past the limit. */
  const keep = (file: string, parsed: Parsed) => {
    cache.delete(file)
    cache.set(file, parsed)
    if (cache.size > cacheLimit) cache.delete(cache.keys().next().value!)
  }

  /** The file `file` with the text `text`, parsed again only when its text changed since it was last read. */
  const storedOf = (file: string, topic: string | undefined, text: string): StoredFile => {
    const last = cache.get(file)
    const parsed =
      last !== undefined && last.text === text
        ? last
        : { text, parsed: MemoryFile.parse(text, names), chars: Text.length(text) }
    keep(file, parsed)
    return { file, topic, exists: true, parsed: parsed.parsed, size: parsed.chars }
  }

  /**
   * The scope's files as they are now: MEMORY.md first (empty when missing), then its topics by name (only those among
   * `only`, when given).
   */
  const readScope = (
    scope: MemoryScope.MemoryScope,
    only?: ReadonlyArray<string>
  ): Effect.Effect<StoredScope, StorageError> => {
    const dir = RootLayout.scopeDir(hash, scope)
    const which = only === undefined ? sql`` : sql`AND topic IN ${sql.in(["", ...only])}`
    return sql<{ readonly topic: string; readonly content: string }>`
      SELECT topic, content FROM ${files} WHERE scope = ${dir} ${which}`.pipe(
      Effect.map((rows): StoredScope => {
        const memory = rows.find((row) => row.topic === "")
        const topics = rows.filter((row) => row.topic !== "").toSorted((a, b) => (a.topic < b.topic ? -1 : 1))
        return {
          scope,
          dir,
          files: [
            memory === undefined
              ? missingMemory(dir)
              : storedOf(RootLayout.fileOf(dir, undefined), undefined, memory.content),
            ...topics.map((row) => storedOf(RootLayout.fileOf(dir, row.topic), row.topic, row.content))
          ],
          unreadable: []
        }
      }),
      Effect.mapError(readFailed(dir))
    )
  }

  const read = (scope: MemoryScope.MemoryScope) => readScope(scope).pipe(Effect.withSpan("MemoryRoot.read"))

  // -------------------------------------------------------------------------------------------------------------------
  // Writing

  /** Appends `lines` to the journal, in one statement. */
  const append = (lines: ReadonlyArray<JournalLine>) =>
    !Arr.isReadonlyArrayNonEmpty(lines)
      ? Effect.void
      : sql`INSERT INTO ${journalTable} ${sql.insert(
          Arr.map(lines, (line) => ({
            version: line.version,
            id: line.id ?? null,
            time: line.time,
            op: line.op,
            scope: line.scope,
            file: line.file,
            actor: line.actor,
            auto: line.auto ?? null,
            before: line.before ?? null,
            after: line.after ?? null,
            undoes: line.undoes ?? null,
            entries: line.entries ?? null,
            purged: line.purged ?? null
          }))
        )}`.pipe(Effect.asVoid, Effect.mapError(writeFailed("journal")))

  /**
   * The agent id as its column holds it: as a JSON string, so any id is kept (Postgres text cannot hold U+0000, which
   * an id may, as a file's `agent.json` can).
   */
  const agentColumn = (agentId: string | undefined) => (agentId === undefined ? null : JSON.stringify(agentId))

  /** Writes one file (`content` `undefined` deletes it), recording the agent whose scope it is in, when known. */
  const writeFile = (write: MemoryRoot.FileWrite, agents: ReadonlyMap<string, string>) => {
    const parts = partsOf(write.file)
    if (parts === undefined) {
      return Effect.fail(
        storageError(new OutsideRoot({ path: JSON.stringify(write.file), detail: "is not a memory file of a scope" }))
      )
    }
    const { dir, topic } = parts
    const statement =
      write.content === undefined
        ? sql`DELETE FROM ${files} WHERE scope = ${dir} AND topic = ${topic}`
        : sql`INSERT INTO ${files} (scope, topic, agent, content, version)
            VALUES (${dir}, ${topic}, ${agentColumn(agents.get(dir))}, ${write.content}, 1)
            ON CONFLICT (scope, topic) DO UPDATE SET content = EXCLUDED.content,
              version = ${files}.version + 1, agent = coalesce(EXCLUDED.agent, ${files}.agent)`
    return statement.pipe(Effect.asVoid, Effect.mapError(writeFailed(write.file)))
  }

  /**
   * One change, in a savepoint of the writer's transaction: every file, every journal line and the change of the review
   * state, or nothing. A file written keeps the parse its writer gave (a read of the same text parses nothing).
   */
  const commit = (
    agents: ReadonlyMap<string, string>,
    writes: ReadonlyArray<MemoryRoot.FileWrite>,
    records: ReadonlyArray<JournalRecord>,
    state: MemoryRoot.StateChange | undefined
  ) =>
    Effect.gen(function* () {
      if (writes.length === 0 && records.length === 0 && state === undefined) return
      const lines = yield* MemoryRoot.journalLines(records, yield* Clock.currentTimeMillis)
      yield* sql
        .withTransaction(
          Effect.all(
            [
              Effect.forEach(writes, (write) => writeFile(write, agents), { discard: true }),
              append(lines),
              state === undefined ? Effect.void : changeState(state)
            ],
            { discard: true }
          )
        )
        .pipe(Effect.catchIf(SqlError.isSqlError, writeFailed(root)))
      for (const { file, content, parsed } of writes) {
        if (content !== undefined && parsed !== undefined)
          keep(file, { text: content, parsed, chars: Text.length(content) })
      }
    })

  /** Erases `texts` from the journal's history (`Purge.erasing`): the rows picked lose their texts, marked `purged`. */
  const erase = (texts: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      const rows = yield* sql<{
        readonly seq: string
        readonly before: string | null
        readonly after: string | null
      }>`SELECT seq, before, after FROM ${journalTable} ORDER BY seq`
      const picked = Purge.erasing(
        rows.map((row) => ({
          ...(row.before === null ? {} : { before: row.before }),
          ...(row.after === null ? {} : { after: row.after })
        })),
        texts
      )
      const seqs = [...picked].map((index) => rows[index]!.seq)
      if (seqs.length === 0) return 0
      yield* sql`UPDATE ${journalTable} SET before = NULL, after = NULL, purged = true WHERE seq IN ${sql.in(seqs)}`
      return seqs.length
    }).pipe(Effect.mapError(writeFailed("journal")))

  const write = <A, E, R>(
    body: (writer: MemoryRoot.BackendWriter) => Effect.Effect<A, E, R>
  ): Effect.Effect<A, E | StorageError, R> =>
    hold(
      Effect.suspend(() => {
        // The agent of each scope this writer read, recorded on the rows it writes there.
        const agents = new Map<string, string>()
        return body({
          read: (scope, topics) => {
            if (scope.kind === "agent") agents.set(RootLayout.scopeDir(hash, scope), scope.agentId)
            return readScope(scope, topics)
          },
          commit: (writes, records, state) => commit(agents, writes, records, state),
          erase
        })
      })
    ).pipe(Effect.withSpan("MemoryRoot.write"))

  // -------------------------------------------------------------------------------------------------------------------
  // The journal, the agents, archiving

  const journal = (options?: {
    readonly limit?: number | undefined
    readonly scope?: MemoryScope.MemoryScope | undefined
  }) =>
    Effect.gen(function* () {
      const scope = options?.scope === undefined ? undefined : RootLayout.scopeDir(hash, options.scope)
      const where = scope === undefined ? sql`` : sql`WHERE scope = ${scope}`
      const columns = sql`version, id, time, op, scope, file, actor, auto, before, after, undoes, entries, purged`
      const limit = options?.limit
      const rows =
        limit === undefined
          ? yield* sql<JournalRow>`SELECT ${columns} FROM ${journalTable} ${where} ORDER BY seq`
          : (yield* sql<JournalRow>`SELECT ${columns} FROM ${journalTable} ${where} ORDER BY seq DESC LIMIT ${Math.max(
              0,
              Math.ceil(limit)
            )}`).toReversed()
      const lines = rows.flatMap((row) => {
        const line = lineOf(row)
        return line._tag === "Some" ? [line.value] : []
      })
      if (lines.length < rows.length) {
        yield* Effect.logWarning(`mneme: the journal has ${rows.length - lines.length} damaged row(s), skipped`)
      }
      return lines
    }).pipe(Effect.mapError(readFailed("journal")), Effect.withSpan("MemoryRoot.journal"))

  const agents = sql<{ readonly scope: string; readonly agent: string | null }>`
    SELECT scope, max(agent) AS agent FROM ${files} WHERE scope LIKE 'agents/%' GROUP BY scope`.pipe(
    Effect.map((rows) =>
      rows
        .map(({ scope, agent }): MemoryRoot.AgentFolder => {
          const name = scope.slice("agents/".length)
          const recorded = agent === null ? undefined : agentOfColumn(agent)
          const agentId =
            recorded !== undefined && RootLayout.agentDir(hash, recorded) === name
              ? recorded
              : RootLayout.agentOfName(name)
          return { agentId, dir: scope }
        })
        .toSorted((a, b) => (a.dir < b.dir ? -1 : 1))
    ),
    Effect.mapError(readFailed("agents")),
    Effect.withSpan("MemoryRoot.agents")
  )

  /** Whether the scope folder `dir` has any file. */
  const hasFiles = (dir: string) =>
    Effect.map(sql`SELECT 1 FROM ${files} WHERE scope = ${dir} LIMIT 1`, (rows) => rows.length > 0)

  const archive = (agentId: string, actor: MemoryRoot.Actor) =>
    hold(
      Effect.gen(function* () {
        const from = RootLayout.scopeDir(hash, MemoryScope.own(agentId))
        if (!(yield* hasFiles(from).pipe(Effect.mapError(readFailed(from))))) {
          return yield* storageError(new NotFound({ path: from, detail: "there is no memory folder to archive" }))
        }
        const now = yield* Clock.currentTimeMillis
        const base = MemoryRoot.archiveBase(from, now)
        let to = base
        for (let n = 2; yield* hasFiles(to).pipe(Effect.mapError(readFailed(to))); n++) to = `${base}-${n}`
        const lines = yield* MemoryRoot.journalLines([MemoryRoot.archiveRecord(from, to, actor)], now)
        yield* sql`UPDATE ${files} SET scope = ${to}, version = version + 1 WHERE scope = ${from}`.pipe(
          Effect.mapError(writeFailed(from))
        )
        yield* append(lines)
        return to
      })
    ).pipe(Effect.withSpan("MemoryRoot.archive"))

  // -------------------------------------------------------------------------------------------------------------------
  // The review state

  const updateState = (change: MemoryRoot.StateChange) =>
    hold(changeState(change)).pipe(Effect.withSpan("MemoryRoot.updateState"))

  // -------------------------------------------------------------------------------------------------------------------
  // The schema

  const unusable = (detail: string) => storageError(new RootUnusable({ root, detail }))
  const version = yield* locked(Migrations.migrate(schema), (error) => unusable(describe(error))).pipe(
    Effect.provideService(SqlClient.SqlClient, sql),
    Effect.mapError((error) => (error._tag === "StorageError" ? error : unusable(error.message)))
  )
  if (version > Migrations.formatVersion) {
    return yield* storageError(new NewerFormat({ file: `${schema}.${Migrations.migrationsTable}`, version }))
  }

  return StorageBackend.make({ root, read, write, journal, agents, archive, readState, readStateOf, updateState })
})
