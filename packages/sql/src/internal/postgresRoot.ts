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
  Busy,
  MemoryFile,
  NewerFormat,
  NotFound,
  OutsideRoot,
  ReadFailed,
  RootUnusable,
  Scope,
  StorageError,
  type StorageReason,
  Text,
  WriteFailed
} from "@mneme/core"
import { MemoryRoot, Purge, RootLayout } from "@mneme/review"
import type { PgClient } from "@effect/sql-pg"
import { Array as Arr, Clock, Duration, Effect, Option, Result, Schema, Semaphore } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import * as Migrations from "./migrations.ts"
import * as ReviewRows from "./reviewRows.ts"

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

const storageError = (reason: StorageReason) => new StorageError({ reason })

/** What Postgres said, in words: the server's message where there is one. */
export const describe = (error: SqlError.SqlError): string => {
  const cause: unknown = "cause" in error.reason ? error.reason.cause : undefined
  return cause instanceof Error && cause.message !== "" ? cause.message : error.message
}

const readFailed = (file: string) => (error: SqlError.SqlError) =>
  storageError(new ReadFailed({ file, detail: describe(error) }))

const writeFailed = (file: string) => (error: SqlError.SqlError) =>
  storageError(new WriteFailed({ file, detail: describe(error) }))

/** The parts of a file a commit writes: its scope's folder and its topic (`''` for MEMORY.md); `undefined` if none. */
const partsOf = (file: string): { readonly dir: string; readonly topic: string } | undefined => {
  const slash = file.lastIndexOf("/")
  const dir = file.slice(0, slash)
  const topic = slash === -1 ? null : RootLayout.topicOfName(file.slice(slash + 1))
  const inScope = dir === "team" || (dir.startsWith("agents/") && dir.indexOf("/", "agents/".length) === -1)
  return topic === null || !inScope || dir === "agents/" ? undefined : { dir, topic: topic ?? "" }
}

/** A journal row as selected. */
interface JournalRow {
  readonly version: number
  readonly id: string | null
  readonly time: number
  readonly op: string
  readonly scope: string
  readonly file: string
  readonly actor: string
  readonly auto: boolean | null
  readonly before: string | null
  readonly after: string | null
  readonly undoes: string | null
  readonly entries: number | null
  readonly purged: boolean | null
}

const decodeLine = Schema.decodeUnknownOption(MemoryRoot.JournalLine)

/** The agent id an `agent` column holds (a JSON string), or `undefined` when it holds none. */
const agentOfColumn = (column: string): string | undefined =>
  Option.getOrUndefined(Schema.decodeUnknownOption(Schema.fromJsonString(Schema.String))(column))

