/**
 * The memory store's behaviour over any backend of the storage port, as one suite: `storeSuite(backend)` runs it over
 * the roots `backend.fresh` makes (a folder, a Postgres schema…). Every check goes through the store and the port, never
 * through a backend's own files or tables, so each backend is held to the same rules: add, replace and remove, batches,
 * the limits and the settings, secrets, duplicates, topics, team memory, what a person wrote, the journal, undo, the
 * agents, the view, archiving and the review state. A file's text is read through the port (`MemoryRoot.read`), and
 * what a person writes is written through it. What only files have is `MemoryStore.test.ts`.
 */
import { assert, describe, it } from "@effect/vitest"
import { MemoryConfig, MemoryFile, MemoryScope, Text } from "@mneme/core"
import { Memory, MemoryReview, MemoryRoot, MemoryStore, type ReviewModel, ReviewState } from "@mneme/review"
import * as Testing from "@mneme/review/testing"
import { Context, Deferred, Effect, Fiber, Layer, Result, type Scope } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import { createHash } from "node:crypto"
import { warnings } from "./fixtures/kit.ts"

/** A backend of the storage port, as the suite uses it. */
export interface Backend {
  readonly name: string
  /**
   * A new, empty memory root, taken away when the test's scope closes: the layer of its storage port (each build a new
   * instance over the same root, as a second process would have).
   */
  readonly fresh: Effect.Effect<Layer.Layer<MemoryRoot.MemoryRoot, unknown>, unknown, Scope.Scope>
}

type Root = Layer.Layer<MemoryRoot.MemoryRoot, unknown>
type Store = MemoryStore.MemoryStore["Service"]
type Port = MemoryRoot.MemoryRoot["Service"]

const own = MemoryScope.own("ada")
const team = MemoryScope.team
const noon = Date.UTC(2026, 10, 6, 12)

/** Runs `body` with a store over `root` (a new instance each time), in UTC, with `settings` over the defaults. */
export const at = <A, E, E2>(
  root: Layer.Layer<MemoryRoot.MemoryRoot, E2>,
  body: (store: Store) => Effect.Effect<A, E, MemoryRoot.MemoryRoot>,
  settings: Partial<MemoryConfig.Settings> = {}
) =>
  MemoryStore.MemoryStore.use(body).pipe(
    Effect.provide(
      MemoryStore.layer.pipe(
        Layer.provideMerge(root),
        Layer.provide(MemoryConfig.layer({ timeZone: "UTC", ...settings }))
      )
    )
  )

/**
 * `changes` as one batch, with the change of the review state `state` makes of the state and the batch's results, in
 * one transaction of the store's root: both land, or neither does.
 */
export const applyWith = (
  store: Store,
  changes: ReadonlyArray<MemoryStore.Change>,
  state: (
    document: MemoryRoot.ReviewStateDocument,
    results: ReadonlyArray<Result.Result<MemoryStore.Outcome, MemoryStore.ChangeError>>
  ) => MemoryRoot.ReviewStateDocument
) =>
  Effect.flatMap(MemoryRoot.MemoryRoot, (root) =>
    store.transaction(
      Effect.tap(store.apply(changes), (results) => root.updateState((document) => state(document, results)))
    )
  )

/** Runs `body` with the storage port over `root` (a new instance). */
const port = <A, E>(root: Root, body: (port: Port) => Effect.Effect<A, E>) =>
  MemoryRoot.MemoryRoot.use(body).pipe(Effect.provide(root))

/** The text of each file of a scope, by its path; a missing MEMORY.md is left out. */
const texts = (root: Root, scope: MemoryScope.MemoryScope) =>
  Effect.map(
    at(root, (store) => store.load(scope)),
    (view) =>
      Object.fromEntries(
        view.files.filter((file) => file.exists).map((file) => [file.file, MemoryFile.render(file.parsed.lines)])
      )
  )

/** The text of the file `name` of a scope as the port reads it, `undefined` when it is not there. */
const fileText = (root: Root, scope: MemoryScope.MemoryScope, name: string) =>
  Effect.map(
    port(root, (port) => port.read(scope)),
    (stored) => {
      const file = stored.files.find((file) => file.exists && file.file === `${stored.dir}/${name}`)
      return file === undefined ? undefined : MemoryFile.render(file.parsed.lines)
    }
  )

/** The text of the file `name` of a scope as the port reads it; the file must be there. */
const read = (root: Root, scope: MemoryScope.MemoryScope, name: string) =>
  Effect.map(fileText(root, scope, name), (text) => text ?? assert.fail(`${name} of ${scope.kind} is not there`))

/** Writes whole files of a scope (by name) as a person would: through the port, with no journal line. */
const put = (root: Root, scope: MemoryScope.MemoryScope, files: Readonly<Record<string, string>>) =>
  port(root, (port) =>
    port.write((writer) =>
      Effect.flatMap(writer.read(scope), (stored) =>
        writer.commit(
          Object.entries(files).map(([name, content]) => ({ file: `${stored.dir}/${name}`, content })),
          []
        )
      )
    )
  )

const entryTexts = (view: MemoryStore.ScopeView) =>
  view.files.flatMap((file) => file.parsed.entries.map((entry) => entry.text))

/** A journal line without its id (checked to be there), to compare the rest. */
const withoutId = ({ id, ...line }: MemoryRoot.JournalLine) => {
  assert.isString(id)
  return line
}

/**
 * 200 adds from separate fibers to `root` at once, half to the agent's scope and half to the team's, some to topics:
 * each lands exactly once, with one journal line each (the one writer per root).
 */
export const concurrentAdds = <E>(root: Layer.Layer<MemoryRoot.MemoryRoot, E>) =>
  Effect.gen(function* () {
    const facts = Array.from({ length: 200 }, (_, i) => `concurrent fact ${i}`)
    const outcomes = yield* at(
      root,
      (store) =>
        Effect.forEach(
          facts,
          (text, i) =>
            store.add({
              scope: i % 2 === 0 ? own : team,
              topic: i % 4 < 2 ? undefined : `t${i % 7}`,
              text,
              actor: "t"
            }),
          { concurrency: "unbounded" }
        ),
      { memoryMax: 100_000 }
    )
    assert.isTrue(outcomes.every((outcome) => outcome.changed))
    const kept = yield* at(root, (store) => Effect.all([store.load(own), store.load(team)]))
    assert.deepStrictEqual(kept.flatMap(entryTexts).sort(), [...facts].sort())
    const journal = yield* at(root, (store) => store.journal())
    const entryLines = journal.filter((line) => !line.after?.startsWith("- [["))
    assert.strictEqual(entryLines.length, 200)
    assert.deepStrictEqual(
      entryLines.map((line) => line.after?.replace(/ \[added: .*\]$/, "").slice(2)).sort(),
      [...facts].sort()
    )
  })

