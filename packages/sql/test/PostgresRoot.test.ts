/**
 * What the Postgres backend promises beyond the store's suite: the same scopes and journal as the files backend for
 * the same changes, migrations run by the layer and a newer format refused, a database that cannot be used named
 * without its password, one writer per root across processes (two replicas lose nothing; a busy lock is `Busy`,
 * naming its holder), a change whose journal cannot be written is not made, and a review's record is written in the
 * transaction of its answer.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { MemoryConfig, MemoryScope, StorageError } from "@mneme/core"
import { FileRoot, Memory, MemoryReview, MemoryRoot, MemoryStore, Platform, ReviewState } from "@mneme/review"
import * as Testing from "@mneme/review/testing"
import { PostgresRoot } from "@mneme/sql"
import { Deferred, Effect, Fiber, FileSystem, Layer } from "effect"
import { TestClock } from "effect/testing"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { at as over } from "../../review/test/storeSuite.ts"
import { freshSchema, rootOptions, url, withClient } from "./fixtures/postgres.ts"

type Store = MemoryStore.MemoryStore["Service"]

const own = MemoryScope.own("ada")
const noon = Date.UTC(2026, 10, 6, 12)

/** A store over a root in `schema`. */
const at = <A, E>(
  schema: string,
  body: (store: Store) => Effect.Effect<A, E>,
  options: PostgresRoot.RootOptions = {}
) => over(PostgresRoot.layer(rootOptions(schema, options)), body)

/** `error` as a `StorageError`, failing the test when it is another error. */
const storageError = (error: { readonly _tag: string }): StorageError =>
  error instanceof StorageError ? error : assert.fail(`expected a StorageError, got ${error._tag}`)

const entryTexts = (view: MemoryStore.ScopeView) =>
  view.files.flatMap((file) => file.parsed.entries.map((entry) => entry.text))

/** The same changes, in order, for both backends. */
const changes = (store: Store) =>
  Effect.gen(function* () {
    yield* store.add({ scope: own, text: "likes tea", meta: [["source", "chat #1"]], actor: "review", auto: true })
    yield* store.add({ scope: own, topic: "travel", text: "goes to Oslo in May", actor: "review" })
    yield* store.add({ scope: own, topic: "art", text: "paints 🎨 watercolours", actor: "agent" })
    yield* store.add({ scope: MemoryScope.team, text: "the office is in Oslo", actor: "person" })
    yield* store.replace({ scope: own, match: "tea", text: "likes green tea", actor: "person" })
    yield* store.remove({ scope: own, topic: "art", match: "paints", actor: "person" })
    yield* store.undo({ scope: own, actor: "cli" })
    yield* store.add({ scope: MemoryScope.own("Ada Lovelace"), text: "wrote the first program", actor: "review" })
  })