/** A journal row as its line (its empty columns left out), if it is one. */
const lineOf = (row: JournalRow) =>
  decodeLine(Object.fromEntries(Object.entries(row).filter(([, value]) => value !== null)))

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
  const lockName = `mneme/${schema}`
  const lockShown = `${root}: advisory lock ${JSON.stringify(lockName)}`
  const semaphore = yield* Semaphore.make(1)
  const cache = new Map<string, Parsed>()

  // -------------------------------------------------------------------------------------------------------------------
  // The writer

  /** Who holds the root's lock now, as far as Postgres tells (a client naming itself `mneme <pid>@<host>`). */
  const holder = sql<{ readonly name: string; readonly since: number | null }>`
    SELECT a.application_name AS name, extract(epoch FROM a.xact_start)::float8 * 1000 AS since
    FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
    WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
      AND l.classid = ((hashtextextended(${lockName}, 0) >> 32) & 4294967295)::oid
      AND l.objid = (hashtextextended(${lockName}, 0) & 4294967295)::oid`.pipe(
    Effect.map(([row]) => {
      const named = row === undefined ? null : /^mneme (\d{1,10})@(.{1,200})$/.exec(row.name)
      return named === null || row?.since == null
        ? undefined
        : { pid: Number(named[1]), host: named[2]!, since: Math.round(row.since) }
    }),
    Effect.orElseSucceed(() => undefined)
  )

  /**
   * Takes the root's lock for the rest of the transaction, waiting at most `wait`; `Busy` past that (its holder is
   * looked up once the transaction has ended, see `named`). A transaction left idle for `idle` (its process frozen) is
   * ended by Postgres, and the lock with it, so a frozen writer does not stop every other.
   */
  const lock = Effect.gen(function* () {
    const start = yield* Clock.currentTimeMillis
    yield* sql`SELECT set_config('lock_timeout', ${`${Math.max(1, Math.round(Duration.toMillis(wait)))}ms`}, true),
      set_config('idle_in_transaction_session_timeout', ${idle}, true)`
    const taken = yield* Effect.result(sql`SELECT pg_advisory_xact_lock(hashtextextended(${lockName}, 0))`)
    if (Result.isFailure(taken)) {
      if (taken.failure.reason._tag !== "LockTimeoutError") return yield* taken.failure
      const waited = (yield* Clock.currentTimeMillis) - start
      return yield* storageError(new Busy({ lock: lockShown, waited }))
    }
    yield* sql`SELECT set_config('lock_timeout', '0', true)`
  })

  /** A `Busy` with the lock's holder, where Postgres can tell it (asked outside the writer's aborted transaction). */
  const named = <A, E, R>(self: Effect.Effect<A, E | StorageError, R>): Effect.Effect<A, E | StorageError, R> =>
    Effect.catch(self, (error) => {
      const busy = error instanceof StorageError && error.reason._tag === "Busy" ? error.reason : undefined
      return busy === undefined
        ? Effect.fail(error)
        : Effect.flatMap(holder, (by) =>
            Effect.fail(
              storageError(by === undefined ? busy : new Busy({ lock: busy.lock, waited: busy.waited, holder: by }))
            )
          )
    })

  /**
   * Runs `body` in one transaction holding the root's lock, one such writer at a time in this process, not interrupted
   * midway; a failure of the body takes back everything it wrote. A failure of Postgres itself is `onSqlError`'s.
   */
  const locked = <A, E, R>(
    body: Effect.Effect<A, E, R>,
    onSqlError: (error: SqlError.SqlError) => StorageError
  ): Effect.Effect<A, Exclude<E, SqlError.SqlError> | StorageError, R> =>
    named(
      semaphore
        .withPermit(Effect.uninterruptible(sql.withTransaction(Effect.andThen(lock, body))))
        .pipe(
          Effect.catch((error) =>
            Effect.fail(
              SqlError.isSqlError(error) ? onSqlError(error) : (error as Exclude<E, SqlError.SqlError> | StorageError)
            )
          )
        )
    )

  /** `locked`, a failure of Postgres being a failed write. */
  const hold = <A, E, R>(body: Effect.Effect<A, E, R>) => locked(body, writeFailed(root))

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
        : { text, parsed: MemoryFile.parse(text), chars: Text.length(text) }
    keep(file, parsed)
    return { file, topic, exists: true, parsed: parsed.parsed, size: parsed.chars }
  }

  /**
   * The scope's files as they are now: MEMORY.md first (empty when missing), then its topics by name (only those among
   * `only`, when given).
   */
  const readScope = (scope: Scope.Scope, only?: ReadonlyArray<string>): Effect.Effect<StoredScope, StorageError> => {
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

  const read = (scope: Scope.Scope) => readScope(scope).pipe(Effect.withSpan("MemoryRoot.read"))

  // -------------------------------------------------------------------------------------------------------------------
  // Reading and changing the review state

  const stateShown = `${schema}.review_state`

  const readState = sql<ReviewRows.Row>`SELECT part, key, value FROM ${stateTable}`.pipe(
    Effect.mapError(readFailed(stateShown)),
    Effect.flatMap((rows) =>
      ReviewRows.stateOf(rows).pipe(
        Effect.mapError((error) => storageError(new ReadFailed({ file: stateShown, detail: error.message })))
      )
    ),
    Effect.withSpan("MemoryRoot.readState")
  )

  /** The rows of the entries `keys` (each looked up by its primary key), as a state holding only those. */
  const readStateOf = (keys: MemoryRoot.StateKeys) => {
    const wanted = Object.entries(keys).flatMap(([part, names]) =>
      names.length === 0 ? [] : [sql`(part = ${part} AND key IN ${sql.in(names)})`]
    )
    const rows =
      wanted.length === 0
        ? Effect.succeed<ReadonlyArray<ReviewRows.Row>>([])
        : sql<ReviewRows.Row>`SELECT part, key, value FROM ${stateTable} WHERE ${sql.or(wanted)}`
    return rows.pipe(
      Effect.mapError(readFailed(stateShown)),
      Effect.flatMap((rows) =>
        ReviewRows.stateOf(rows).pipe(
          Effect.mapError((error) => storageError(new ReadFailed({ file: stateShown, detail: error.message })))
        )
      ),
      Effect.withSpan("MemoryRoot.readStateOf")
    )
  }

  /**
   * Changes the review state by `change` under the writer's lock: the rows it changes, in the writer's transaction; a
   * change of a few keys reads only theirs. Refused with `StaleCursor`, writing nothing, when a cursor it expects has
   * moved.
   */
  const changeState = (change: MemoryRoot.StateChange) =>
    Effect.gen(function* () {
      const state = yield* change.keys === undefined ? readState : readStateOf(change.keys)
      const stale = MemoryRoot.staleCursor(change, state)
      if (stale !== undefined) return yield* storageError(stale)
      const next = change(state)
      if (next === state) return
      const { deleted, written } = ReviewRows.changes(state, next)
      for (const row of deleted) {
        yield* sql`DELETE FROM ${stateTable} WHERE part = ${row.part} AND key = ${row.key}`
      }
      if (Arr.isReadonlyArrayNonEmpty(written)) {
        yield* sql`INSERT INTO ${stateTable} ${sql.insert(
          Arr.map(written, (row) => ({ part: row.part, key: row.key, value: sql.json(row.value) }))
        )} ON CONFLICT (part, key) DO UPDATE SET value = EXCLUDED.value`
      }
    }).pipe(Effect.catchIf(SqlError.isSqlError, writeFailed(stateShown)))

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

  const journal = (options?: { readonly limit?: number | undefined; readonly scope?: Scope.Scope | undefined }) =>
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
        const from = RootLayout.scopeDir(hash, Scope.own(agentId))
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

  return MemoryRoot.make({ root, read, write, journal, agents, archive, readState, readStateOf, updateState })
})
