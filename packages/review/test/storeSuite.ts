/**
 * The memory store's behaviour over any backend of the storage port, as one suite: `storeSuite(backend)` runs it over
 * the roots `backend.fresh` makes (a folder, a Postgres schema…). Every check goes through the store and the port, never
 * through a backend's own files or tables, so each backend is held to the same rules: add, replace and remove, the
 * limits, secrets, duplicates, topics, team memory, the journal, undo, the agents, archiving and the review state.
 */
import { assert, describe, it } from "@effect/vitest"
import { MemoryConfig, MemoryFile, Scope as Scopes, Text } from "@mneme/core"
import { MemoryRoot, MemoryStore } from "@mneme/review"
import { Effect, Layer, Result, type Scope } from "effect"
import { TestClock } from "effect/testing"
import { createHash } from "node:crypto"

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

const own = Scopes.own("ada")
const team = Scopes.team
const noon = Date.UTC(2026, 10, 6, 12)

/** Runs `body` with a store over `root` (a new instance each time), in UTC, with `settings` over the defaults. */
const at = <A, E>(
  root: Root,
  body: (store: Store) => Effect.Effect<A, E>,
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

/** Runs `body` with the storage port over `root` (a new instance). */
const port = <A, E>(root: Root, body: (port: Port) => Effect.Effect<A, E>) =>
  MemoryRoot.MemoryRoot.use(body).pipe(Effect.provide(root))

/** The text of each file of a scope, by its path; a missing MEMORY.md is left out. */
const texts = (root: Root, scope: Scopes.Scope) =>
  Effect.map(
    at(root, (store) => store.load(scope)),
    (view) =>
      Object.fromEntries(
        view.files.filter((file) => file.exists).map((file) => [file.file, MemoryFile.render(file.parsed.lines)])
      )
  )

const entryTexts = (view: MemoryStore.ScopeView) =>
  view.files.flatMap((file) => file.parsed.entries.map((entry) => entry.text))

/** A journal line without its id (checked to be there), to compare the rest. */
const withoutId = ({ id, ...line }: MemoryRoot.JournalLine) => {
  assert.isString(id)
  return line
}

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
          yield* at(root, (store) => store.add({ scope: Scopes.own(agentId), text: `fact of ${agentId}`, actor: "t" }))
        }
        yield* at(root, (store) => store.add({ scope: Scopes.own("grace"), topic: "art", text: "paints", actor: "t" }))
        const hash = (id: string) => createHash("sha256").update(id, "utf8").digest("hex").slice(0, 12)
        const loaded = yield* at(root, (store) => store.load(Scopes.own("Ada Lovelace")))
        assert.strictEqual(loaded.dir, `agents/ada-lovelace-${hash("Ada Lovelace")}`)
        assert.deepStrictEqual(entryTexts(loaded), ["fact of Ada Lovelace"])
        const size = (agentId: string) =>
          Effect.map(
            at(root, (store) => store.load(Scopes.own(agentId))),
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
        yield* at(root, (store) => store.add({ scope: Scopes.own("grace"), text: "stays", actor: "t" }))
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
  })