describe("the Postgres backend", () => {
  it.effect("gives the same scopes, agents and journal as the files backend for the same changes", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(noon)
      const folder = yield* Effect.flatMap(FileSystem.FileSystem, (fs) =>
        fs.makeTempDirectoryScoped({ prefix: "mneme-pg-" })
      ).pipe(Effect.provide(NodeServices.layer))
      const files = FileRoot.layer({ root: folder }).pipe(
        Layer.provide(Platform.layerTest()),
        Layer.provide(NodeServices.layer)
      )
      const postgres = PostgresRoot.layer(rootOptions(yield* freshSchema))
      const state = (root: typeof files | typeof postgres) =>
        over(root, (store) =>
          Effect.all({
            own: store.load(own),
            team: store.load(MemoryScope.team),
            other: store.load(MemoryScope.own("Ada Lovelace")),
            agents: store.agents,
            // Each line without its id, and an undo naming the line it undoes by its place.
            journal: Effect.map(store.journal(), (lines) =>
              lines.map(({ id, undoes, ...line }) => {
                assert.isString(id)
                return undoes === undefined
                  ? line
                  : { ...line, undoes: lines.findIndex((other) => other.id === undoes) }
              })
            )
          })
        )
      yield* over(files, changes)
      yield* over(postgres, changes)
      const fromFiles = yield* state(files)
      const fromPostgres = yield* state(postgres)
      assert.deepStrictEqual(fromPostgres, fromFiles)
      assert.deepStrictEqual(entryTexts(fromPostgres.own), [
        "likes green tea",
        "paints 🎨 watercolours",
        "goes to Oslo in May"
      ])
      assert.strictEqual(fromPostgres.journal.length, 12)
    })
  )

  it.effect("a host composes Memory over it: a review's changes, cursor and last review land in Postgres", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(noon)
      const schema = yield* freshSchema
      const answer = JSON.stringify({ changes: [{ op: "add", text: "The user prefers dark mode" }] })
      const layer = Memory.layerOver(PostgresRoot.layer(rootOptions(schema)), { settings: { timeZone: "UTC" } }).pipe(
        Layer.provideMerge(Layer.merge(Testing.transcriptMemory, Testing.scriptedModel([answer])))
      )
      yield* Effect.gen(function* () {
        const host = yield* Testing.TranscriptMemory
        yield* host.addAgent({ id: "ada", name: "Ada", mayWriteTeam: false })
        yield* host.bind("chat-1", "ada")
        yield* host.append("chat-1", { seq: 7, who: "user", text: "I prefer dark mode" })
        const outcome = yield* MemoryReview.MemoryReview.use((review) => review.reviewNow("chat-1"))
        assert.strictEqual(outcome._tag, "Reviewed")
      }).pipe(Effect.provide(layer))
      // A new instance, as another replica, reads what the review wrote.
      const read = Layer.merge(MemoryStore.layer, ReviewState.layer).pipe(
        Layer.provide(PostgresRoot.layer(rootOptions(schema))),
        Layer.provide(MemoryConfig.layer({ timeZone: "UTC" }))
      )
      yield* Effect.gen(function* () {
        const store = yield* MemoryStore.MemoryStore
        const state = yield* ReviewState.ReviewState
        assert.deepStrictEqual(entryTexts(yield* store.load(own)), ["The user prefers dark mode"])
        assert.strictEqual(yield* state.cursor("chat:chat-1"), 7)
        assert.deepStrictEqual(yield* state.lastReview("ada"), { at: noon, ok: true, reason: null })
        const [line] = yield* store.journal()
        assert.strictEqual(line?.actor, "review")
      }).pipe(Effect.provide(read))
    })
  )

  it.effect(
    "a review's record is written in its answer's transaction: where it cannot be, none of the answer lands",
    () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(noon)
        const schema = yield* freshSchema
        const answer = JSON.stringify({ changes: [{ op: "add", text: "The user prefers dark mode" }] })
        const layer = Memory.layerOver(PostgresRoot.layer(rootOptions(schema)), { settings: { timeZone: "UTC" } }).pipe(
          Layer.provideMerge(Layer.merge(Testing.transcriptMemory, Testing.scriptedModel([], { otherwise: answer })))
        )
        const table = `${schema}.review_state`
        yield* Effect.gen(function* () {
          const host = yield* Testing.TranscriptMemory
          const review = yield* MemoryReview.MemoryReview
          const store = yield* MemoryStore.MemoryStore
          yield* host.addAgent({ id: "ada", name: "Ada", mayWriteTeam: false })
          yield* host.bind("chat-1", "ada")
          yield* host.append("chat-1", { seq: 7, who: "user", text: "I prefer dark mode" })
          yield* withClient(
            (sql) => sql`ALTER TABLE ${sql(table)} ADD CONSTRAINT ${sql("refused")} CHECK (part <> 'lastReviews')`
          )
          const failed = yield* review.reviewNow("chat-1")
          assert.strictEqual(failed._tag, "Failed")
          assert.deepStrictEqual(failed.changes.added, [])
          assert.match(failed._tag === "Failed" ? failed.reason : "", /violates check constraint "refused"/)
          assert.deepStrictEqual(entryTexts(yield* store.load(own)), [])
          assert.deepStrictEqual(yield* store.journal(), [])
          yield* withClient((sql) => sql`ALTER TABLE ${sql(table)} DROP CONSTRAINT ${sql("refused")}`)
          const reviewed = yield* review.reviewNow("chat-1")
          assert.deepStrictEqual([reviewed._tag, reviewed.cursor], ["Reviewed", 7])
          assert.deepStrictEqual(entryTexts(yield* store.load(own)), ["The user prefers dark mode"])
          assert.strictEqual((yield* store.journal()).length, 1)
          assert.deepStrictEqual(yield* (yield* ReviewState.ReviewState).lastReview("ada"), {
            at: noon,
            ok: true,
            reason: null
          })
        }).pipe(Effect.provide(layer))
      })
  )

  it.live(
    "a writer frozen while it holds the root's lock loses it after lock.idle: the others go on, its writes are taken back",
    () =>
      Effect.gen(function* () {
        const schema = yield* freshSchema
        const frozen = PostgresRoot.layer(rootOptions(schema, { lock: { idle: "1 second" } }))
        const other = PostgresRoot.layer(rootOptions(schema, { lock: { wait: "5 seconds" } }))
        const write = (text: string, then: Effect.Effect<void> = Effect.void) =>
          MemoryRoot.MemoryRoot.use((port) =>
            port.write((writer) =>
              Effect.gen(function* () {
                yield* writer.read(MemoryScope.team)
                yield* writer.commit(
                  [{ file: "team/MEMORY.md", content: `# Memory\n\n- ${text}\n` }],
                  [{ op: "add", scope: "team", file: "team/MEMORY.md", actor: "t", after: `- ${text}` }]
                )
                yield* then
              })
            )
          )
        const holding = yield* Deferred.make<void>()
        // A writer that stops (as a frozen process does) after its commit, inside its transaction, holding the lock.
        const stopped = yield* Effect.forkChild(
          Effect.flip(
            write("frozen", Deferred.succeed(holding, undefined).pipe(Effect.andThen(Effect.sleep("8 seconds")))).pipe(
              Effect.provide(frozen)
            )
          )
        )
        yield* Deferred.await(holding)
        // Another writer, waiting at most 5 s, gets the lock once Postgres has ended the frozen one's idle transaction.
        yield* write("goes on").pipe(Effect.provide(other))
        const error = yield* Fiber.join(stopped)
        assert.strictEqual(error._tag, "StorageError")
        assert.strictEqual(error._tag === "StorageError" ? error.reason._tag : undefined, "WriteFailed")
        assert.match(error.message, /could not write it \(nothing was changed\): .*(idle-in-transaction|terminat)/i)
        const rows = yield* withClient(
          (sql) => sql`SELECT content FROM ${sql(`${schema}.memory_files`)} WHERE scope = 'team'`
        )
        assert.deepStrictEqual(rows, [{ content: "# Memory\n\n- goes on\n" }])
        const journal = yield* MemoryRoot.MemoryRoot.use((port) => port.journal()).pipe(Effect.provide(other))
        assert.deepStrictEqual(
          journal.map((line) => line.after),
          ["- goes on"]
        )
      })
  )

  it.effect("a review state row that is not one fails the read naming the table, and is left as it is", () =>
    Effect.gen(function* () {
      const schema = yield* freshSchema
      const root = PostgresRoot.layer(rootOptions(schema))
      yield* MemoryRoot.MemoryRoot.use((port) => port.updateState((state) => ({ ...state, cursors: { a: 1 } }))).pipe(
        Effect.provide(root)
      )
      yield* withClient(
        (sql) => sql`UPDATE ${sql(`${schema}.review_state`)} SET value = '"one"' WHERE part = 'cursors' AND key = 'a'`
      )
      const error = yield* Effect.flip(MemoryRoot.MemoryRoot.use((port) => port.readState).pipe(Effect.provide(root)))
      assert.strictEqual(error.reason._tag, "ReadFailed")
      assert.match(error.message, new RegExp(`^${schema}\\.review_state: could not read it: `))
      const update = yield* Effect.flip(
        MemoryRoot.MemoryRoot.use((port) => port.updateState((state) => ({ ...state, cursors: { b: 2 } }))).pipe(
          Effect.provide(root)
        )
      )
      assert.strictEqual(update.reason._tag, "ReadFailed")
      const rows = yield* withClient((sql) => sql`SELECT key, value FROM ${sql(`${schema}.review_state`)}`)
      assert.deepStrictEqual(rows, [{ key: "a", value: "one" }])
    })
  )

  it.effect("migrates its schema once, records its format version, and refuses a schema a newer mneme migrated", () =>
    Effect.gen(function* () {
      const schema = yield* freshSchema
      yield* at(schema, (store) => store.add({ scope: own, text: "first", actor: "t" }))
      yield* at(schema, (store) => store.add({ scope: own, text: "second", actor: "t" }))
      const migrations = yield* withClient(
        (sql) => sql<{ readonly migration_id: number; readonly name: string }>`
          SELECT migration_id, name FROM ${sql(`${schema}.mneme_migrations`)} ORDER BY migration_id`
      )
      assert.deepStrictEqual(
        migrations.map((row) => [row.migration_id, row.name]),
        [
          [1, "memory"],
          [2, "purge"],
          [3, "pending"]
        ]
      )
      yield* withClient(
        (sql) => sql`INSERT INTO ${sql(`${schema}.mneme_migrations`)} (migration_id, name) VALUES (4, 'later')`
      )
      const error = storageError(
        yield* Effect.flip(at(schema, (store) => store.add({ scope: own, text: "third", actor: "t" })))
      )
      assert.strictEqual(error.reason._tag, "NewerFormat")
      assert.strictEqual(
        error.message,
        `${schema}.mneme_migrations was written by a newer mneme (format version 4); upgrade to read it`
      )
      const rows = yield* withClient((sql) => sql`SELECT topic FROM ${sql(`${schema}.memory_files`)}`)
      assert.strictEqual(rows.length, 1)
      const journal = yield* withClient((sql) => sql`SELECT op FROM ${sql(`${schema}.journal`)}`)
      assert.strictEqual(journal.length, 2)
    })
  )

  it.effect("a database that cannot be reached, or a schema name that is not one, is RootUnusable", () =>
    Effect.gen(function* () {
      const unreachable = yield* Effect.flip(
        over(PostgresRoot.layer({ url: "postgres://postgres:hunter2@127.0.0.1:1/test" }), (store) => store.load(own))
      )
      assert.strictEqual(unreachable.reason._tag, "RootUnusable")
      assert.match(
        unreachable.message,
        /^the memory root postgres:\/\/postgres@127\.0\.0\.1:1\/test \(schema mneme\) cannot be used: .*ECONNREFUSED/
      )
      assert.notInclude(unreachable.message, "hunter2")
      const badName = yield* Effect.flip(
        over(PostgresRoot.layer({ url, schema: "Memory; DROP" }), (store) => store.load(own))
      )
      assert.strictEqual(badName.reason._tag, "RootUnusable")
      assert.strictEqual(
        badName.message,
        `the memory root ${url} (schema Memory; DROP) cannot be used: "Memory; DROP" is not a schema name: use 1-63 lower-case letters, digits or "_", starting with a letter or "_"`
      )
    })
  )

  it.effect("a change whose journal lines cannot be written is not made: no file, no line", () =>
    Effect.gen(function* () {
      const schema = yield* freshSchema
      yield* at(schema, (store) => store.add({ scope: own, text: "kept", actor: "t" }))
      yield* withClient(
        (sql) =>
          sql`ALTER TABLE ${sql(`${schema}.journal`)} ADD CONSTRAINT ${sql("refused")} CHECK (actor <> 'refused')`
      )
      const before = yield* at(schema, (store) => store.load(own))
      const error = storageError(
        yield* Effect.flip(
          at(schema, (store) => store.add({ scope: own, topic: "pets", text: "has a cat", actor: "refused" }))
        )
      )
      assert.strictEqual(error.reason._tag, "WriteFailed")
      assert.match(
        error.message,
        /^journal: could not write it \(nothing was changed\): new row for relation "journal" violates check constraint "refused"/
      )
      assert.deepStrictEqual(yield* at(schema, (store) => store.load(own)), before)
      const topics = yield* withClient((sql) => sql`SELECT topic FROM ${sql(`${schema}.memory_files`)}`)
      assert.deepStrictEqual(topics, [{ topic: "" }])
      assert.strictEqual((yield* at(schema, (store) => store.journal())).length, 1)
    })
  )

  it.live("a writer that cannot take the root's lock in time is Busy, naming its holder, and writes nothing", () =>
    Effect.gen(function* () {
      const schema = yield* freshSchema
      yield* at(schema, (store) => store.add({ scope: own, text: "kept", actor: "t" }))
      // Another writer, as a replica of mneme names itself, holds the lock in its transaction.
      const error = yield* withClient((sql) =>
        sql.withTransaction(
          Effect.gen(function* () {
            yield* sql`SET LOCAL application_name = 'mneme 77@elsewhere'`
            yield* sql`SELECT pg_advisory_xact_lock(hashtextextended(${`mneme/${schema}`}, 0))`
            return storageError(
              yield* Effect.flip(
                at(schema, (store) => store.add({ scope: own, text: "waits", actor: "t" }), {
                  lock: { wait: "200 millis" }
                })
              )
            )
          })
        )
      )
      if (error.reason._tag !== "Busy") return assert.fail(`expected Busy, got ${error.reason._tag}`)
      assert.strictEqual(error.reason.lock, `${url} (schema ${schema}): advisory lock "mneme/${schema}"`)
      assert.strictEqual(error.reason.holder?.pid, 77)
      assert.strictEqual(error.reason.holder?.host, "elsewhere")
      assert.isAtLeast(error.reason.waited, 0)
      assert.match(error.message, /^the memory root is busy: process 77 on elsewhere \(since /)
      assert.deepStrictEqual(entryTexts(yield* at(schema, (store) => store.load(own))), ["kept"])
      assert.strictEqual((yield* at(schema, (store) => store.journal())).length, 1)
    })
  )

  it.live(
    "two replicas (separate processes) adding 200 entries each to one agent's memory at once lose none",
    () =>
      Effect.gen(function* () {
        const schema = yield* freshSchema
        const script = fileURLToPath(new URL("./fixtures/replica.ts", import.meta.url))
        const run = (name: string) =>
          Effect.tryPromise(
            () =>
              new Promise<void>((resolve, reject) =>
                execFile(
                  process.execPath,
                  ["--conditions=@mneme/source", script, schema, name, "200"],
                  (error, _out, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve())
                )
              )
          )
        yield* Effect.all([run("first"), run("second")], { concurrency: 2 })
        const shared = MemoryScope.own("shared")
        const texts = entryTexts(yield* at(schema, (store) => store.load(shared)))
        const expected = ["first", "second"].flatMap((name) =>
          Array.from({ length: 200 }, (_, i) => `${name} fact ${i}`)
        )
        assert.deepStrictEqual(texts.toSorted(), expected.toSorted())
        const journal = yield* at(schema, (store) => store.journal({ scope: shared }))
        assert.strictEqual(journal.length, 400)
        assert.isTrue(journal.every((line) => line.op === "add" && line.file === "agents/shared/MEMORY.md"))
        assert.strictEqual(journal.filter((line) => line.actor === "first").length, 200)
      }),
    120_000
  )
})