/** The suite over `backend`. */
export const storeSuite = (backend: Backend) =>
  describe(`the memory store over ${backend.name}`, () => {
    /** A test over a fresh root, with the test clock at noon UTC on 2026-11-06. */
    const test = <A, E>(name: string, body: (root: Root) => Effect.Effect<A, E, Scope.Scope>) =>
      it.effect(name, () =>
        TestClock.setTime(noon).pipe(Effect.andThen(backend.fresh), Effect.flatMap(body), Effect.asVoid)
      )

    /** A test over a fresh root on the real clock (writers that wait for each other's lock wait in real time). */
    const live = <A, E>(name: string, body: (root: Root) => Effect.Effect<A, E, Scope.Scope>) =>
      it.live(name, () => Effect.scoped(Effect.asVoid(Effect.flatMap(backend.fresh, body))))

    test("an empty root has an empty MEMORY.md in every scope, no journal, no agents and the empty review state", (root) =>
      Effect.gen(function* () {
        assert.deepStrictEqual(yield* at(root, (store) => store.load(own)), {
          scope: own,
          dir: "agents/ada",
          files: [
            {
              topic: undefined,
              file: "agents/ada/MEMORY.md",
              exists: false,
              parsed: { lines: [], entries: [], links: [] },
              size: 0
            }
          ],
          unreadable: [],
          unlinked: []
        })
        assert.strictEqual((yield* at(root, (store) => store.load(team))).dir, "team")
        assert.deepStrictEqual(yield* at(root, (store) => store.journal()), [])
        assert.deepStrictEqual(yield* at(root, (store) => store.agents), [])
        assert.deepStrictEqual(yield* port(root, (port) => port.readState), MemoryRoot.emptyState)
      }))

    test("add writes the entry dated from the clock, journals it, and a new instance reads it back", (root) =>
      Effect.gen(function* () {
        const outcome = yield* at(root, (store) =>
          store.add({
            scope: own,
            text: "  The user   likes tea ",
            meta: [["source", "chat-1 #10"]],
            actor: "review",
            auto: true
          })
        )
        const line = "- The user likes tea [source: chat-1 #10; added: 2026-11-06]"
        const content = `# Memory\n\n${line}\n\n## Index\n`
        assert.deepStrictEqual(outcome, {
          op: "add",
          changed: true,
          scope: own,
          topic: undefined,
          file: "agents/ada/MEMORY.md",
          message: `added to agents/ada/MEMORY.md (now ${content.length} of 4,000 characters): "The user likes tea"`,
          after: line
        })
        assert.deepStrictEqual(yield* texts(root, own), { "agents/ada/MEMORY.md": content })
        const loaded = yield* at(root, (store) => store.load(own))
        assert.strictEqual(loaded.files[0]!.size, content.length)
        assert.isTrue(loaded.files[0]!.exists)
        assert.deepStrictEqual((yield* at(root, (store) => store.journal())).map(withoutId), [
          {
            version: 2,
            time: noon,
            op: "add",
            scope: "agents/ada",
            file: "agents/ada/MEMORY.md",
            actor: "review",
            auto: true,
            after: line
          }
        ])
      }))

    test("the same text anywhere in the scope (white space folded, case ignored) changes nothing", (root) =>
      Effect.gen(function* () {
        yield* at(root, (store) => store.add({ scope: own, topic: "food", text: "The user likes   TEA", actor: "t" }))
        const before = yield* texts(root, own)
        const journal = yield* at(root, (store) => store.journal())
        const outcome = yield* at(root, (store) => store.add({ scope: own, text: "the user likes tea", actor: "t" }))
        assert.deepStrictEqual(outcome, {
          op: "add",
          changed: false,
          scope: own,
          topic: "food",
          file: "agents/ada/food.md",
          message: 'nothing changed: agents/ada/food.md already holds "The user likes TEA"'
        })
        assert.deepStrictEqual(yield* texts(root, own), before)
        assert.deepStrictEqual(yield* at(root, (store) => store.journal()), journal)
        assert.isTrue(
          (yield* at(root, (store) => store.add({ scope: team, text: "the user likes tea", actor: "t" }))).changed
        )
      }))

    test("a new topic is created and linked from the index, journaling both; topics load by name", (root) =>
      Effect.gen(function* () {
        yield* at(root, (store) => store.add({ scope: own, text: "in memory", actor: "t" }))
        const outcome = yield* at(root, (store) =>
          store.add({ scope: own, topic: " Travel  Plans.md ", text: "Goes to Oslo", actor: "t" })
        )
        yield* at(root, (store) => store.add({ scope: own, topic: "art", text: "Paints 🎨", actor: "t" }))
        assert.strictEqual(outcome.file, "agents/ada/travel-plans.md")
        const memory = "# Memory\n\n- in memory [added: 2026-11-06]\n\n## Index\n- [[travel-plans]]\n- [[art]]\n"
        const art = "# art\n\n- Paints 🎨 [added: 2026-11-06]\n"
        const travel = "# travel-plans\n\n- Goes to Oslo [added: 2026-11-06]\n"
        assert.deepStrictEqual(yield* texts(root, own), {
          "agents/ada/MEMORY.md": memory,
          "agents/ada/art.md": art,
          "agents/ada/travel-plans.md": travel
        })
        const loaded = yield* at(root, (store) => store.load(own))
        assert.deepStrictEqual(
          loaded.files.map((file) => [file.topic, file.size]),
          [
            [undefined, Text.length(memory)],
            ["art", Text.length(art)],
            ["travel-plans", Text.length(travel)]
          ]
        )
        assert.deepStrictEqual(loaded.unlinked, [])
        assert.deepStrictEqual(
          (yield* at(root, (store) => store.journal({ limit: 4 }))).map((line) => [line.file, line.after]),
          [
            ["agents/ada/travel-plans.md", "- Goes to Oslo [added: 2026-11-06]"],
            ["agents/ada/MEMORY.md", "- [[travel-plans]]"],
            ["agents/ada/art.md", "- Paints 🎨 [added: 2026-11-06]"],
            ["agents/ada/MEMORY.md", "- [[art]]"]
          ]
        )
      }))

    test("replace keeps the entry's place and metadata; remove of a topic's last entry deletes it and its link", (root) =>
      Effect.gen(function* () {
        yield* at(root, (store) =>
          store.apply([
            { op: "add", scope: own, text: "first", actor: "t" },
            { op: "add", scope: own, text: "likes tea", meta: [["source", "s1"]], actor: "t" },
            { op: "add", scope: own, text: "last", actor: "t" },
            { op: "add", scope: own, topic: "pets", text: "has a cat", actor: "t" }
          ])
        )
        const replaced = yield* at(root, (store) =>
          store.replace({ scope: own, match: "tea", text: "likes green tea", actor: "person" })
        )
        assert.strictEqual(replaced.after, "- likes green tea [source: s1; added: 2026-11-06]")
        yield* at(root, (store) => store.remove({ scope: own, topic: "pets", match: "cat", actor: "person" }))
        assert.deepStrictEqual(yield* texts(root, own), {
          "agents/ada/MEMORY.md":
            "# Memory\n\n- first [added: 2026-11-06]\n- likes green tea [source: s1; added: 2026-11-06]\n- last [added: 2026-11-06]\n\n## Index\n"
        })
        const journal = yield* at(root, (store) => store.journal({ limit: 3 }))
        assert.deepStrictEqual(
          journal.map((line) => [line.op, line.file, line.actor, line.before, line.after]),
          [
            [
              "replace",
              "agents/ada/MEMORY.md",
              "person",
              "- likes tea [source: s1; added: 2026-11-06]",
              "- likes green tea [source: s1; added: 2026-11-06]"
            ],
            ["remove", "agents/ada/pets.md", "person", "- has a cat [added: 2026-11-06]", undefined],
            ["remove", "agents/ada/MEMORY.md", "person", "- [[pets]]", undefined]
          ]
        )
        const missing = yield* at(root, (store) =>
          Effect.flip(store.remove({ scope: own, match: "nothing like it", actor: "t" }))
        )
        assert.strictEqual(missing._tag, "NoMatch")
        assert.strictEqual(missing.message, 'no entry in agents/ada/MEMORY.md holds "nothing like it"')
      }))

    test("a change past a limit is refused with its reason, and nothing is written", (root) =>
      Effect.gen(function* () {
        const limits = { memoryMax: 60, topicsMax: 1 }
        yield* at(root, (store) => store.add({ scope: team, topic: "a", text: "about a", actor: "t" }), limits)
        const before = yield* texts(root, team)
        const journal = yield* at(root, (store) => store.journal())
        const full = yield* at(
          root,
          (store) =>
            Effect.flip(store.add({ scope: team, text: "a fact much too long for this small memory", actor: "t" })),
          limits
        )
        assert.strictEqual(full._tag, "MemoryFull")
        assert.match(full.message, /^team\/MEMORY\.md would hold \d+ of its 60 characters/)
        const topics = yield* at(
          root,
          (store) => Effect.flip(store.add({ scope: team, topic: "b", text: "about b", actor: "t" })),
          limits
        )
        assert.strictEqual(topics._tag, "TooManyTopics")
        assert.strictEqual(topics.message, "team already has 1 topics: add to an existing topic, or remove one first")
        assert.deepStrictEqual(yield* texts(root, team), before)
        assert.deepStrictEqual(yield* at(root, (store) => store.journal()), journal)
      }))

    test("a secret, an empty entry or an entry too long is Denied, and nothing is written", (root) =>
      Effect.gen(function* () {
        const secret = yield* at(root, (store) =>
          Effect.flip(store.add({ scope: own, text: "the key is sk-abcdefghijklmnopqrstuvwxyz0123456789", actor: "t" }))
        )
        assert.strictEqual(secret._tag, "Denied")
        assert.strictEqual(
          secret.message,
          "memory cannot keep this entry: it looks like a secret (a key, password or ID number), which memory never keeps"
        )
        const long = yield* at(
          root,
          (store) => Effect.flip(store.add({ scope: own, text: "x".repeat(50), actor: "t" })),
          {
            entryMax: 20
          }
        )
        assert.strictEqual(long._tag, "Denied")
        assert.strictEqual(
          long.message,
          "memory cannot keep this entry: the entry is 50 characters, over the limit of 20"
        )
        assert.deepStrictEqual(yield* texts(root, own), {})
        assert.deepStrictEqual(yield* at(root, (store) => store.journal()), [])
        assert.deepStrictEqual(yield* at(root, (store) => store.agents), [])
      }))

    test("team memory is its own scope: every agent's view has it, the journal names it", (root) =>
      Effect.gen(function* () {
        yield* at(root, (store) => store.add({ scope: team, text: "the office is in Oslo", actor: "t" }))
        yield* at(root, (store) => store.add({ scope: own, text: "likes tea", actor: "t" }))
        const view = yield* at(root, (store) => store.view("grace"))
        assert.deepStrictEqual(
          view.entries.map((entry) => [entry.scope, entry.text]),
          [["team", "the office is in Oslo"]]
        )
        const ada = yield* at(root, (store) => store.view("ada"))
        assert.deepStrictEqual(
          ada.entries.map((entry) => [entry.scope, entry.text]),
          [
            ["own", "likes tea"],
            ["team", "the office is in Oslo"]
          ]
        )
        assert.deepStrictEqual(
          (yield* at(root, (store) => store.journal({ scope: team }))).map((line) => [line.scope, line.file]),
          [["team", "team/MEMORY.md"]]
        )
      }))

    test("an agent id that is not a safe name gets the slug-and-hash folder, and agents lists it by its id", (root) =>
      Effect.gen(function* () {
        const ids = ["Ada Lovelace", "../x", "grace"]
        for (const agentId of ids) {
          yield* at(root, (store) =>
            store.add({ scope: MemoryScope.own(agentId), text: `fact of ${agentId}`, actor: "t" })
          )
        }
        yield* at(root, (store) =>
          store.add({ scope: MemoryScope.own("grace"), topic: "art", text: "paints", actor: "t" })
        )
        const hash = (id: string) => createHash("sha256").update(id, "utf8").digest("hex").slice(0, 12)
        const loaded = yield* at(root, (store) => store.load(MemoryScope.own("Ada Lovelace")))
        assert.strictEqual(loaded.dir, `agents/ada-lovelace-${hash("Ada Lovelace")}`)
        assert.deepStrictEqual(entryTexts(loaded), ["fact of Ada Lovelace"])
        const size = (agentId: string) =>
          Effect.map(
            at(root, (store) => store.load(MemoryScope.own(agentId))),
            (view) => view.files[0]!.size
          )
        assert.deepStrictEqual(yield* at(root, (store) => store.agents), [
          {
            agentId: "Ada Lovelace",
            dir: `agents/ada-lovelace-${hash("Ada Lovelace")}`,
            size: yield* size("Ada Lovelace"),
            topics: 0
          },
          { agentId: "grace", dir: "agents/grace", size: yield* size("grace"), topics: 1 },
          { agentId: "../x", dir: `agents/x-${hash("../x")}`, size: yield* size("../x"), topics: 0 }
        ])
        assert.isAbove(yield* size("grace"), 0)
      }))

    test("the journal is read oldest first, to a limit, and of one scope when asked", (root) =>
      Effect.gen(function* () {
        for (const [i, scope] of [own, team, own, team, own].entries()) {
          yield* TestClock.setTime(noon + i)
          yield* at(root, (store) => store.add({ scope, text: `fact ${i}`, actor: "t" }))
        }
        const all = yield* at(root, (store) => store.journal())
        assert.deepStrictEqual(
          all.map((line) => line.time),
          [0, 1, 2, 3, 4].map((i) => noon + i)
        )
        assert.strictEqual(new Set(all.map((line) => line.id)).size, 5)
        assert.deepStrictEqual(
          (yield* at(root, (store) => store.journal({ limit: 2 }))).map((line) => line.after),
          ["- fact 3 [added: 2026-11-06]", "- fact 4 [added: 2026-11-06]"]
        )
        assert.deepStrictEqual(
          (yield* at(root, (store) => store.journal({ scope: own, limit: 2 }))).map((line) => line.after),
          ["- fact 2 [added: 2026-11-06]", "- fact 4 [added: 2026-11-06]"]
        )
        assert.deepStrictEqual(yield* at(root, (store) => store.journal({ limit: 0 })), [])
      }))

    test("a batch is planned against the files read once; each change has its own result", (root) =>
      Effect.gen(function* () {
        const results = yield* at(root, (store) =>
          store.apply([
            { op: "add", scope: own, text: "one", actor: "t" },
            { op: "add", scope: own, text: "ONE", actor: "t" },
            { op: "remove", scope: own, match: "absent", actor: "t" },
            { op: "add", scope: team, topic: "tools", text: "uses vim", actor: "t" }
          ])
        )
        assert.deepStrictEqual(
          results.map((result) => (Result.isSuccess(result) ? result.success.changed : result.failure._tag)),
          [true, false, "NoMatch", true]
        )
        const journal = yield* at(root, (store) => store.journal())
        assert.deepStrictEqual(
          journal.map((line) => line.file),
          ["agents/ada/MEMORY.md", "team/tools.md", "team/MEMORY.md"]
        )
        assert.strictEqual(new Set(journal.map((line) => line.time)).size, 1)
      }))

    test("undo reverts the scope's last change, journaling it; NotUndoable changes nothing", (root) =>
      Effect.gen(function* () {
        yield* at(root, (store) => store.add({ scope: own, text: "kept", actor: "t" }))
        yield* at(root, (store) => store.add({ scope: own, text: "taken back", actor: "t" }))
        const [outcome] = yield* at(root, (store) => store.undo({ scope: own, actor: "person" }))
        assert.strictEqual(outcome!.op, "remove")
        assert.deepStrictEqual(entryTexts(yield* at(root, (store) => store.load(own))), ["kept"])
        const last = (yield* at(root, (store) => store.journal({ limit: 1 })))[0]!
        assert.strictEqual(last.op, "undo")
        const added = (yield* at(root, (store) => store.journal()))[0]!
        yield* at(root, (store) => store.replace({ scope: own, match: "kept", text: "changed", actor: "t" }))
        const before = yield* texts(root, own)
        const error = yield* at(root, (store) =>
          Effect.flip(store.undo({ scope: own, id: added.id!, actor: "person" }))
        )
        assert.strictEqual(error._tag, "NotUndoable")
        assert.deepStrictEqual(yield* texts(root, own), before)
      }))

    live("changes made at once by many fibers and store instances are all kept", (root) =>
      Effect.gen(function* () {
        yield* Effect.all(
          Array.from({ length: 24 }, (_, i) =>
            at(root, (store) => store.add({ scope: own, text: `fact number ${i}`, actor: `writer ${i % 3}` }))
          ),
          { concurrency: "unbounded" }
        )
        const entries = entryTexts(yield* at(root, (store) => store.load(own)))
        assert.deepStrictEqual(entries.toSorted(), Array.from({ length: 24 }, (_, i) => `fact number ${i}`).toSorted())
        assert.strictEqual((yield* at(root, (store) => store.journal())).length, 24)
      })
    )

    test("archive moves an agent's memory under archive/ and journals it; a second archive finds nothing", (root) =>
      Effect.gen(function* () {
        yield* at(root, (store) => store.add({ scope: own, topic: "pets", text: "has a cat", actor: "t" }))
        yield* at(root, (store) => store.add({ scope: MemoryScope.own("grace"), text: "stays", actor: "t" }))
        const archived = yield* at(root, (store) => store.archive("ada", { actor: "host" }))
        assert.strictEqual(archived, "archive/ada-2026-11-06T12-00-00-000Z")
        assert.deepStrictEqual(yield* texts(root, own), {})
        assert.deepStrictEqual(
          (yield* at(root, (store) => store.agents)).map((agent) => agent.agentId),
          ["grace"]
        )
        const [line] = yield* at(root, (store) => store.journal({ limit: 1 }))
        assert.deepStrictEqual(withoutId(line!), {
          version: 2,
          time: noon,
          op: "archive",
          scope: "agents/ada",
          file: "agents/ada",
          actor: "host",
          after: archived
        })
        const error = yield* at(root, (store) => Effect.flip(store.archive("ada")))
        assert.strictEqual(error.reason._tag, "NotFound")
        assert.strictEqual(error.message, "agents/ada: there is no memory folder to archive")
        yield* at(root, (store) => store.add({ scope: own, text: "a new start", actor: "t" }))
        assert.strictEqual(yield* at(root, (store) => store.archive("ada")), "archive/ada-2026-11-06T12-00-00-000Z-2")
      }))

    test("the review state round-trips through the port; a change that returns its input writes nothing", (root) =>
      Effect.gen(function* () {
        const state: MemoryRoot.ReviewStateDocument = {
          version: 2,
          cursors: { "ada:chat-1": 12, "grace:chat-2": 3 },
          failures: {
            "ada:chat-1": { cursor: 10, newestUserSeq: 12, times: [noon - 2, noon - 1], stopWarned: false }
          },
          lastReviews: { ada: { at: noon, ok: false, reason: "the model failed: timeout" } }
        }
        yield* port(root, (port) => port.updateState(() => state))
        assert.deepStrictEqual(yield* port(root, (port) => port.readState), state)
        yield* port(root, (port) =>
          port.updateState((now) => ({
            ...now,
            cursors: { "ada:chat-1": 14 },
            failures: {},
            lastReviews: { ...now.lastReviews, grace: { at: noon + 1, ok: true, reason: null } }
          }))
        )
        const next = yield* port(root, (port) => port.readState)
        assert.deepStrictEqual(next, {
          version: 2,
          cursors: { "ada:chat-1": 14 },
          failures: {},
          lastReviews: { ...state.lastReviews, grace: { at: noon + 1, ok: true, reason: null } }
        })
        yield* port(root, (port) => port.updateState((now) => now))
        assert.deepStrictEqual(yield* port(root, (port) => port.readState), next)
      }))
    test("the review state is looked up by key, as the whole state lists it; a change by key changes only its entries (issue 22 item 9)", (root) =>
      Effect.gen(function* () {
        const conversations = Array.from({ length: 50 }, (_, i) => `chat:c${i}`)
        const state: MemoryRoot.ReviewStateDocument = {
          version: 2,
          cursors: Object.fromEntries([...conversations.map((key, i) => [key, i]), ["__proto__", 7], ["chat:é 💬", 9]]),
          failures: { "chat:c3": { cursor: 2, newestUserSeq: 5, times: [noon - 1], stopWarned: true } },
          lastReviews: { ada: { at: noon, ok: true, reason: null }, grace: { at: noon - 5, ok: false, reason: "x" } },
          dropped: { "group:g:ada": [{ after: null, upto: 4, at: noon }] }
        }
        yield* port(root, (port) => port.updateState(() => state))
        const keys = {
          cursors: ["chat:c3", "__proto__", "chat:é 💬", "chat:nowhere"],
          failures: ["chat:c3", "chat:c4"],
          lastReviews: ["grace"],
          dropped: ["group:g:ada"]
        }
        const looked = yield* port(root, (port) => port.readStateOf(keys))
        assert.deepStrictEqual(
          looked.cursors,
          Object.fromEntries([
            ["chat:c3", 3],
            ["__proto__", 7],
            ["chat:é 💬", 9]
          ])
        )
        assert.deepStrictEqual(looked.failures, { "chat:c3": state.failures["chat:c3"]! })
        assert.deepStrictEqual(looked.lastReviews, { grace: state.lastReviews["grace"]! })
        assert.deepStrictEqual(looked.dropped?.["group:g:ada"], state.dropped?.["group:g:ada"])
        const none = yield* port(root, (port) => port.readStateOf({ cursors: [] }))
        assert.deepStrictEqual({ ...none, dropped: none.dropped ?? {} }, { ...MemoryRoot.emptyState, dropped: {} })
        // Through the review state: each lookup by key is the whole state's entry.
        const [cursor, missing, failure, last, dropped] = yield* ReviewState.ReviewState.use((reviewState) =>
          Effect.all([
            reviewState.cursor("chat:c41"),
            reviewState.cursor("chat:nowhere"),
            reviewState.failure("chat:c3"),
            reviewState.lastReview("ada"),
            reviewState.dropped("group:g:ada")
          ])
        ).pipe(Effect.provide(ReviewState.layer.pipe(Layer.provide(root))))
        assert.deepStrictEqual(
          [cursor, missing, failure, last, dropped],
          [41, undefined, state.failures["chat:c3"], state.lastReviews["ada"], state.dropped?.["group:g:ada"]]
        )
        // A change by key: its entries change, every other entry of the listing stays.
        yield* ReviewState.ReviewState.use((reviewState) =>
          Effect.all([
            reviewState.setCursor("chat:c41", 60),
            reviewState.setCursor("chat:new", 1),
            reviewState.setFailure("chat:c3", undefined),
            reviewState.recordDropped("group:g:ada", { after: 4, upto: 6, at: noon + 1 })
          ])
        ).pipe(Effect.provide(ReviewState.layer.pipe(Layer.provide(root))))
        assert.deepStrictEqual(yield* port(root, (port) => port.readState), {
          ...state,
          cursors: { ...state.cursors, "chat:c41": 60, "chat:new": 1 },
          failures: {},
          dropped: { "group:g:ada": [...state.dropped!["group:g:ada"]!, { after: 4, upto: 6, at: noon + 1 }] }
        })
      }))

    describe("one commit: a batch, its journal and the review state", () => {
      test("a transaction's batches see what it staged before them, and land with its state in one commit, or not at all", (root) =>
        Effect.gen(function* () {
          yield* at(root, (store) => store.add({ scope: team, text: "The team ships on Fridays", actor: "t" }))
          const snapshot = Effect.all({
            memory: read(root, team, "MEMORY.md"),
            journal: at(root, (store) => store.journal()),
            state: port(root, (port) => port.readState)
          })
          const before = yield* snapshot
          const unit = (store: Store, then: Effect.Effect<void, string>) =>
            Effect.flatMap(MemoryRoot.MemoryRoot, (port) =>
              port.transaction(
                Effect.gen(function* () {
                  yield* store.add({ scope: team, text: "The team meets on Mondays", actor: "t" })
                  yield* store.add({ scope: team, text: "The team eats on Tuesdays", actor: "t" })
                  yield* port.updateState((state) => ({ ...state, cursors: { ...state.cursors, "chat:c": 3 } }))
                  const seen = yield* port.write((writer) => writer.read(team))
                  yield* then
                  return seen.files.flatMap((file) => file.parsed.entries.map((entry) => entry.text))
                })
              )
            )
          const failed = yield* at(root, (store) => Effect.flip(unit(store, Effect.fail("stopped"))))
          assert.strictEqual(failed, "stopped")
          assert.deepStrictEqual(yield* snapshot, before)
          const seen = yield* at(root, (store) => unit(store, Effect.void))
          const landed = ["The team ships on Fridays", "The team meets on Mondays", "The team eats on Tuesdays"]
          assert.deepStrictEqual(seen, landed)
          assert.deepStrictEqual(entryTexts(yield* at(root, (store) => store.load(team))), landed)
          assert.strictEqual((yield* at(root, (store) => store.journal())).length, 3)
          assert.deepStrictEqual((yield* port(root, (port) => port.readState)).cursors, { "chat:c": 3 })
        }))

      test("a batch changes the review state in its commit, seeing each change's result: both land, read back", (root) =>
        Effect.gen(function* () {
          const counted = (
            state: MemoryRoot.ReviewStateDocument,
            results: ReadonlyArray<Result.Result<unknown, unknown>>
          ) => ({
            ...state,
            cursors: { ...state.cursors, "ada:chat-1": results.filter(Result.isSuccess).length }
          })
          const results = yield* at(root, (store) =>
            applyWith(
              store,
              [
                { op: "add", scope: own, text: "The user likes tea", actor: "review", auto: true },
                { op: "remove", scope: own, match: "nothing like it", actor: "review", auto: true }
              ],
              counted
            )
          )
          assert.deepStrictEqual(
            results.map((result) => result._tag),
            ["Success", "Failure"]
          )
          assert.deepStrictEqual((yield* port(root, (port) => port.readState)).cursors, { "ada:chat-1": 1 })
          assert.deepStrictEqual(entryTexts(yield* at(root, (store) => store.load(own))), ["The user likes tea"])
          assert.strictEqual((yield* at(root, (store) => store.journal())).length, 1)
          // Where every change fails its checks, the state still changes, and no file or journal line is written.
          const refused = yield* at(root, (store) =>
            applyWith(store, [{ op: "add", scope: own, text: "  ", actor: "review", auto: true }], counted)
          )
          assert.strictEqual(refused[0]?._tag, "Failure")
          assert.deepStrictEqual((yield* port(root, (port) => port.readState)).cursors, { "ada:chat-1": 0 })
          assert.deepStrictEqual(entryTexts(yield* at(root, (store) => store.load(own))), ["The user likes tea"])
          assert.strictEqual((yield* at(root, (store) => store.journal())).length, 1)
          // A change of the state that returns its input writes nothing of it.
          const before = yield* port(root, (port) => port.readState)
          yield* at(root, (store) =>
            applyWith(
              store,
              [{ op: "add", scope: team, text: "The team ships on Fridays", actor: "t" }],
              (state) => state
            )
          )
          assert.deepStrictEqual(yield* port(root, (port) => port.readState), before)
          assert.deepStrictEqual(entryTexts(yield* at(root, (store) => store.load(team))), [
            "The team ships on Fridays"
          ])
        }))

      test("a commit that fails leaves the review state, the files and the journal as they were", (root) =>
        Effect.gen(function* () {
          yield* at(root, (store) => store.add({ scope: team, text: "The team ships on Fridays", actor: "t" }))
          yield* port(root, (port) => port.updateState((state) => ({ ...state, cursors: { "ada:chat-1": 1 } })))
          const snapshot = Effect.all({
            memory: read(root, team, "MEMORY.md"),
            journal: at(root, (store) => store.journal()),
            state: port(root, (port) => port.readState)
          })
          const before = yield* snapshot
          const error = yield* port(root, (port) =>
            Effect.flip(
              port.transaction(
                port.write((writer) =>
                  Effect.all([
                    writer.read(team),
                    writer.commit(
                      [
                        { file: "team/MEMORY.md", content: "# Memory\n\n- changed\n" },
                        { file: "../outside.md", content: "- out\n" }
                      ],
                      [{ op: "replace", scope: "team", file: "team/MEMORY.md", actor: "t", after: "- changed" }]
                    ),
                    port.updateState((state) => ({ ...state, cursors: { "ada:chat-1": 2 } }))
                  ])
                )
              )
            )
          )
          assert.strictEqual(error.reason._tag, "OutsideRoot")
          assert.deepStrictEqual(yield* snapshot, before)
        }))

      live(
        "a review whose cursor another review moved while its model answered keeps nothing: StaleCursor (issue 22 item 7)",
        (root) =>
          Effect.gen(function* () {
            // Two compositions over one root, as two runners: the first's model answers only once the second's review
            // of the same lines has landed (a runner paused past its lease while its review was in the model).
            const ports = yield* Layer.build(Testing.transcriptMemory)
            const transcript = Context.get(ports, Testing.TranscriptMemory)
            yield* transcript.addAgent({ id: "ada" })
            yield* transcript.bind("chat-1", "ada")
            yield* transcript.append(
              "chat-1",
              { who: "user", text: "I drink green tea every morning" },
              { who: "agent", text: "Noted." }
            )
            const answer = (text: string) => JSON.stringify({ changes: [{ op: "add", text }] })
            const asked = yield* Deferred.make<void>()
            const resume = yield* Deferred.make<void>()
            const paused = Deferred.succeed(asked, undefined).pipe(
              Effect.andThen(Deferred.await(resume)),
              Effect.as(answer("The user drinks green tea (paused runner)"))
            )
            const runner = (model: Layer.Layer<ReviewModel.ReviewModel>) =>
              Memory.layerOver(root).pipe(Layer.provide(Layer.merge(Layer.succeedContext(ports), model)))
            const review = (model: Layer.Layer<ReviewModel.ReviewModel>) =>
              MemoryReview.MemoryReview.use((review) => review.reviewNow("chat-1")).pipe(Effect.provide(runner(model)))
            const first = yield* Effect.forkChild(review(Testing.scriptedModel([paused])))
            yield* Deferred.await(asked)
            const second = yield* review(Testing.scriptedModel([answer("The user drinks green tea every morning")]))
            assert.strictEqual(second._tag, "Reviewed")
            assert.strictEqual(second.cursor, 2)
            const snapshot = Effect.all({
              files: texts(root, own),
              journal: at(root, (store) => store.journal()),
              state: port(root, (port) => port.readState)
            })
            const landed = yield* snapshot
            yield* Deferred.succeed(resume, undefined)
            const overtaken = yield* Fiber.join(first)
            if (overtaken._tag !== "Failed") return assert.fail(`the overtaken review ended ${overtaken._tag}`)
            assert.strictEqual(overtaken.error._tag, "StorageError")
            const reason = overtaken.error._tag === "StorageError" ? overtaken.error.reason : undefined
            assert.strictEqual(reason?._tag, "StaleCursor")
            assert.strictEqual(
              overtaken.error.message,
              "the review of chat:chat-1 read its cursor at line 0, but another review has moved it to line 2 since: this review's answer is not kept (nothing was changed)"
            )
            assert.isFalse(overtaken.stopped)
            // The files, the journal and the review state hold the second review's work only, once; of the overtaken
            // review only its model call is kept, counted against the agent's budget as every call made is.
            const after = yield* snapshot
            const { usage: usageAfter, ...stateAfter } = after.state
            const { usage: usageLanded, ...stateLanded } = landed.state
            assert.deepStrictEqual({ ...after, state: stateAfter }, { ...landed, state: stateLanded })
            const callsOf = (usage: typeof usageAfter) => Object.values(usage?.["ada"] ?? {})[0]?.calls
            assert.strictEqual(callsOf(usageLanded), 1)
            assert.strictEqual(callsOf(usageAfter), 2)
            assert.deepStrictEqual(entryTexts(yield* at(root, (store) => store.load(own))), [
              "The user drinks green tea every morning"
            ])
            const added = landed.journal.filter((line) => line.op === "add" && line.after?.includes("green tea"))
            assert.strictEqual(added.length, 1)
            assert.deepStrictEqual(landed.state.cursors, { "chat:chat-1": 2 })
            assert.deepStrictEqual(landed.state.lastReviews["ada"]?.ok, true)
          })
      )

      test("a writer reads a scope whole, or its MEMORY.md and only those of the topics named that it has", (root) =>
        Effect.gen(function* () {
          const memory = "# Memory\n\n## Index\n- [[art]]\n- [[zoo]]\n"
          yield* put(root, own, { "MEMORY.md": memory, "zoo.md": "# zoo\n- zebras\n", "art.md": "# art\n- paints\n" })
          const [whole, some, none] = yield* port(root, (port) =>
            port.write((writer) =>
              Effect.all([writer.read(own), writer.read(own, ["zoo", "nope"]), writer.read(own, [])])
            )
          )
          const topics = (stored: MemoryRoot.StoredScope) => stored.files.map((file) => file.topic)
          assert.deepStrictEqual(topics(whole), [undefined, "art", "zoo"])
          assert.deepStrictEqual(topics(some), [undefined, "zoo"])
          assert.deepStrictEqual(topics(none), [undefined])
          assert.deepStrictEqual(some.files, [whole.files[0]!, whole.files[2]!])
          assert.deepStrictEqual([some.dir, some.unreadable], [whole.dir, []])
        }))

      test("property: the files a batch wrote read back as their text parses, in the instance that wrote them and in a new one", (root) =>
        Effect.gen(function* () {
          // Written by hand, as the parser reads them but not as a change writes them (line ends, blank lines).
          const start = {
            "MEMORY.md":
              "# Memory\r\n\r\n- a fact kept by hand  [source: a; note: b]\r\n* another one\r\n\r\n## Index\r\n- [[old]]\r\n\r\n",
            "old.md": "# old\n\n- an old fact\n- [tag] odd one [k: v]\n\n\n"
          }
          const piece = fc.constantFrom(
            "the user",
            " likes",
            "  tea",
            "\t",
            "[k: v]",
            " [source: x]",
            "[",
            "]",
            ";",
            ":",
            "é",
            "茶",
            "- ",
            "#",
            "🎨"
          )
          const text = fc.array(piece, { minLength: 1, maxLength: 6 }).map((parts) => parts.join(""))
          const edit = fc.tuple(fc.nat(), text, fc.constantFrom(undefined, "old"), fc.boolean())
          const round = (edits: ReadonlyArray<readonly [number, string, string | undefined, boolean]>) =>
            Effect.gen(function* () {
              yield* put(root, own, start)
              const written = yield* at(root, (store) =>
                Effect.gen(function* () {
                  const listed = (yield* store.load(own)).files.flatMap((file) =>
                    file.parsed.entries.map((entry) => ({ topic: file.topic, text: entry.text }))
                  )
                  yield* store.apply(
                    edits.map(([pick, text, topic, add]): MemoryStore.Change => {
                      const entry = listed[pick % listed.length]!
                      return add
                        ? { op: "add", scope: own, topic, text, actor: "t" }
                        : {
                            op: "replace",
                            scope: own,
                            topic: entry.topic,
                            match: entry.text,
                            exact: true,
                            text,
                            actor: "t"
                          }
                    })
                  )
                  return yield* store.load(own)
                })
              )
              assert.deepStrictEqual(written.files, (yield* at(root, (store) => store.load(own))).files)
            })
          yield* Effect.promise(() =>
            fc.assert(
              fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 6 }), (edits) =>
                Effect.runPromise(round(edits))
              ),
              { numRuns: 25 }
            )
          )
        }))
    })

    describe("scopes", () => {
      test("every agent id gets a folder of a safe name (a slug and a hash when it is not one), and reads back", (root) =>
        Effect.gen(function* () {
          const ids = ["../x", "/etc/passwd", "a\u0000b", "x".repeat(129), "Ada Lovelace", "ünï", "a/b", ".."]
          for (const agentId of ids) {
            yield* at(root, (store) =>
              store.add({ scope: MemoryScope.own(agentId), text: `fact of ${agentId.length}`, actor: "t" })
            )
          }
          const dirs = (yield* at(root, (store) => store.agents)).map((agent) => agent.dir)
          assert.strictEqual(new Set(dirs).size, ids.length)
          for (const dir of dirs) assert.match(dir, /^agents\/([a-z0-9-]{1,40}-)?[0-9a-f]{12}$/)
          const hash = createHash("sha256").update("Ada Lovelace", "utf8").digest("hex").slice(0, 12)
          assert.include(dirs, `agents/ada-lovelace-${hash}`)
          yield* at(root, (store) =>
            store.add({ scope: MemoryScope.own("Ada_01-x"), text: "kept by name", actor: "t" })
          )
          assert.strictEqual(
            (yield* at(root, (store) => store.load(MemoryScope.own("Ada_01-x")))).dir,
            "agents/Ada_01-x"
          )
          assert.deepStrictEqual(entryTexts(yield* at(root, (store) => store.load(MemoryScope.own("../x")))), [
            "fact of 4"
          ])
        }))

      test("loading a scope gives MEMORY.md first (empty when missing), then its topics by name", (root) =>
        Effect.gen(function* () {
          const memory = "# Memory\n\n## Index\n- [[art]]\n- [[zoo]]\n"
          const art = "# art\n- the user paints 🎨\n"
          yield* put(root, own, { "MEMORY.md": memory, "zoo.md": "# zoo\n- zebras\n", "art.md": art })
          const loaded = yield* at(root, (store) => store.load(own))
          assert.deepStrictEqual(
            loaded.files.map((file) => [file.topic, file.file, file.size, file.exists]),
            [
              [undefined, "agents/ada/MEMORY.md", Text.length(memory), true],
              ["art", "agents/ada/art.md", Text.length(art), true],
              ["zoo", "agents/ada/zoo.md", 15, true]
            ]
          )
          assert.deepStrictEqual(entryTexts(loaded), ["the user paints 🎨", "zebras"])
          assert.deepStrictEqual(loaded.unlinked, [])
        }))
    })

    describe("add", () => {
      test("adds to a new MEMORY.md, dated from the clock, and journals the line", (root) =>
        Effect.gen(function* () {
          const outcome = yield* at(root, (store) =>
            store.add({
              scope: own,
              text: "  - The user   likes tea ",
              meta: [["source", "chat-1 #10"]],
              actor: "review",
              auto: true
            })
          )
          const line = "- The user likes tea [source: chat-1 #10; added: 2026-11-06]"
          const content = yield* read(root, own, "MEMORY.md")
          assert.strictEqual(content, `# Memory\n\n${line}\n\n## Index\n`)
          assert.deepStrictEqual(outcome, {
            op: "add",
            changed: true,
            scope: own,
            topic: undefined,
            file: "agents/ada/MEMORY.md",
            message: `added to agents/ada/MEMORY.md (now ${Text.length(content)} of 4,000 characters): "The user likes tea"`,
            after: line
          })
          assert.deepStrictEqual((yield* at(root, (store) => store.journal())).map(withoutId), [
            {
              version: 2,
              time: noon,
              op: "add",
              scope: "agents/ada",
              file: "agents/ada/MEMORY.md",
              actor: "review",
              auto: true,
              after: line
            }
          ])
        }))

      test("the added date is today in the configured time zone, and a given date is kept", (root) =>
        Effect.gen(function* () {
          yield* TestClock.setTime(Date.UTC(2026, 10, 6, 23, 30))
          yield* at(root, (store) => store.add({ scope: own, text: "east", actor: "t" }), {
            timeZone: "Asia/Shanghai"
          })
          yield* at(root, (store) => store.add({ scope: own, text: "west", actor: "t" }), {
            timeZone: "America/Los_Angeles"
          })
          yield* at(root, (store) =>
            store.add({ scope: own, text: "given", meta: [["added", "2020-01-02"]], actor: "t" })
          )
          const logged = warnings()
          yield* at(
            root,
            (store) =>
              Effect.all([
                store.add({ scope: own, text: "nowhere", actor: "t" }),
                store.add({ scope: own, text: "again", actor: "t" })
              ]),
            { timeZone: "Mars/Olympus" }
          ).pipe(Effect.provide(logged.layer))
          const lines = (yield* at(root, (store) => store.load(own))).files[0]!.parsed.entries.map((e) => e.meta)
          assert.deepStrictEqual(lines, [
            [["added", "2026-11-07"]],
            [["added", "2026-11-06"]],
            [["added", "2020-01-02"]],
            [["added", "2026-11-06"]],
            [["added", "2026-11-06"]]
          ])
          assert.deepStrictEqual(logged.lines, ['mneme: unknown time zone "Mars/Olympus"; dates are written in UTC'])
        }))

      test("adding to a new topic creates it and links it from the index, journaling both", (root) =>
        Effect.gen(function* () {
          yield* at(root, (store) => store.add({ scope: own, text: "in memory", actor: "t" }))
          const outcome = yield* at(root, (store) =>
            store.add({ scope: own, topic: " Travel  Plans.md ", text: "Goes to Oslo", actor: "t" })
          )
          assert.strictEqual(
            yield* read(root, own, "travel-plans.md"),
            "# travel-plans\n\n- Goes to Oslo [added: 2026-11-06]\n"
          )
          assert.strictEqual(
            yield* read(root, own, "MEMORY.md"),
            "# Memory\n\n- in memory [added: 2026-11-06]\n\n## Index\n- [[travel-plans]]\n"
          )
          assert.strictEqual(outcome.topic, "travel-plans")
          assert.strictEqual(outcome.file, "agents/ada/travel-plans.md")
          assert.strictEqual(
            outcome.message,
            'added to agents/ada/travel-plans.md (now 51 of 16,000 characters): "Goes to Oslo"; the new topic "travel-plans" is linked from agents/ada/MEMORY.md'
          )
          const journal = yield* at(root, (store) => store.journal({ limit: 2 }))
          assert.deepStrictEqual(
            journal.map((line) => [line.file, line.after]),
            [
              ["agents/ada/travel-plans.md", "- Goes to Oslo [added: 2026-11-06]"],
              ["agents/ada/MEMORY.md", "- [[travel-plans]]"]
            ]
          )
          yield* at(root, (store) => store.add({ scope: own, topic: "travel-plans", text: "Flies in May", actor: "t" }))
          assert.strictEqual(
            yield* read(root, own, "travel-plans.md"),
            "# travel-plans\n\n- Goes to Oslo [added: 2026-11-06]\n- Flies in May [added: 2026-11-06]\n"
          )
          assert.strictEqual((yield* read(root, own, "MEMORY.md")).split("[[travel-plans]]").length, 2)
        }))

      test("a MEMORY.md without an index gets one when a topic is created", (root) =>
        Effect.gen(function* () {
          yield* put(root, team, { "MEMORY.md": "# Team notes\n\n- shared fact\n" })
          yield* at(root, (store) => store.add({ scope: team, topic: "tools", text: "Uses vim", actor: "t" }))
          assert.strictEqual(
            yield* read(root, team, "MEMORY.md"),
            "# Team notes\n\n- shared fact\n\n## Index\n- [[tools]]\n"
          )
        }))

      test("a new topic past the topic limit is TooManyTopics, and nothing is written", (root) =>
        Effect.gen(function* () {
          const settings = { topicsMax: 2 }
          for (const topic of ["a", "b"]) {
            yield* at(root, (store) => store.add({ scope: team, topic, text: `about ${topic}`, actor: "t" }), settings)
          }
          const before = yield* texts(root, team)
          const journal = yield* at(root, (store) => store.journal())
          const error = yield* at(
            root,
            (store) => Effect.flip(store.add({ scope: team, topic: "c", text: "about c", actor: "t" })),
            settings
          )
          assert.strictEqual(error._tag, "TooManyTopics")
          assert.strictEqual(error.message, "team already has 2 topics: add to an existing topic, or remove one first")
          assert.deepStrictEqual(yield* texts(root, team), before)
          assert.deepStrictEqual(yield* at(root, (store) => store.journal()), journal)
          const more = yield* at(
            root,
            (store) => store.add({ scope: team, topic: "b", text: "more on b", actor: "t" }),
            settings
          )
          assert.isTrue(more.changed)
        }))

      test("a topic name that is not one (a path, a device name, a secret) is BadTopic for every operation; nothing is written", (root) =>
        Effect.gen(function* () {
          yield* at(root, (store) => store.add({ scope: own, text: "fact", actor: "t" }))
          const before = yield* texts(root, own)
          const journal = yield* at(root, (store) => store.journal())
          const topics = [
            "../x",
            "/etc/passwd",
            "a\u0000b",
            "memory",
            "",
            "a.b",
            "x".repeat(49),
            "..\\x",
            "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            "con",
            "lpt1",
            "NUL.txt"
          ]
          for (const topic of topics) {
            const errors = yield* at(root, (store) =>
              Effect.all([
                Effect.flip(store.add({ scope: own, topic, text: "the user likes tea", actor: "t" })),
                Effect.flip(store.replace({ scope: own, topic, match: "fact", text: "other", actor: "t" })),
                Effect.flip(store.remove({ scope: own, topic, match: "fact", actor: "t" }))
              ])
            )
            for (const error of errors) {
              assert.strictEqual(error._tag, "BadTopic")
              assert.match(
                error.message,
                /^".*" is not a topic name: use 1-48 letters, digits, "_" or "-", starting with a letter or digit, not "memory", a device name such as "con", or anything that looks secret$/
              )
              assert.notInclude(error.message, "abcdefghijklmnop")
            }
          }
          assert.deepStrictEqual(yield* texts(root, own), before)
          assert.deepStrictEqual(yield* at(root, (store) => store.journal()), journal)
        }))

      test("an entry memory cannot keep is Denied with its reason, and nothing is written", (root) =>
        Effect.gen(function* () {
          yield* at(root, (store) => store.add({ scope: own, text: "keep me", actor: "t" }))
          const memory = yield* read(root, own, "MEMORY.md")
          const cases = [
            [
              "x".repeat(301),
              "TooLong",
              "memory cannot keep this entry: the entry is 301 characters, over the limit of 300"
            ],
            ["  - [added: 2026-01-01]", "EmptyEntry", "memory cannot keep this entry: the entry is empty"],
            [
              "the key is sk-proj-4fT9aQ2mZx7LbV1nR8sK3wYc6JdP0hGe",
              "SecretEntry",
              "memory cannot keep this entry: it looks like a secret (a key, password or ID number), which memory never keeps"
            ]
          ] as const
          for (const [text, reason, message] of cases) {
            const errors = yield* at(root, (store) =>
              Effect.all([
                Effect.flip(store.add({ scope: own, text, actor: "t" })),
                Effect.flip(store.replace({ scope: own, match: "keep me", text, actor: "t" }))
              ])
            )
            for (const error of errors) {
              assert.strictEqual(error._tag, "Denied")
              assert.strictEqual(error._tag === "Denied" ? error.reason._tag : "", reason)
              assert.strictEqual(error.message, message)
            }
          }
          const hostSecret = yield* at(
            root,
            (store) => Effect.flip(store.add({ scope: own, text: "codename bluebird", actor: "t" })),
            { isSecret: (text) => text.includes("bluebird") }
          )
          assert.strictEqual(hostSecret._tag, "Denied")
          assert.strictEqual(hostSecret.message, cases[2][2])
          assert.strictEqual(yield* read(root, own, "MEMORY.md"), memory)
          assert.strictEqual((yield* at(root, (store) => store.journal())).length, 1)
        }))

      test("a change that takes a file past its size is MemoryFull, saying how full and how to make room", (root) =>
        Effect.gen(function* () {
          const settings = { memoryMax: 120 }
          yield* at(
            root,
            (store) => store.add({ scope: own, text: "a fact of some length here", actor: "t" }),
            settings
          )
          yield* at(
            root,
            (store) => store.add({ scope: own, text: "another fact, long as well", actor: "t" }),
            settings
          )
          const memory = yield* read(root, own, "MEMORY.md")
          const error = yield* at(
            root,
            (store) => Effect.flip(store.add({ scope: own, text: "one fact too many now", actor: "t" })),
            settings
          )
          const size = Text.length(memory) + Text.length("- one fact too many now [added: 2026-11-06]\n")
          assert.strictEqual(error._tag, "MemoryFull")
          assert.strictEqual(
            error.message,
            `agents/ada/MEMORY.md would hold ${size} of its 120 characters (${Math.round((size / 120) * 100)}%): remove or shorten entries, or move details into a topic, to make room`
          )
          const longer = yield* at(
            root,
            (store) =>
              Effect.flip(
                store.replace({
                  scope: own,
                  match: "another fact",
                  text: "another fact, long as well, and longer still",
                  actor: "t"
                })
              ),
            settings
          )
          const grown = Text.length(memory) + Text.length(", and longer still")
          assert.strictEqual(longer._tag, "MemoryFull")
          assert.strictEqual(
            longer.message,
            `agents/ada/MEMORY.md would hold ${grown} of its 120 characters (${Math.round((grown / 120) * 100)}%): remove or shorten entries, or move details into a topic, to make room`
          )
          assert.strictEqual(yield* read(root, own, "MEMORY.md"), memory)
          const topic = yield* at(
            root,
            (store) => Effect.flip(store.add({ scope: own, topic: "t", text: "x".repeat(60), actor: "t" })),
            { topicMax: 50 }
          )
          assert.strictEqual(topic._tag, "MemoryFull")
          const topicSize = Text.length(`# t\n\n- ${"x".repeat(60)} [added: 2026-11-06]\n`)
          assert.strictEqual(
            topic.message,
            `agents/ada/t.md would hold ${topicSize} of its 50 characters (${Math.round((topicSize / 50) * 100)}%): remove or shorten entries, or move details into a topic, to make room`
          )
          assert.isUndefined(yield* fileText(root, own, "t.md"))
        }))

      test("a topic whose index link would overfill MEMORY.md is not created", (root) =>
        Effect.gen(function* () {
          yield* at(root, (store) => store.add({ scope: own, text: "x".repeat(60), actor: "t" }))
          const memory = yield* read(root, own, "MEMORY.md")
          const error = yield* at(
            root,
            (store) => Effect.flip(store.add({ scope: own, topic: "more", text: "details", actor: "t" })),
            { memoryMax: Text.length(memory) + 5 }
          )
          const size = Text.length(memory) + Text.length("- [[more]]\n")
          assert.strictEqual(error._tag, "MemoryFull")
          assert.strictEqual(
            error.message,
            `agents/ada/MEMORY.md would hold ${size} of its ${Text.length(memory) + 5} characters (${Math.round((size / (Text.length(memory) + 5)) * 100)}%): remove or shorten entries, or move details into a topic, to make room`
          )
          assert.deepStrictEqual(yield* texts(root, own), { "agents/ada/MEMORY.md": memory })
          assert.strictEqual((yield* at(root, (store) => store.journal())).length, 1)
        }))

      test("a MEMORY.md far past its size still loads, may shrink or keep its size, but does not grow", (root) =>
        Effect.gen(function* () {
          const entries = Array.from({ length: 3000 }, (_, i) => `- hand-written fact number ${i} [added: 2026-01-01]`)
          yield* put(root, team, { "MEMORY.md": `# Memory\n\n${entries.join("\n")}\n` })
          const loaded = yield* at(root, (store) => store.load(team))
          assert.strictEqual(loaded.files[0]!.parsed.entries.length, 3000)
          assert.isAbove(loaded.files[0]!.size, 100_000)
          const overFull =
            /^team\/MEMORY\.md would hold [\d,]+ of its 4,000 characters \(\d,\d{3}%\): remove or shorten/
          const grow = yield* at(root, (store) => Effect.flip(store.add({ scope: team, text: "one more", actor: "t" })))
          assert.strictEqual(grow._tag, "MemoryFull")
          assert.match(grow.message, overFull)
          const longer = yield* at(root, (store) =>
            Effect.flip(
              store.replace({
                scope: team,
                match: "hand-written fact number 5",
                text: "hand-written fact number 55",
                actor: "t"
              })
            )
          )
          assert.strictEqual(longer._tag, "MemoryFull")
          assert.match(longer.message, overFull)
          const same = yield* at(root, (store) =>
            store.replace({
              scope: team,
              match: "hand-written fact number 7",
              text: "hand-written fact number X",
              actor: "t"
            })
          )
          assert.isTrue(same.changed)
          const shorter = yield* at(root, (store) =>
            store.replace({ scope: team, match: "hand-written fact number 9", text: "fact nine", actor: "t" })
          )
          assert.isTrue(shorter.changed)
          const removed = yield* at(root, (store) =>
            store.remove({ scope: team, match: "hand-written fact number 2999", actor: "t" })
          )
          assert.isTrue(removed.changed)
          const kept = entryTexts(yield* at(root, (store) => store.load(team)))
          assert.strictEqual(kept.length, 2999)
          assert.deepStrictEqual(kept.slice(5, 10), [
            "hand-written fact number 5",
            "hand-written fact number 6",
            "hand-written fact number X",
            "hand-written fact number 8",
            "fact nine"
          ])
        }))
    })

    describe("the settings are read when the layer is built (issue 8 item 5)", () => {
      /** A store whose settings are provided to its layer only (provide, not provideMerge), run without any other. */
      const provided = <A, E>(
        root: Root,
        settings: Partial<MemoryConfig.Settings>,
        body: (store: Store) => Effect.Effect<A, E>
      ) =>
        MemoryStore.MemoryStore.use(body).pipe(
          Effect.provide(
            MemoryStore.layer.pipe(
              Layer.provide(root),
              Layer.provide(MemoryConfig.layer({ timeZone: "UTC", ...settings }))
            )
          )
        )

      /** Nothing was written to ada's memory, and nothing journaled. */
      const nothingWritten = (root: Root) =>
        Effect.gen(function* () {
          assert.deepStrictEqual(yield* texts(root, own), {})
          assert.deepStrictEqual(yield* at(root, (store) => store.journal()), [])
        })

      test("entryMax: a 50-character entry is refused under entryMax 20", (root) =>
        Effect.gen(function* () {
          const error = yield* provided(root, { entryMax: 20 }, (store) =>
            Effect.flip(store.add({ scope: own, text: "x".repeat(50), actor: "t" }))
          )
          assert.strictEqual(error._tag, "Denied")
          assert.strictEqual(
            error.message,
            "memory cannot keep this entry: the entry is 50 characters, over the limit of 20"
          )
          yield* nothingWritten(root)
        }))

      test("memoryMax: an add past memoryMax 40 is MemoryFull", (root) =>
        Effect.gen(function* () {
          const error = yield* provided(root, { memoryMax: 40 }, (store) =>
            Effect.flip(store.add({ scope: own, text: "a fact that takes MEMORY.md past forty", actor: "t" }))
          )
          assert.strictEqual(error._tag, "MemoryFull")
          assert.strictEqual(
            error.message,
            "agents/ada/MEMORY.md would hold 81 of its 40 characters (203%): remove or shorten entries, or move details into a topic, to make room"
          )
          yield* nothingWritten(root)
        }))

      test("topicMax: an add past topicMax 20 is MemoryFull", (root) =>
        Effect.gen(function* () {
          const error = yield* provided(root, { topicMax: 20 }, (store) =>
            Effect.flip(store.add({ scope: own, topic: "t", text: "a fact past a small topic", actor: "t" }))
          )
          assert.strictEqual(error._tag, "MemoryFull")
          assert.strictEqual(
            error.message,
            "agents/ada/t.md would hold 53 of its 20 characters (265%): remove or shorten entries, or move details into a topic, to make room"
          )
          yield* nothingWritten(root)
        }))

      test("topicsMax: a second topic under topicsMax 1 is TooManyTopics", (root) =>
        Effect.gen(function* () {
          const error = yield* provided(root, { topicsMax: 1 }, (store) =>
            Effect.gen(function* () {
              yield* store.add({ scope: own, topic: "a", text: "about a", actor: "t" })
              return yield* Effect.flip(store.add({ scope: own, topic: "b", text: "about b", actor: "t" }))
            })
          )
          assert.strictEqual(error._tag, "TooManyTopics")
          assert.strictEqual(
            error.message,
            "agents/ada already has 1 topics: add to an existing topic, or remove one first"
          )
          assert.isUndefined(yield* fileText(root, own, "b.md"))
          assert.deepStrictEqual(Object.keys(yield* texts(root, own)), ["agents/ada/MEMORY.md", "agents/ada/a.md"])
        }))
    })

    describe("replace and remove", () => {
      const seed = (root: Root) =>
        at(root, (store) =>
          Effect.forEach(
            ["The user likes green tea", "The user likes black tea", "The user drinks coffee at 9", "Lives in Oslo"],
            (text) =>
              store.add({
                scope: own,
                text,
                meta: [
                  ["source", "c #1"],
                  ["added", "2026-01-01"]
                ],
                actor: "t"
              }),
            { discard: true }
          )
        )

      test("replace keeps the entry's place and metadata, and journals before and after", (root) =>
        Effect.gen(function* () {
          yield* seed(root)
          const outcome = yield* at(root, (store) =>
            store.replace({ scope: own, match: "coffee", text: "The user drinks coffee at 10", actor: "cli" })
          )
          const content = yield* read(root, own, "MEMORY.md")
          assert.strictEqual(
            content,
            [
              "# Memory",
              "",
              "- The user likes green tea [source: c #1; added: 2026-01-01]",
              "- The user likes black tea [source: c #1; added: 2026-01-01]",
              "- The user drinks coffee at 10 [source: c #1; added: 2026-01-01]",
              "- Lives in Oslo [source: c #1; added: 2026-01-01]",
              "",
              "## Index",
              ""
            ].join("\n")
          )
          assert.strictEqual(outcome.changed, true)
          assert.strictEqual(outcome.before, "- The user drinks coffee at 9 [source: c #1; added: 2026-01-01]")
          assert.strictEqual(outcome.after, "- The user drinks coffee at 10 [source: c #1; added: 2026-01-01]")
          assert.strictEqual(
            outcome.message,
            `replaced in agents/ada/MEMORY.md (now ${Text.length(content)} of 4,000 characters): "The user drinks coffee at 9" is now "The user drinks coffee at 10"`
          )
          const [line] = yield* at(root, (store) => store.journal({ limit: 1 }))
          assert.deepStrictEqual(withoutId(line!), {
            version: 2,
            time: noon,
            op: "replace",
            scope: "agents/ada",
            file: "agents/ada/MEMORY.md",
            actor: "cli",
            before: outcome.before!,
            after: outcome.after!
          })
          const withMeta = yield* at(root, (store) =>
            store.replace({
              scope: own,
              match: "Lives in Oslo",
              text: "Lives in Oslo",
              meta: [["by", "bob"]],
              actor: "t"
            })
          )
          assert.strictEqual(withMeta.after, "- Lives in Oslo [by: bob; added: 2026-11-06]")
          const unchanged = yield* at(root, (store) =>
            store.replace({
              scope: own,
              match: "Lives in Oslo",
              text: "Lives in  Oslo",
              meta: [["by", "bob"]],
              actor: "t"
            })
          )
          assert.deepStrictEqual(
            [unchanged.changed, unchanged.message],
            [false, 'nothing changed: agents/ada/MEMORY.md already holds "Lives in Oslo"']
          )
        }))

      test("a match is the exact text first, else the one entry containing it; none or several is NoMatch", (root) =>
        Effect.gen(function* () {
          yield* seed(root)
          yield* at(root, (store) => store.add({ scope: own, text: "tea", actor: "t" }))
          const exact = yield* at(root, (store) => store.remove({ scope: own, match: "tea", actor: "t" }))
          assert.strictEqual(exact.before, "- tea [added: 2026-11-06]")
          const memory = yield* read(root, own, "MEMORY.md")
          const several = yield* at(root, (store) =>
            Effect.flip(store.remove({ scope: own, match: "LIKES", actor: "t" }))
          )
          assert.strictEqual(several._tag, "NoMatch")
          assert.strictEqual(
            several.message,
            '"LIKES" matches several entries in agents/ada/MEMORY.md; quote one of them whole:\n- The user likes green tea\n- The user likes black tea'
          )
          const none = yield* at(root, (store) =>
            Effect.flip(store.replace({ scope: own, match: "rooibos", text: "x", actor: "t" }))
          )
          assert.strictEqual(none._tag, "NoMatch")
          assert.strictEqual(none.message, 'no entry in agents/ada/MEMORY.md holds "rooibos"')
          const empty = yield* at(root, (store) => Effect.flip(store.remove({ scope: own, match: "  ", actor: "t" })))
          assert.strictEqual(empty._tag, "NoMatch")
          assert.strictEqual(empty.message, 'no entry in agents/ada/MEMORY.md holds "  "')
          const missingTopic = yield* at(root, (store) =>
            Effect.flip(store.remove({ scope: own, topic: "nope", match: "tea", actor: "t" }))
          )
          assert.strictEqual(missingTopic._tag, "NoMatch")
          assert.strictEqual(missingTopic.message, 'no entry in agents/ada/nope.md holds "tea"')
          assert.strictEqual(yield* read(root, own, "MEMORY.md"), memory)
          const quoted = yield* at(root, (store) =>
            store.remove({ scope: own, match: "- the user likes BLACK tea [source: c #1]", actor: "t" })
          )
          const size = Text.length(yield* read(root, own, "MEMORY.md"))
          assert.strictEqual(
            quoted.message,
            `removed from agents/ada/MEMORY.md: "The user likes black tea" (now ${size} of 4,000 characters)`
          )
        }))

      test("with exact, replace and remove change only the entry with exactly that text (issue 8 item 1)", (root) =>
        Effect.gen(function* () {
          yield* at(root, (store) =>
            Effect.forEach(
              ["Likes tea", "Likes tea with milk"],
              (text) => store.add({ scope: own, text, actor: "t" }),
              {
                discard: true
              }
            )
          )
          const removed = yield* at(root, (store) =>
            store.remove({ scope: own, match: "Likes tea", exact: true, actor: "t" })
          )
          assert.strictEqual(removed.before, "- Likes tea [added: 2026-11-06]")
          const memory = yield* read(root, own, "MEMORY.md")
          const errors = yield* at(root, (store) =>
            Effect.all([
              Effect.flip(store.remove({ scope: own, match: "Likes tea", exact: true, actor: "t" })),
              Effect.flip(
                store.replace({
                  scope: own,
                  match: "Likes tea",
                  exact: true,
                  text: "The user prefers coffee",
                  actor: "t"
                })
              )
            ])
          )
          for (const error of errors) {
            assert.strictEqual(error._tag, "NoMatch")
            assert.strictEqual(error.message, 'no entry in agents/ada/MEMORY.md holds "Likes tea"')
          }
          assert.strictEqual(yield* read(root, own, "MEMORY.md"), memory)
          assert.include(memory, "- Likes tea with milk [added: 2026-11-06]")
          assert.strictEqual((yield* at(root, (store) => store.journal())).length, 3)
        }))

      test("NoMatch lists at most eight candidates", (root) =>
        Effect.gen(function* () {
          yield* at(root, (store) =>
            Effect.forEach(
              Array.from({ length: 11 }, (_, i) => i),
              (i) => store.add({ scope: team, text: `note ${i}`, actor: "t" }),
              { discard: true }
            )
          )
          const error = yield* at(root, (store) =>
            Effect.flip(store.remove({ scope: team, match: "note", actor: "t" }))
          )
          const candidates = Array.from({ length: 8 }, (_, i) => `note ${i}`)
          assert.strictEqual(error._tag, "NoMatch")
          assert.deepStrictEqual(error._tag === "NoMatch" ? error.candidates : [], candidates)
          assert.strictEqual(
            error.message,
            `"note" matches several entries in team/MEMORY.md; quote one of them whole:\n${candidates.map((text) => `- ${text}`).join("\n")}`
          )
        }))

      test("removing the last entry of a topic deletes the file and its index link; a topic with a note stays", (root) =>
        Effect.gen(function* () {
          yield* at(root, (store) =>
            Effect.all([
              store.add({ scope: own, text: "in memory", actor: "t" }),
              store.add({ scope: own, topic: "pets", text: "Has a cat", actor: "t" }),
              store.add({ scope: own, topic: "books", text: "Reads Tolstoy", actor: "t" })
            ])
          )
          yield* put(root, own, { "books.md": `${yield* read(root, own, "books.md")}\nA note a person wrote.\n` })
          const outcome = yield* at(root, (store) =>
            store.remove({ scope: own, topic: "pets", match: "cat", actor: "t" })
          )
          assert.strictEqual(
            outcome.message,
            'removed from agents/ada/pets.md: "Has a cat"; the topic "pets" had nothing left and is deleted, with its link in agents/ada/MEMORY.md'
          )
          assert.deepStrictEqual(Object.keys(yield* texts(root, own)), ["agents/ada/MEMORY.md", "agents/ada/books.md"])
          assert.strictEqual(
            yield* read(root, own, "MEMORY.md"),
            "# Memory\n\n- in memory [added: 2026-11-06]\n\n## Index\n- [[books]]\n"
          )
          const journal = yield* at(root, (store) => store.journal({ limit: 2 }))
          assert.deepStrictEqual(
            journal.map((line) => [line.op, line.file, line.before]),
            [
              ["remove", "agents/ada/pets.md", "- Has a cat [added: 2026-11-06]"],
              ["remove", "agents/ada/MEMORY.md", "- [[pets]]"]
            ]
          )
          yield* at(root, (store) => store.remove({ scope: own, topic: "books", match: "Tolstoy", actor: "t" }))
          assert.strictEqual(yield* read(root, own, "books.md"), "# books\n\nA note a person wrote.\n")
          assert.include(yield* read(root, own, "MEMORY.md"), "- [[books]]")
        }))

      test("a topic file with no heading is read, added to and emptied like any other", (root) =>
        Effect.gen(function* () {
          yield* put(root, team, {
            "MEMORY.md": "# Memory\n\n## Index\n- [[loose]]\n",
            "loose.md": "- first loose fact\n"
          })
          assert.deepStrictEqual(entryTexts(yield* at(root, (store) => store.load(team))), ["first loose fact"])
          yield* at(root, (store) => store.add({ scope: team, topic: "loose", text: "second", actor: "t" }))
          assert.strictEqual(yield* read(root, team, "loose.md"), "- first loose fact\n- second [added: 2026-11-06]\n")
          yield* at(root, (store) =>
            store.remove({ scope: team, topic: "loose", match: "first loose fact", actor: "t" })
          )
          yield* at(root, (store) => store.remove({ scope: team, topic: "loose", match: "second", actor: "t" }))
          assert.deepStrictEqual(yield* texts(root, team), { "team/MEMORY.md": "# Memory\n\n## Index\n" })
        }))

      test("property: any adds to MEMORY.md and topics, then removing them all, give back the files byte for byte (issue 8 item 9)", (root) =>
        Effect.gen(function* () {
          const start = {
            "agents/ada/MEMORY.md": "# Memory\n\nA note kept by hand.\n\n\n## Index\n- [[old]]\n",
            "agents/ada/old.md": "# old\n\n- an old fact\n"
          }
          yield* put(root, own, {
            "MEMORY.md": start["agents/ada/MEMORY.md"],
            "old.md": start["agents/ada/old.md"]
          })
          const cycle = (adds: ReadonlyArray<string | undefined>, reverse: boolean) =>
            Effect.gen(function* () {
              yield* at(root, (store) =>
                Effect.gen(function* () {
                  const changes = adds.map((topic, i) => ({ topic, text: `fact number ${i}` }))
                  for (const { topic, text } of changes) yield* store.add({ scope: own, topic, text, actor: "t" })
                  for (const { topic, text } of reverse ? changes.toReversed() : changes) {
                    yield* store.remove({ scope: own, topic, match: text, exact: true, actor: "t" })
                  }
                })
              )
              assert.deepStrictEqual(yield* texts(root, own), start)
            })
          yield* Effect.promise(() =>
            fc.assert(
              fc.asyncProperty(
                fc.array(fc.constantFrom(undefined, "old", "pets", "work"), { minLength: 1, maxLength: 8 }),
                fc.boolean(),
                (adds, reverse) => Effect.runPromise(cycle(adds, reverse))
              ),
              { numRuns: 25 }
            )
          )
        }))
    })

    describe("a batch (apply)", () => {
      test("plans every change against the files read once; each file is written once and the journal appended once", (root) =>
        Effect.gen(function* () {
          yield* at(root, (store) => store.add({ scope: own, text: "Likes tea", actor: "t" }))
          const results = yield* at(root, (store) =>
            store.apply([
              { op: "add", scope: own, text: "Lives in Oslo", actor: "review", auto: true },
              { op: "add", scope: own, topic: "pets", text: "Has a cat", actor: "review", auto: true },
              {
                op: "replace",
                scope: own,
                match: "Likes tea",
                exact: true,
                text: "Likes green tea",
                actor: "review",
                auto: true
              },
              { op: "add", scope: team, text: "The team ships on Thursdays", actor: "review", auto: true },
              { op: "remove", scope: own, match: "gone", actor: "review", auto: true },
              { op: "add", scope: own, text: "x".repeat(400), actor: "review", auto: true },
              { op: "add", scope: own, text: "lives in  OSLO", actor: "review", auto: true }
            ])
          )
          assert.deepStrictEqual(
            results.map((result) => (Result.isSuccess(result) ? result.success.changed : result.failure._tag)),
            [true, true, true, true, "NoMatch", "Denied", false]
          )
          assert.strictEqual(
            yield* read(root, own, "MEMORY.md"),
            "# Memory\n\n- Likes green tea [added: 2026-11-06]\n- Lives in Oslo [added: 2026-11-06]\n\n## Index\n- [[pets]]\n"
          )
          const journal = yield* at(root, (store) => store.journal())
          assert.deepStrictEqual(
            journal.slice(1).map((line) => [line.op, line.file, line.actor, line.auto]),
            [
              ["add", "agents/ada/MEMORY.md", "review", true],
              ["add", "agents/ada/pets.md", "review", true],
              ["add", "agents/ada/MEMORY.md", "review", true],
              ["replace", "agents/ada/MEMORY.md", "review", true],
              ["add", "team/MEMORY.md", "review", true]
            ]
          )
          assert.strictEqual(new Set(journal.slice(1).map((line) => line.time)).size, 1)
        }))
    })

    describe("what a person wrote", () => {
      test("load reports topic files the index does not link; an add to such a topic links it", (root) =>
        Effect.gen(function* () {
          yield* put(root, own, {
            "MEMORY.md": "# Memory\n\n- in memory\n\n## Index\n- [[books]]\n",
            "books.md": "# books\n\n- Reads Tolstoy\n",
            "pets.md": "# pets\n\n- Has a cat\n"
          })
          const loaded = yield* at(root, (store) => store.load(own))
          assert.deepStrictEqual(
            loaded.unlinked.map((file) => file.file),
            ["agents/ada/pets.md"]
          )
          const outcome = yield* at(root, (store) =>
            store.add({ scope: own, topic: "pets", text: "Has a dog", actor: "t" })
          )
          const pets = Text.length(yield* read(root, own, "pets.md"))
          assert.strictEqual(
            outcome.message,
            `added to agents/ada/pets.md (now ${pets} of 16,000 characters): "Has a dog"; the topic "pets" was not linked and is now linked from agents/ada/MEMORY.md`
          )
          assert.strictEqual(
            yield* read(root, own, "MEMORY.md"),
            "# Memory\n\n- in memory\n\n## Index\n- [[books]]\n- [[pets]]\n"
          )
          assert.deepStrictEqual((yield* at(root, (store) => store.load(own))).unlinked, [])
          assert.deepStrictEqual(
            (yield* at(root, (store) => store.journal())).map((line) => [line.file, line.after]),
            [
              ["agents/ada/pets.md", "- Has a dog [added: 2026-11-06]"],
              ["agents/ada/MEMORY.md", "- [[pets]]"]
            ]
          )
        }))

      test("an edit by a person between two operations of one store is kept", (root) =>
        Effect.gen(function* () {
          yield* at(root, (store) =>
            Effect.gen(function* () {
              yield* store.add({ scope: team, text: "one", actor: "t" })
              const before = yield* read(root, team, "MEMORY.md")
              yield* put(root, team, {
                "MEMORY.md": before.replace("\n\n## Index", "\n- typed by a person\n\n## Index")
              })
              yield* store.add({ scope: team, text: "two", actor: "t" })
            })
          )
          assert.deepStrictEqual(entryTexts(yield* at(root, (store) => store.load(team))), [
            "one",
            "typed by a person",
            "two"
          ])
        }))
    })

    describe("one writer per root", () => {
      live("200 concurrent adds from separate fibers all land, each exactly once, with 200 journal lines", (root) =>
        concurrentAdds(root)
      )

      live("store writes and review-state writes in one process run side by side without a deadlock", (root) =>
        Effect.gen(function* () {
          const both = Layer.merge(MemoryStore.layer, ReviewState.layer).pipe(
            Layer.provide(root),
            Layer.provide(MemoryConfig.layer({ memoryMax: 100_000 }))
          )
          yield* Effect.gen(function* () {
            const store = yield* MemoryStore.MemoryStore
            const state = yield* ReviewState.ReviewState
            yield* Effect.forEach(
              Array.from({ length: 80 }, (_, i) => i),
              (i) =>
                i % 2 === 0
                  ? store.add({ scope: team, text: `fact ${i}`, actor: "t" })
                  : state.setCursor(`chat:${i}`, i),
              { concurrency: "unbounded", discard: true }
            )
            assert.strictEqual(entryTexts(yield* store.load(team)).length, 40)
            assert.strictEqual(yield* state.cursor("chat:79"), 79)
          }).pipe(Effect.provide(both))
        })
      )
    })

    describe("undo (issue 9)", () => {
      test("undo reverts the scope's last change, and with count the last N, newest first, journaling each", (root) =>
        Effect.gen(function* () {
          yield* put(root, own, { "MEMORY.md": "# Memory\n\n- old fact [added: 2026-01-01]\n\n## Index\n" })
          const start = yield* read(root, own, "MEMORY.md")
          yield* at(root, (store) =>
            Effect.gen(function* () {
              yield* store.add({ scope: own, text: "new fact", actor: "t" })
              yield* store.add({ scope: own, topic: "pets", text: "Has a cat", actor: "t" })
              yield* store.add({ scope: team, text: "a team fact", actor: "t" })
              yield* store.replace({ scope: own, match: "old fact", text: "old fact, edited", actor: "t" })
            })
          )
          const last = yield* at(root, (store) => store.undo({ scope: own, actor: "cli" }))
          assert.deepStrictEqual(
            last.map((outcome) => [outcome.op, outcome.file, outcome.message]),
            [
              [
                "replace",
                "agents/ada/MEMORY.md",
                `undone: "old fact, edited" in agents/ada/MEMORY.md is again "old fact" (now ${Text.length(yield* read(root, own, "MEMORY.md"))} of 4,000 characters)`
              ]
            ]
          )
          const two = yield* at(root, (store) => store.undo({ scope: own, count: 2, actor: "cli" }))
          assert.deepStrictEqual(
            two.map((outcome) => outcome.message),
            [
              'undone: removed "Has a cat" from agents/ada/pets.md; the topic "pets" had nothing left and is deleted, with its link in agents/ada/MEMORY.md',
              `undone: removed "new fact" from agents/ada/MEMORY.md (now ${Text.length(start)} of 4,000 characters)`
            ]
          )
          assert.deepStrictEqual(yield* texts(root, own), { "agents/ada/MEMORY.md": start })
          assert.deepStrictEqual(entryTexts(yield* at(root, (store) => store.load(team))), ["a team fact"])
          const journal = yield* at(root, (store) => store.journal())
          const byId = new Map(journal.map((line) => [line.id, line]))
          const undos = journal.filter((line) => line.op === "undo")
          assert.deepStrictEqual(
            undos.map((line) => [line.file, line.actor, byId.get(line.undoes)?.op, byId.get(line.undoes)?.file]),
            [
              ["agents/ada/MEMORY.md", "cli", "replace", "agents/ada/MEMORY.md"],
              ["agents/ada/pets.md", "cli", "add", "agents/ada/pets.md"],
              ["agents/ada/MEMORY.md", "cli", "add", "agents/ada/MEMORY.md"],
              ["agents/ada/MEMORY.md", "cli", "add", "agents/ada/MEMORY.md"]
            ]
          )
          assert.deepStrictEqual(yield* at(root, (store) => store.undo({ scope: own, actor: "cli" })), [])
        }))

      test("undo of a remove puts the entry back, with its topic and link; undo by id names one change", (root) =>
        Effect.gen(function* () {
          yield* at(root, (store) =>
            Effect.gen(function* () {
              yield* store.add({ scope: own, topic: "pets", text: "Has a cat", actor: "t" })
              yield* store.add({ scope: own, text: "kept", actor: "t" })
            })
          )
          const before = {
            memory: yield* read(root, own, "MEMORY.md"),
            pets: yield* read(root, own, "pets.md")
          }
          yield* at(root, (store) => store.remove({ scope: own, topic: "pets", match: "cat", actor: "t" }))
          yield* at(root, (store) => store.add({ scope: own, text: "later", actor: "t" }))
          const journal = yield* at(root, (store) => store.journal({ scope: own }))
          const removal = journal.find((line) => line.op === "remove")!
          const [outcome] = yield* at(root, (store) => store.undo({ scope: own, id: removal.id!, actor: "cli" }))
          assert.deepStrictEqual(
            [outcome?.op, outcome?.message],
            [
              "add",
              `undone: "Has a cat" is back in agents/ada/pets.md (now ${Text.length(before.pets)} of 16,000 characters); the topic "pets" is linked again from agents/ada/MEMORY.md`
            ]
          )
          assert.strictEqual(yield* read(root, own, "pets.md"), before.pets)
          assert.strictEqual(
            yield* read(root, own, "MEMORY.md"),
            before.memory.replace(
              "- kept [added: 2026-11-06]",
              "- kept [added: 2026-11-06]\n- later [added: 2026-11-06]"
            )
          )
          const again = yield* at(root, (store) =>
            Effect.flip(store.undo({ scope: own, id: removal.id!, actor: "cli" }))
          )
          assert.strictEqual(again._tag, "NotUndoable")
          assert.strictEqual(
            again.message,
            "cannot undo the change to agents/ada/pets.md: it was undone already; nothing was changed"
          )
          const unknown = yield* at(root, (store) => Effect.flip(store.undo({ scope: own, id: "nope", actor: "cli" })))
          assert.strictEqual(unknown._tag, "StorageError")
          assert.strictEqual(unknown.message, 'agents/ada: the journal holds no change "nope" of this memory')
        }))

      test("undo is NotUndoable where a file no longer holds what the change wrote, and then changes nothing", (root) =>
        Effect.gen(function* () {
          yield* at(root, (store) =>
            Effect.gen(function* () {
              yield* store.add({ scope: own, text: "Likes tea", actor: "t" })
              yield* store.add({ scope: own, text: "Likes trains", actor: "t" })
            })
          )
          const memory = yield* read(root, own, "MEMORY.md")
          yield* put(root, own, { "MEMORY.md": memory.replace("Likes tea [added: 2026-11-06]", "Likes tea a lot") })
          const edited = yield* read(root, own, "MEMORY.md")
          const journal = yield* at(root, (store) => store.journal())
          const error = yield* at(root, (store) => Effect.flip(store.undo({ scope: own, count: 2, actor: "cli" })))
          assert.strictEqual(error._tag, "NotUndoable")
          assert.strictEqual(
            error.message,
            'cannot undo the change to agents/ada/MEMORY.md: it no longer holds "- Likes tea [added: 2026-11-06]"; nothing was changed'
          )
          assert.strictEqual(yield* read(root, own, "MEMORY.md"), edited)
          assert.deepStrictEqual(yield* at(root, (store) => store.journal()), journal)
        }))
    })

    describe("agents, view and journal", () => {
      test("agents lists the root's agents with their folders, MEMORY.md sizes and topic counts", (root) =>
        Effect.gen(function* () {
          const bob = MemoryScope.own("Bob Smith")
          yield* at(root, (store) =>
            Effect.all([
              store.add({ scope: own, text: "one", actor: "t" }),
              store.add({ scope: own, topic: "pets", text: "Has a cat", actor: "t" }),
              store.add({ scope: bob, text: "bob's", actor: "t" }),
              store.add({ scope: team, text: "team fact", actor: "t" })
            ])
          )
          const agents = yield* at(root, (store) => store.agents)
          const bobs = agents.find((agent) => agent.agentId === "Bob Smith")
          assert.deepStrictEqual(agents.map((agent) => [agent.agentId, agent.dir, agent.size, agent.topics]).sort(), [
            ["Bob Smith", bobs?.dir, Text.length(yield* read(root, bob, "MEMORY.md")), 0],
            ["ada", "agents/ada", Text.length(yield* read(root, own, "MEMORY.md")), 1]
          ])
          assert.match(bobs?.dir ?? "", /^agents\/bob-smith-[0-9a-f]{12}$/)
        }))

      test("archive takes the agent's memory whole, leaves the team's, and journals it", (root) =>
        Effect.gen(function* () {
          yield* at(root, (store) =>
            Effect.all([
              store.add({ scope: own, text: "one", actor: "t" }),
              store.add({ scope: own, topic: "pets", text: "Has a cat", actor: "t" }),
              store.add({ scope: team, text: "team fact", actor: "t" })
            ])
          )
          const first = yield* at(root, (store) => store.archive("ada", { actor: "host" }))
          assert.strictEqual(first, "archive/ada-2026-11-06T12-00-00-000Z")
          assert.deepStrictEqual(entryTexts(yield* at(root, (store) => store.load(own))), [])
          assert.deepStrictEqual(yield* texts(root, own), {})
          assert.deepStrictEqual(entryTexts(yield* at(root, (store) => store.load(team))), ["team fact"])
          const again = yield* at(root, (store) => Effect.flip(store.archive("ada")))
          assert.strictEqual(again._tag, "StorageError")
          assert.strictEqual(again.reason._tag, "NotFound")
          yield* at(root, (store) => store.add({ scope: own, text: "two", actor: "t" }))
          assert.strictEqual(yield* at(root, (store) => store.archive("ada")), "archive/ada-2026-11-06T12-00-00-000Z-2")
          const [line] = yield* at(root, (store) => store.journal({ limit: 1 }))
          assert.deepStrictEqual(withoutId(line!), {
            version: 2,
            time: noon,
            op: "archive",
            scope: "agents/ada",
            file: "agents/ada",
            actor: "host",
            after: "archive/ada-2026-11-06T12-00-00-000Z-2"
          })
        }))

      test("view gives every entry with its scope, topic and metadata, the MEMORY.md sizes and the limits", (root) =>
        Effect.gen(function* () {
          yield* at(root, (store) =>
            Effect.all([
              store.add({ scope: own, text: "own fact", meta: [["source", "chat #3"]], actor: "t" }),
              store.add({ scope: own, topic: "pets", text: "Has a cat", actor: "t" }),
              store.add({ scope: team, text: "team fact", meta: [["by", "bob"]], actor: "t" })
            ])
          )
          const view = yield* at(root, (store) => store.view("ada"), { memoryMax: 5000 })
          assert.deepStrictEqual(view, {
            agentId: "ada",
            entries: [
              {
                scope: "own",
                topic: undefined,
                text: "own fact",
                added: "2026-11-06",
                by: undefined,
                source: "chat #3"
              },
              {
                scope: "own",
                topic: "pets",
                text: "Has a cat",
                added: "2026-11-06",
                by: undefined,
                source: undefined
              },
              {
                scope: "team",
                topic: undefined,
                text: "team fact",
                added: "2026-11-06",
                by: "bob",
                source: undefined
              }
            ],
            sizes: {
              own: Text.length(yield* read(root, own, "MEMORY.md")),
              team: Text.length(yield* read(root, team, "MEMORY.md"))
            },
            limits: { entry: 300, memory: 5000, topic: 16000, topics: 40 }
          })
        }))

      test("the journal is read oldest first, to a limit, and of one scope when asked, each agent's apart", (root) =>
        Effect.gen(function* () {
          yield* at(root, (store) =>
            Effect.forEach(
              [
                [team, "a"],
                [own, "b"],
                [team, "c"],
                [MemoryScope.own("bob"), "d"]
              ] as const,
              ([scope, text]) => store.add({ scope, text, actor: "t" }),
              { discard: true }
            )
          )
          const afters = (lines: ReadonlyArray<MemoryRoot.JournalLine>) =>
            lines.map((line) => MemoryFile.parse(line.after ?? "").entries[0]?.text)
          assert.deepStrictEqual(afters(yield* at(root, (store) => store.journal())), ["a", "b", "c", "d"])
          assert.deepStrictEqual(afters(yield* at(root, (store) => store.journal({ limit: 2 }))), ["c", "d"])
          assert.deepStrictEqual(afters(yield* at(root, (store) => store.journal({ scope: team }))), ["a", "c"])
          assert.deepStrictEqual(afters(yield* at(root, (store) => store.journal({ scope: own }))), ["b"])
          assert.deepStrictEqual(afters(yield* at(root, (store) => store.journal({ scope: team, limit: 1 }))), ["c"])
          assert.deepStrictEqual(yield* at(root, (store) => store.journal({ limit: 0 })), [])
        }))
    })
  })
