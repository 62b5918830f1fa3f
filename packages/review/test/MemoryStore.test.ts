/**
 * The memory store over files, as files: what only the files backend has. The store's behaviour through the storage
 * port (add, replace, remove, batches, limits, secrets, topics, team, undo, the journal, agents, archive, view,
 * settings) is `storeSuite.ts`, run over both backends by `packages/sql/test/storeSuite.test.ts`; here are the files
 * on disk themselves: folder names, files that are not topics or not text, files edited by hand in place, symbolic
 * links and the root's boundary, atomic writes and temporary files, the lock file and other processes, the archive
 * folder, damaged and torn journal lines, and Windows device names.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { MemoryConfig, MemoryScope, Text, Topic } from "@mneme/core"
import { MemoryRoot, MemoryStore } from "@mneme/review"
import { Effect, FileSystem, Layer, Path, Result, type Scope } from "effect"
import { TestClock } from "effect/testing"
import { execFile } from "node:child_process"
import { createHash } from "node:crypto"
import { fileURLToPath } from "node:url"
import { failingServices, listing, tempRoot, warnings } from "./fixtures/kit.ts"
import { rootLayer, storeLayer } from "./fixtures/store.ts"
import { applyWith, concurrentAdds } from "./storeSuite.ts"

type Store = MemoryStore.MemoryStore["Service"]

const own = MemoryScope.own("ada")
const team = MemoryScope.team
const noon = Date.UTC(2026, 10, 6, 12)
const testSettings: Partial<MemoryConfig.Settings> = { timeZone: "UTC" }

/** Runs `body` with a store over `root` (a new instance each time) and the settings given over the test's own. */
const at = <A, E, R>(
  root: string,
  body: (store: Store) => Effect.Effect<A, E, R>,
  settings: Partial<MemoryConfig.Settings> = {}
) =>
  MemoryStore.MemoryStore.use(body).pipe(
    Effect.provide(storeLayer(root, { settings: { ...testSettings, ...settings } }))
  )

const read = (root: string, file: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    return yield* fs.readFileString(path.join(root, file))
  })

const exists = (root: string, file: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.exists(`${root}/${file}`))

const write = (root: string, file: string, content: string | Uint8Array) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    yield* fs.makeDirectory(path.dirname(path.join(root, file)), { recursive: true })
    yield* typeof content === "string"
      ? fs.writeFileString(path.join(root, file), content)
      : fs.writeFile(path.join(root, file), content)
  })

const entryTexts = (view: MemoryStore.ScopeView) =>
  view.files.flatMap((file) => file.parsed.entries.map((entry) => entry.text))

/** A journal line without its id (checked to be there), to compare the rest. */
const withoutId = ({ id, ...line }: MemoryRoot.JournalLine) => {
  assert.isString(id)
  return line
}

/** Bytes that are not valid UTF-8. */
const notText = new Uint8Array([0x23, 0x20, 0x4d, 0x0a, 0x2d, 0x20, 0xc3, 0x28, 0x0a])

/** A test on the real file system, with the test clock at noon UTC on 2026-11-06. */
const test = <A, E>(name: string, body: () => Effect.Effect<A, E, FileSystem.FileSystem | Path.Path | Scope.Scope>) =>
  it.effect(name, () => TestClock.setTime(noon).pipe(Effect.andThen(body), Effect.provide(NodeServices.layer)))

describe("the time zone", () => {
  test("a store that only reads never looks the time zone up; the first date written does, once", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      let lookups = 0
      const settings = Object.defineProperty({ ...testSettings }, "timeZone", {
        enumerable: true,
        get: () => (lookups++, "UTC")
      }) as Partial<MemoryConfig.Settings>
      const use = <A, E>(body: (store: Store) => Effect.Effect<A, E>) =>
        MemoryStore.MemoryStore.use(body).pipe(Effect.provide(storeLayer(root, { settings })))
      yield* use((store) => store.load(own))
      assert.strictEqual(lookups, 0)
      yield* use((store) =>
        Effect.andThen(
          store.add({ scope: own, text: "first", actor: "t" }),
          store.add({ scope: own, text: "second", actor: "t" })
        )
      )
      assert.strictEqual(lookups, 1)
      assert.deepStrictEqual(entryTexts(yield* use((store) => store.load(own))), ["first", "second"])
    }))
})

describe("scopes and paths on disk", () => {
  test("an agent id that is not a safe name gets a slug and a hash for its folder, and stays in the root", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const ids = ["../x", "/etc/passwd", "a\u0000b", "x".repeat(129), "Ada Lovelace", "ünï", "a/b", ".."]
      for (const agentId of ids) {
        yield* at(root, (store) =>
          store.add({ scope: MemoryScope.own(agentId), text: `fact of ${agentId.length}`, actor: "t" })
        )
      }
      const files = (yield* listing(root)).filter((name) => name.endsWith("MEMORY.md"))
      assert.strictEqual(files.length, ids.length)
      for (const file of files) assert.match(file, /^agents\/([a-z0-9-]{1,40}-)?[0-9a-f]{12}\/MEMORY\.md$/)
      const hash = createHash("sha256").update("Ada Lovelace", "utf8").digest("hex").slice(0, 12)
      assert.include(files, `agents/ada-lovelace-${hash}/MEMORY.md`)
      yield* at(root, (store) => store.add({ scope: MemoryScope.own("Ada_01-x"), text: "kept by name", actor: "t" }))
      assert.include(yield* listing(root), "agents/Ada_01-x/MEMORY.md")
      assert.deepStrictEqual(entryTexts(yield* at(root, (store) => store.load(MemoryScope.own("../x")))), ["fact of 4"])
    }))

  test("a scope's folder gives MEMORY.md and its topic files by name; other names, files and subfolders are left out", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const empty = yield* at(root, (store) => store.load(own))
      assert.deepStrictEqual(empty, {
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
      yield* write(root, "agents/ada/MEMORY.md", "# Memory\n\n## Index\n- [[art]]\n- [[zoo]]\n")
      yield* write(root, "agents/ada/zoo.md", "# zoo\n- zebras\n")
      yield* write(root, "agents/ada/art.md", "# art\n- the user paints 🎨\n")
      yield* write(root, "agents/ada/Not A Topic.md", "- ignored\n")
      yield* write(root, "agents/ada/notes.txt", "- ignored\n")
      yield* write(root, "agents/ada/sub/inner.md", "- ignored\n")
      const loaded = yield* at(root, (store) => store.load(own))
      assert.deepStrictEqual(
        loaded.files.map((file) => [file.topic, file.file, file.size, file.exists]),
        [
          [undefined, "agents/ada/MEMORY.md", Text.length("# Memory\n\n## Index\n- [[art]]\n- [[zoo]]\n"), true],
          ["art", "agents/ada/art.md", Text.length("# art\n- the user paints 🎨\n"), true],
          ["zoo", "agents/ada/zoo.md", 15, true]
        ]
      )
      assert.deepStrictEqual(entryTexts(loaded), ["the user paints 🎨", "zebras"])
      assert.deepStrictEqual(loaded.unlinked, [])
    }))

  test("reading a root that does not exist yet creates nothing; the first write creates it", () =>
    Effect.gen(function* () {
      const path = yield* Path.Path
      const fs = yield* FileSystem.FileSystem
      const root = path.join(yield* tempRoot, "memory")
      assert.deepStrictEqual(entryTexts(yield* at(root, (store) => store.load(team))), [])
      assert.deepStrictEqual(yield* at(root, (store) => store.journal()), [])
      assert.deepStrictEqual(yield* at(root, (store) => store.agents), [])
      assert.isFalse(yield* fs.exists(root))
      yield* at(root, (store) => store.add({ scope: team, text: "first", actor: "t" }))
      assert.deepStrictEqual(
        (yield* listing(root)).filter((name) => !name.startsWith(".")),
        ["journal.jsonl", "team", "team/MEMORY.md"]
      )
    }))
})

describe("a batch over a file that cannot be read, or a root another writer holds", () => {
  test("a change to a topic file that cannot be read fails the batch, and nothing is written", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* write(root, "agents/ada/MEMORY.md", "# Memory\n\n## Index\n- [[bad]]\n")
      yield* write(root, "agents/ada/bad.md", notText)
      const error = yield* at(root, (store) =>
        Effect.flip(
          store.apply([
            { op: "add", scope: own, text: "fine", actor: "t" },
            { op: "add", scope: own, topic: "bad", text: "refused", actor: "t" }
          ])
        )
      )
      assert.strictEqual(error._tag, "StorageError")
      assert.strictEqual(error.reason._tag, "NotText")
      assert.strictEqual(
        error.message,
        "agents/ada/bad.md is not valid UTF-8 text; fix or remove it by hand (nothing was changed)"
      )
      assert.strictEqual(yield* read(root, "agents/ada/MEMORY.md"), "# Memory\n\n## Index\n- [[bad]]\n")
      assert.isFalse(yield* exists(root, "journal.jsonl"))
    }))

  test("a batch of changes that all fail their checks takes no writer and writes nothing", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      // Another live writer holds the root's lock: any change that took the writer would fail at once with Busy.
      const holder = { version: 1, pid: 999, host: "test-host", since: noon, token: "other" }
      yield* write(root, ".lock", JSON.stringify(holder))
      const busy = <A, E>(body: (store: Store) => Effect.Effect<A, E>) =>
        MemoryStore.MemoryStore.use(body).pipe(
          Effect.provide(
            storeLayer(root, { settings: testSettings, lock: { wait: 0 }, platform: { alive: [4242, 999] } })
          )
        )
      const results = yield* busy((store) =>
        store.apply([
          { op: "add", scope: own, text: "", actor: "t" },
          { op: "remove", scope: own, topic: "con", match: "x", actor: "t" }
        ])
      )
      assert.deepStrictEqual(
        results.map((result) => (Result.isFailure(result) ? result.failure._tag : "ok")),
        ["Denied", "BadTopic"]
      )
      const taken = yield* busy((store) => Effect.flip(store.add({ scope: own, text: "fine", actor: "t" })))
      assert.strictEqual(taken._tag, "StorageError")
      assert.strictEqual(taken._tag === "StorageError" ? taken.reason._tag : "", "Busy")
      assert.match(taken.message, /^the memory root is busy: process 999 on test-host/)
      assert.deepStrictEqual(yield* listing(root), [".lock"])
    }))
})

describe("odd files (issue 8 items 17 and 22)", () => {
  test("a topic file that cannot be read blocks nothing else; a write to it is refused with its message", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* write(root, "agents/ada/MEMORY.md", "# Memory\n\n- kept\n\n## Index\n- [[bad]]\n- [[good]]\n")
      yield* write(root, "agents/ada/good.md", "# good\n\n- a good fact\n")
      yield* write(root, "agents/ada/bad.md", notText)
      const loaded = yield* at(root, (store) => store.load(own))
      assert.deepStrictEqual(
        loaded.files.map((file) => file.file),
        ["agents/ada/MEMORY.md", "agents/ada/good.md"]
      )
      assert.deepStrictEqual(
        loaded.unreadable.map(({ file, error }) => [file, error.reason._tag]),
        [["agents/ada/bad.md", "NotText"]]
      )
      yield* at(root, (store) =>
        Effect.all([
          store.add({ scope: own, text: "more in memory", actor: "t" }),
          store.add({ scope: own, topic: "good", text: "another good fact", actor: "t" }),
          store.remove({ scope: own, match: "kept", actor: "t" })
        ])
      )
      const message = "agents/ada/bad.md is not valid UTF-8 text; fix or remove it by hand (nothing was changed)"
      const errors = yield* at(root, (store) =>
        Effect.all([
          Effect.flip(store.add({ scope: own, topic: "bad", text: "x", actor: "t" })),
          Effect.flip(store.replace({ scope: own, topic: "bad", match: "x", text: "y", actor: "t" })),
          Effect.flip(store.remove({ scope: own, topic: "bad", match: "x", actor: "t" }))
        ])
      )
      for (const error of errors) {
        assert.strictEqual(error._tag, "StorageError")
        assert.strictEqual(error.message, message)
      }
      const view = yield* at(root, (store) => store.view("ada"))
      assert.deepStrictEqual(
        view.entries.map((entry) => entry.text),
        ["more in memory", "a good fact", "another good fact"]
      )
      const fs = yield* FileSystem.FileSystem
      assert.deepStrictEqual(yield* fs.readFile(`${root}/agents/ada/bad.md`), notText)
    }))
})

describe("hand-edited files", () => {
  test("a hand-written title and notes in MEMORY.md survive every operation", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const handWritten = [
        "# Ada's memory — kept by hand too",
        "",
        "A note I wrote myself: keep this line exactly.   ",
        "",
        "* a hand-written entry",
        "",
        "## Index",
        "Topics below, one a line.",
        ""
      ]
      yield* write(root, "agents/ada/MEMORY.md", handWritten.join("\r\n"))
      yield* at(root, (store) =>
        Effect.gen(function* () {
          yield* store.add({ scope: own, text: "added one", actor: "t" })
          yield* store.add({ scope: own, topic: "work", text: "works at a bakery", actor: "t" })
          yield* store.replace({ scope: own, match: "added one", text: "added, then changed", actor: "t" })
          yield* store.replace({
            scope: own,
            match: "hand-written entry",
            text: "a hand-written entry, edited",
            actor: "t"
          })
          yield* store.remove({ scope: own, match: "added, then changed", actor: "t" })
          yield* store.remove({ scope: own, topic: "work", match: "bakery", actor: "t" })
        })
      )
      const lines = (yield* read(root, "agents/ada/MEMORY.md")).split("\n")
      for (const line of [
        "# Ada's memory — kept by hand too",
        "A note I wrote myself: keep this line exactly.   ",
        "Topics below, one a line."
      ]) {
        assert.include(lines, line)
      }
      assert.include(lines, "- a hand-written entry, edited [added: 2026-11-06]")
      assert.notInclude(lines.join("\n"), "\r")
    }))

  test("an edit made in place on disk between two operations is kept", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (store) =>
        Effect.gen(function* () {
          yield* store.add({ scope: team, text: "one", actor: "t" })
          const before = yield* read(root, "team/MEMORY.md")
          yield* write(root, "team/MEMORY.md", before.replace("\n\n## Index", "\n- typed by a person\n\n## Index"))
          yield* store.add({ scope: team, text: "two", actor: "t" })
        })
      )
      assert.deepStrictEqual(entryTexts(yield* at(root, (store) => store.load(team))), [
        "one",
        "typed by a person",
        "two"
      ])
    }))

  test("a file a change has just written and a person then rewrote at once, keeping its size, is read as they left it", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (store) =>
        Effect.gen(function* () {
          yield* store.add({ scope: team, text: "one", actor: "t" })
          yield* store.replace({ scope: team, match: "one", text: "two", actor: "t" })
          const written = yield* read(root, "team/MEMORY.md")
          yield* write(root, "team/MEMORY.md", written.replace("- two", "- 2wo"))
          assert.deepStrictEqual(entryTexts(yield* store.load(team)), ["2wo"])
          yield* store.add({ scope: team, text: "three", actor: "t" })
          assert.deepStrictEqual(entryTexts(yield* store.load(team)), ["2wo", "three"])
        })
      )
    }))

  test("a MEMORY.md that is not valid UTF-8 is a StorageError naming it, and is left as it is", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* write(root, "agents/ada/MEMORY.md", notText)
      const errors = yield* at(root, (store) =>
        Effect.all([
          Effect.flip(store.load(own)),
          Effect.flip(store.view("ada")),
          Effect.flip(store.add({ scope: own, text: "x", actor: "t" })),
          Effect.flip(store.remove({ scope: own, match: "x", actor: "t" }))
        ])
      )
      for (const error of errors) {
        assert.strictEqual(error._tag, "StorageError")
        assert.strictEqual(
          error.message,
          "agents/ada/MEMORY.md is not valid UTF-8 text; fix or remove it by hand (nothing was changed)"
        )
      }
      const fs = yield* FileSystem.FileSystem
      assert.deepStrictEqual(yield* fs.readFile(`${root}/agents/ada/MEMORY.md`), notText)
      assert.deepStrictEqual(
        (yield* listing(root)).filter((name) => !name.startsWith(".")),
        ["agents", "agents/ada", "agents/ada/MEMORY.md"]
      )
    }))
})

describe("the root's boundary", () => {
  test("a scope folder that is a link to a place outside the root is neither read nor written", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* tempRoot
      const outside = yield* tempRoot
      yield* write(outside, "MEMORY.md", "# Outside\n- secret plans\n")
      yield* fs.makeDirectory(`${root}/agents`)
      yield* fs.symlink(outside, `${root}/agents/eve`)
      const scope = MemoryScope.own("eve")
      const errors = yield* at(root, (store) =>
        Effect.all([
          Effect.flip(store.add({ scope, text: "planted", actor: "t" })),
          Effect.flip(store.remove({ scope, match: "secret plans", actor: "t" })),
          Effect.flip(store.load(scope)),
          Effect.flip(store.archive("eve"))
        ])
      )
      for (const error of errors) {
        assert.strictEqual(error._tag, "StorageError")
        assert.strictEqual(error._tag === "StorageError" ? error.reason._tag : "", "OutsideRoot")
        assert.match(error.message, /^agents\/eve.* outside the memory root; nothing there is read or written$/)
      }
      assert.deepStrictEqual(yield* listing(outside), ["MEMORY.md"])
      assert.strictEqual(yield* read(outside, "MEMORY.md"), "# Outside\n- secret plans\n")
    }))

  test("a topic, MEMORY.md or journal that links outside the root is refused before anything is written", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* tempRoot
      const outside = yield* tempRoot
      yield* write(outside, "t.md", "# t\n- outside fact\n")
      yield* write(root, "team/MEMORY.md", "# Memory\n\n## Index\n")
      yield* fs.symlink(`${outside}/t.md`, `${root}/team/t.md`)
      const topic = yield* at(root, (store) =>
        Effect.flip(store.remove({ scope: team, topic: "t", match: "outside", actor: "t" }))
      )
      assert.strictEqual(topic._tag, "StorageError")
      assert.strictEqual(topic._tag === "StorageError" ? topic.reason._tag : "", "OutsideRoot")
      assert.match(topic.message, /^team\/t\.md .* outside the memory root; nothing there is read or written$/)
      yield* fs.remove(`${root}/team/t.md`)
      yield* fs.symlink(`${outside}/journal.jsonl`, `${root}/journal.jsonl`)
      const journal = yield* at(root, (store) => Effect.flip(store.add({ scope: team, text: "x", actor: "t" })))
      assert.strictEqual(journal._tag, "StorageError")
      assert.match(journal.message, /^journal\.jsonl .*; nothing there is read or written$/)
      assert.strictEqual(yield* read(root, "team/MEMORY.md"), "# Memory\n\n## Index\n")
      yield* fs.remove(`${root}/journal.jsonl`)
      yield* fs.makeDirectory(`${root}/agents/bob`, { recursive: true })
      yield* fs.symlink(`${outside}/t.md`, `${root}/agents/bob/MEMORY.md`)
      const memory = yield* at(root, (store) =>
        Effect.flip(store.add({ scope: MemoryScope.own("bob"), text: "x", actor: "t" }))
      )
      assert.strictEqual(memory._tag, "StorageError")
      assert.match(
        memory.message,
        /^agents\/bob\/MEMORY\.md .* outside the memory root; nothing there is read or written$/
      )
      assert.deepStrictEqual(yield* listing(outside), ["t.md"])
      assert.strictEqual(yield* read(outside, "t.md"), "# t\n- outside fact\n")
    }))
})

describe("atomic writes", () => {
  for (const call of ["open", "writeAll", "sync", "rename"] as const) {
    test(`a failed ${call} leaves the old file whole, no temporary file and no journal line`, () =>
      Effect.gen(function* () {
        const path = yield* Path.Path
        const root = yield* tempRoot
        yield* at(root, (store) => store.add({ scope: own, topic: "pets", text: "Has a cat", actor: "t" }))
        const before = yield* listing(root)
        const memory = yield* read(root, "agents/ada/MEMORY.md")
        const pets = yield* read(root, "agents/ada/pets.md")
        const journal = yield* read(root, "journal.jsonl")
        const failing = failingServices((c, file) => c === call && path.basename(file).includes("pets.md"))
        const errors = yield* at(root, (store) =>
          Effect.all([
            Effect.flip(store.add({ scope: own, topic: "pets", text: "Has a dog", actor: "t" })),
            Effect.flip(store.replace({ scope: own, topic: "pets", match: "cat", text: "Has two cats", actor: "t" }))
          ])
        ).pipe(Effect.provide(failing))
        for (const error of errors) {
          assert.strictEqual(error._tag, "StorageError")
          assert.strictEqual(error._tag === "StorageError" ? error.reason._tag : "", "WriteFailed")
          assert.match(error.message, /^agents\/ada\/pets\.md: could not write it \(nothing was changed\): /)
        }
        assert.deepStrictEqual(yield* listing(root), before)
        assert.strictEqual(yield* read(root, "agents/ada/MEMORY.md"), memory)
        assert.strictEqual(yield* read(root, "agents/ada/pets.md"), pets)
        assert.strictEqual(yield* read(root, "journal.jsonl"), journal)
      }))
  }

  for (const [call, name] of [
    ["open", "reviewed.json"],
    ["sync", "reviewed.json"],
    ["rename", "reviewed.json"],
    ["rename", "MEMORY.md"]
  ] as const) {
    test(`a batch with the review state: a failed ${call} of ${name} leaves the files, the journal and the state as they were`, () =>
      Effect.gen(function* () {
        const path = yield* Path.Path
        const root = yield* tempRoot
        yield* at(root, (store) =>
          Effect.andThen(
            store.add({ scope: own, topic: "pets", text: "Has a cat", actor: "t" }),
            applyWith(store, [], (state) => ({ ...state, cursors: { "chat:c": 1 } }))
          )
        )
        const files = ["agents/ada/MEMORY.md", "agents/ada/pets.md", "journal.jsonl", "reviewed.json"]
        const snapshot = Effect.all([listing(root), ...files.map((file) => read(root, file))])
        const before = yield* snapshot
        const failing = failingServices((c, file) => c === call && path.basename(file).includes(name))
        const error = yield* at(root, (store) =>
          Effect.flip(
            applyWith(
              store,
              [
                { op: "add", scope: own, text: "Lives in Oslo", actor: "review" },
                { op: "replace", scope: own, topic: "pets", match: "cat", text: "Has two cats", actor: "review" }
              ],
              (state) => ({ ...state, cursors: { "chat:c": 2 } })
            )
          )
        ).pipe(Effect.provide(failing))
        assert.strictEqual(error.reason._tag, "WriteFailed")
        assert.deepStrictEqual(yield* snapshot, before)
        assert.include(before[4], `"chat:c":1`)
      }))
  }

  test("a failed removal of an emptied topic keeps it and its link", () =>
    Effect.gen(function* () {
      const path = yield* Path.Path
      const root = yield* tempRoot
      yield* at(root, (store) => store.add({ scope: own, topic: "pets", text: "Has a cat", actor: "t" }))
      const before = yield* listing(root)
      const memory = yield* read(root, "agents/ada/MEMORY.md")
      const failing = failingServices((c, file) => c === "remove" && path.basename(file).includes("pets.md"))
      const error = yield* at(root, (store) =>
        Effect.flip(store.remove({ scope: own, topic: "pets", match: "cat", actor: "t" }))
      ).pipe(Effect.provide(failing))
      assert.strictEqual(error._tag, "StorageError")
      assert.match(error.message, /^agents\/ada\/pets\.md: /)
      assert.deepStrictEqual(yield* listing(root), before)
      assert.strictEqual(yield* read(root, "agents/ada/MEMORY.md"), memory)
    }))
})

describe("one writer per root, across processes (the lock file)", () => {
  it.live("200 concurrent adds from separate fibers all land once each, and leave no temporary file or lock", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* concurrentAdds(rootLayer(root).pipe(Layer.provide(NodeServices.layer)))
      assert.deepStrictEqual(
        (yield* listing(root)).filter((name) => name.includes(".tmp") || name.includes(".lock")),
        []
      )
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.live("two processes adding 100 entries each to one root lose none", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const script = fileURLToPath(new URL("./fixtures/addMany.ts", import.meta.url))
      const run = (prefix: string) =>
        Effect.tryPromise(
          () =>
            new Promise<void>((resolve, reject) =>
              execFile(
                process.execPath,
                ["--conditions=@mneme/source", script, root, prefix, "100"],
                (error, _out, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve())
              )
            )
        )
      yield* Effect.all([run("first"), run("second")], { concurrency: 2 })
      const texts = entryTexts(yield* at(root, (store) => store.load(team)))
      const expected = ["first", "second"].flatMap((prefix) =>
        Array.from({ length: 100 }, (_, i) => `${prefix} fact ${i}`)
      )
      assert.deepStrictEqual([...texts].sort(), expected.sort())
      const journal = yield* at(root, (store) => store.journal())
      assert.strictEqual(journal.length, 200)
      assert.deepStrictEqual(journal.map((line) => line.actor).filter((actor) => actor === "first").length, 100)
      assert.isFalse(yield* exists(root, ".lock"))
    }).pipe(Effect.provide(NodeServices.layer))
  )
})

describe("the archive folder and the journal file", () => {
  test("archive moves the agent's folder whole under archive/, and journals it", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (store) =>
        Effect.all([
          store.add({ scope: own, text: "one", actor: "t" }),
          store.add({ scope: own, topic: "pets", text: "Has a cat", actor: "t" }),
          store.add({ scope: team, text: "team fact", actor: "t" })
        ])
      )
      const memory = yield* read(root, "agents/ada/MEMORY.md")
      const first = yield* at(root, (store) => store.archive("ada", { actor: "host" }))
      assert.strictEqual(first, "archive/ada-2026-11-06T12-00-00-000Z")
      assert.strictEqual(yield* read(root, `${first}/MEMORY.md`), memory)
      assert.strictEqual(yield* read(root, `${first}/pets.md`), "# pets\n\n- Has a cat [added: 2026-11-06]\n")
      assert.deepStrictEqual(entryTexts(yield* at(root, (store) => store.load(own))), [])
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

  test("the journal skips damaged lines with one warning", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (store) =>
        Effect.forEach(["a", "b", "c"], (text) => store.add({ scope: team, text, actor: "t" }), { discard: true })
      )
      const lines = (yield* read(root, "journal.jsonl")).split("\n")
      yield* write(
        root,
        "journal.jsonl",
        [lines[0], "{ broken", JSON.stringify({ version: 9, op: "add" }), lines[1], lines[2], ""].join("\n")
      )
      const logged = warnings()
      const all = yield* at(root, (store) => store.journal()).pipe(Effect.provide(logged.layer))
      assert.deepStrictEqual(
        all.map((line) => line.after),
        ["- a [added: 2026-11-06]", "- b [added: 2026-11-06]", "- c [added: 2026-11-06]"]
      )
      assert.deepStrictEqual(logged.lines, ["mneme: journal.jsonl has 2 damaged line(s), skipped (line 2, 3)"])
    }))
})

describe("a torn last journal line (issue 8 item 14)", () => {
  const torn =
    "mneme: the last line of journal.jsonl is torn (a writer was stopped while appending it) and is skipped; the next change starts a fresh line"
  /** What a writer killed mid-append leaves: the start of a record, no line break. */
  const fragment = '{"version":2,"id":"mp1-torn","time":1,"op":"add","scope":"team","file":"te'

  test("the next change's lines start on a fresh line, every complete record reads back, the torn tail is reported once", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (store) =>
        Effect.forEach(["a", "b"], (text) => store.add({ scope: team, text, actor: "t" }), { discard: true })
      )
      const complete = yield* read(root, "journal.jsonl")
      yield* write(root, "journal.jsonl", complete + fragment)
      const first = warnings()
      const before = yield* at(root, (store) => store.journal()).pipe(Effect.provide(first.layer))
      assert.deepStrictEqual(
        before.map((line) => line.after),
        ["- a [added: 2026-11-06]", "- b [added: 2026-11-06]"]
      )
      assert.deepStrictEqual(first.lines, [torn])
      // A new topic: two journal lines (the entry and the index link) in one append.
      yield* at(root, (store) => store.add({ scope: own, topic: "pets", text: "Has a cat", actor: "t" }))
      const text = yield* read(root, "journal.jsonl")
      assert.isTrue(text.startsWith(`${complete}${fragment}\n{`))
      assert.isTrue(text.endsWith("}\n"))
      const second = warnings()
      const after = yield* at(root, (store) => store.journal()).pipe(Effect.provide(second.layer))
      assert.deepStrictEqual(
        after.map((line) => [line.file, line.after]),
        [
          ["team/MEMORY.md", "- a [added: 2026-11-06]"],
          ["team/MEMORY.md", "- b [added: 2026-11-06]"],
          ["agents/ada/pets.md", "- Has a cat [added: 2026-11-06]"],
          ["agents/ada/MEMORY.md", "- [[pets]]"]
        ]
      )
      // The fragment now stands on a line of its own, between whole records: skipped as damaged, no longer torn.
      assert.deepStrictEqual(second.lines, ["mneme: journal.jsonl has 1 damaged line(s), skipped (line 3)"])
      yield* at(root, (store) => store.add({ scope: team, text: "c", actor: "t" }))
      const third = warnings()
      const last = yield* at(root, (store) => store.journal()).pipe(Effect.provide(third.layer))
      assert.deepStrictEqual(
        last.map((line) => line.after),
        [
          "- a [added: 2026-11-06]",
          "- b [added: 2026-11-06]",
          "- Has a cat [added: 2026-11-06]",
          "- [[pets]]",
          "- c [added: 2026-11-06]"
        ]
      )
      assert.deepStrictEqual(third.lines, ["mneme: journal.jsonl has 1 damaged line(s), skipped (line 3)"])
    }))

  test("a whole record whose line break was never written is kept, and so is the record appended after it", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (store) =>
        Effect.forEach(["a", "b"], (text) => store.add({ scope: team, text, actor: "t" }), { discard: true })
      )
      const complete = yield* read(root, "journal.jsonl")
      yield* write(root, "journal.jsonl", complete.slice(0, -1))
      const first = warnings()
      const before = yield* at(root, (store) => store.journal()).pipe(Effect.provide(first.layer))
      assert.deepStrictEqual(
        before.map((line) => line.after),
        ["- a [added: 2026-11-06]", "- b [added: 2026-11-06]"]
      )
      assert.deepStrictEqual(first.lines, [])
      yield* at(root, (store) => store.add({ scope: team, text: "c", actor: "t" }))
      const text = yield* read(root, "journal.jsonl")
      assert.isTrue(text.startsWith(complete))
      assert.strictEqual(text.split("\n").length, 4)
      const second = warnings()
      const after = yield* at(root, (store) => store.journal()).pipe(Effect.provide(second.layer))
      assert.deepStrictEqual(
        after.map((line) => line.after),
        ["- a [added: 2026-11-06]", "- b [added: 2026-11-06]", "- c [added: 2026-11-06]"]
      )
      assert.deepStrictEqual(second.lines, [])
    }))

  test("an archive after a torn tail journals on a fresh line too", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (store) => store.add({ scope: own, text: "one", actor: "t" }))
      const complete = yield* read(root, "journal.jsonl")
      yield* write(root, "journal.jsonl", complete + fragment)
      const to = yield* at(root, (store) => store.archive("ada", { actor: "host" }))
      assert.isTrue((yield* read(root, "journal.jsonl")).startsWith(`${complete}${fragment}\n{`))
      const logged = warnings()
      const lines = yield* at(root, (store) => store.journal()).pipe(Effect.provide(logged.layer))
      assert.deepStrictEqual(
        lines.map((line) => [line.op, line.file, line.after]),
        [
          ["add", "agents/ada/MEMORY.md", "- one [added: 2026-11-06]"],
          ["archive", "agents/ada", to]
        ]
      )
      assert.deepStrictEqual(logged.lines, ["mneme: journal.jsonl has 1 damaged line(s), skipped (line 2)"])
    }))
})

describe("agent ids that are Windows device names (issue 8 item 16)", () => {
  const sha = (text: string) => createHash("sha256").update(text, "utf8").digest("hex")
  /** Each id with the slug its folder starts with. */
  const devices = [
    ["con", "con"],
    ["CON", "con"],
    ["NUL", "nul"],
    ["lpt1", "lpt1"],
    ["com9.txt", "com9-txt"],
    ["aux", "aux"]
  ] as const

  test("each gets the slug-and-hash folder, never one named like the device, and no two share a folder", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* tempRoot
      for (const [agentId] of devices) {
        yield* at(root, (store) =>
          store.add({ scope: MemoryScope.own(agentId), text: `fact of ${agentId}`, actor: "t" })
        )
      }
      const expected = devices.map(([agentId, slug]) => `${slug}-${sha(agentId).slice(0, 12)}`)
      assert.strictEqual(new Set(expected).size, devices.length)
      const folders = (yield* fs.readDirectory(`${root}/agents`)).toSorted()
      assert.deepStrictEqual(folders, expected.toSorted())
      for (const folder of folders) assert.isFalse(Topic.isDeviceName(folder), folder)
      for (const [i, [agentId]] of devices.entries()) {
        const dir = `agents/${expected[i]}`
        assert.deepStrictEqual(JSON.parse(yield* read(root, `${dir}/agent.json`)), { version: 1, agentId })
        const loaded = yield* at(root, (store) => store.load(MemoryScope.own(agentId)))
        assert.strictEqual(loaded.dir, dir)
        assert.deepStrictEqual(entryTexts(loaded), [`fact of ${agentId}`])
      }
      const agents = yield* at(root, (store) => store.agents)
      assert.deepStrictEqual(
        agents.map((agent) => [agent.agentId, agent.dir]).sort(),
        devices.map(([agentId], i) => [agentId, `agents/${expected[i]}`]).sort()
      )
    }))

  test("a folder the earlier naming gave a device name is still read, and moved to its new folder on the first write", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const scope = MemoryScope.own("nul")
      const dir = `agents/nul-${sha("nul").slice(0, 12)}`
      yield* write(root, "agents/nul/MEMORY.md", "# Memory\n\n- an old fact\n\n## Index\n")
      assert.deepStrictEqual(entryTexts(yield* at(root, (store) => store.load(scope))), ["an old fact"])
      yield* at(root, (store) => store.add({ scope, text: "a new fact", actor: "t" }))
      assert.deepStrictEqual(
        (yield* listing(root)).filter((name) => name.startsWith("agents")),
        ["agents", dir, `${dir}/MEMORY.md`, `${dir}/agent.json`]
      )
      assert.strictEqual(
        yield* read(root, `${dir}/MEMORY.md`),
        "# Memory\n\n- an old fact\n- a new fact [added: 2026-11-06]\n\n## Index\n"
      )
      const loaded = yield* at(root, (store) => store.load(scope))
      assert.strictEqual(loaded.dir, dir)
      assert.deepStrictEqual(entryTexts(loaded), ["an old fact", "a new fact"])
    }))
})

describe("a change that cannot be journaled is not made (issue 8 item 20)", () => {
  /** A root with ada's MEMORY.md and topic "pets", and what they and the journal hold. */
  const seeded = Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const root = yield* tempRoot
    yield* at(root, (store) =>
      Effect.all([
        store.add({ scope: own, text: "kept", actor: "t" }),
        store.add({ scope: own, topic: "pets", text: "Has a cat", actor: "t" })
      ])
    )
    const bytes = (file: string) => fs.readFile(`${root}/${file}`)
    return {
      root,
      memory: yield* bytes("agents/ada/MEMORY.md"),
      pets: yield* bytes("agents/ada/pets.md"),
      bytes
    }
  })

  /** Every kind of change to ada's memory: to MEMORY.md, to a topic, a new topic, and an archive. */
  const changes = (store: Store) =>
    Effect.all([
      Effect.flip(store.add({ scope: own, text: "new fact", actor: "t" })),
      Effect.flip(store.add({ scope: own, topic: "pets", text: "Has a dog", actor: "t" })),
      Effect.flip(store.add({ scope: own, topic: "work", text: "Works at a bakery", actor: "t" })),
      Effect.flip(store.replace({ scope: own, match: "kept", text: "kept, edited", actor: "t" })),
      Effect.flip(store.remove({ scope: own, topic: "pets", match: "cat", actor: "t" })),
      Effect.flip(store.archive("ada"))
    ])

  test("a journal.jsonl that is a folder refuses every change, with the files byte for byte as they were", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const { root, memory, pets, bytes } = yield* seeded
      yield* fs.remove(`${root}/journal.jsonl`)
      yield* fs.makeDirectory(`${root}/journal.jsonl`)
      const before = yield* listing(root)
      const errors = yield* at(root, changes)
      for (const error of errors) {
        assert.strictEqual(error._tag, "StorageError")
        assert.strictEqual(error._tag === "StorageError" ? error.reason._tag : "", "WriteFailed")
        assert.strictEqual(
          error.message,
          "journal.jsonl: could not write it (nothing was changed): it is a folder, not a file"
        )
      }
      assert.deepStrictEqual(yield* listing(root), before)
      assert.deepStrictEqual(yield* bytes("agents/ada/MEMORY.md"), memory)
      assert.deepStrictEqual(yield* bytes("agents/ada/pets.md"), pets)
      yield* fs.remove(`${root}/journal.jsonl`, { recursive: true })
      yield* at(root, (store) => store.add({ scope: own, text: "new fact", actor: "t" }))
      assert.deepStrictEqual(entryTexts(yield* at(root, (store) => store.load(own))), ["kept", "new fact", "Has a cat"])
      assert.deepStrictEqual(
        (yield* at(root, (store) => store.journal())).map((line) => [line.file, line.after]),
        [["agents/ada/MEMORY.md", "- new fact [added: 2026-11-06]"]]
      )
    }))

  for (const call of ["open", "writeAll", "sync"] as const) {
    test(`a failed ${call} of the journal refuses every change, with the files and the journal as they were`, () =>
      Effect.gen(function* () {
        const path = yield* Path.Path
        const { root, memory, pets, bytes } = yield* seeded
        const journal = yield* bytes("journal.jsonl")
        const before = yield* listing(root)
        const failing = failingServices((c, file) => c === call && path.basename(file) === "journal.jsonl")
        const errors = yield* at(root, changes).pipe(Effect.provide(failing))
        for (const error of errors) {
          assert.strictEqual(error._tag, "StorageError")
          assert.strictEqual(error._tag === "StorageError" ? error.reason._tag : "", "WriteFailed")
          assert.strictEqual(
            error.message,
            "journal.jsonl: could not write it (nothing was changed): Unknown: injected failure"
          )
        }
        assert.deepStrictEqual(yield* listing(root), before)
        assert.deepStrictEqual(yield* bytes("agents/ada/MEMORY.md"), memory)
        assert.deepStrictEqual(yield* bytes("agents/ada/pets.md"), pets)
        assert.deepStrictEqual(yield* bytes("journal.jsonl"), journal)
        yield* at(root, (store) => store.add({ scope: own, topic: "pets", text: "Has a dog", actor: "t" }))
        assert.deepStrictEqual(entryTexts(yield* at(root, (store) => store.load(own))), [
          "kept",
          "Has a cat",
          "Has a dog"
        ])
        const lines = yield* at(root, (store) => store.journal())
        assert.deepStrictEqual(
          lines.map((line) => line.after),
          [
            "- kept [added: 2026-11-06]",
            "- Has a cat [added: 2026-11-06]",
            "- [[pets]]",
            "- Has a dog [added: 2026-11-06]"
          ]
        )
      }))
  }
})

describe("a symbolic link inside the root (issue 8 item 21)", () => {
  const linked = (path: string, target: string) =>
    `${path} is a link to ${target}; mneme does not write through links: replace the link with the file, or remove it`

  test("a MEMORY.md that links to another agent's is refused on write and on read, and the other is untouched", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* tempRoot
      yield* at(root, (store) => store.add({ scope: MemoryScope.own("y"), text: "y's fact", actor: "t" }))
      const theirs = yield* fs.readFile(`${root}/agents/y/MEMORY.md`)
      yield* fs.makeDirectory(`${root}/agents/x`)
      yield* fs.symlink("../y/MEMORY.md", `${root}/agents/x/MEMORY.md`)
      const before = yield* listing(root)
      const journal = yield* read(root, "journal.jsonl")
      const x = MemoryScope.own("x")
      const errors = yield* at(root, (store) =>
        Effect.all([
          Effect.flip(store.add({ scope: x, text: "planted", actor: "t" })),
          Effect.flip(store.add({ scope: x, topic: "pets", text: "Has a cat", actor: "t" })),
          Effect.flip(store.replace({ scope: x, match: "y's fact", text: "changed", actor: "t" })),
          Effect.flip(store.remove({ scope: x, match: "y's fact", actor: "t" })),
          Effect.flip(store.load(x)),
          Effect.flip(store.view("x"))
        ])
      )
      for (const error of errors) {
        assert.strictEqual(error._tag, "StorageError")
        assert.strictEqual(error._tag === "StorageError" ? error.reason._tag : "", "LinkedFile")
        assert.strictEqual(error.message, linked("agents/x/MEMORY.md", "agents/y/MEMORY.md"))
      }
      assert.strictEqual((yield* fs.stat(`${root}/agents/x/MEMORY.md`)).type, "File")
      assert.strictEqual(yield* fs.readLink(`${root}/agents/x/MEMORY.md`), "../y/MEMORY.md")
      assert.deepStrictEqual(yield* fs.readFile(`${root}/agents/y/MEMORY.md`), theirs)
      assert.deepStrictEqual(yield* listing(root), before)
      assert.strictEqual(yield* read(root, "journal.jsonl"), journal)
      assert.deepStrictEqual(entryTexts(yield* at(root, (store) => store.load(MemoryScope.own("y")))), ["y's fact"])
    }))

  test("a topic that links to another topic is refused on write and left out on read with its error", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* tempRoot
      const x = MemoryScope.own("x")
      yield* at(root, (store) =>
        Effect.all([
          store.add({ scope: MemoryScope.own("y"), topic: "pets", text: "y has a cat", actor: "t" }),
          store.add({ scope: x, topic: "cats", text: "x has a cat", actor: "t" })
        ])
      )
      const theirs = yield* fs.readFile(`${root}/agents/y/pets.md`)
      const cats = yield* fs.readFile(`${root}/agents/x/cats.md`)
      yield* fs.symlink("../y/pets.md", `${root}/agents/x/pets.md`)
      yield* fs.symlink("cats.md", `${root}/agents/x/dogs.md`)
      const loaded = yield* at(root, (store) => store.load(x))
      assert.deepStrictEqual(
        loaded.files.map((file) => file.file),
        ["agents/x/MEMORY.md", "agents/x/cats.md"]
      )
      assert.deepStrictEqual(
        loaded.unreadable.map(({ file, error }) => [file, error.reason._tag, error.message]),
        [
          ["agents/x/dogs.md", "LinkedFile", linked("agents/x/dogs.md", "agents/x/cats.md")],
          ["agents/x/pets.md", "LinkedFile", linked("agents/x/pets.md", "agents/y/pets.md")]
        ]
      )
      const journal = yield* read(root, "journal.jsonl")
      for (const [topic, target] of [
        ["pets", "agents/y/pets.md"],
        ["dogs", "agents/x/cats.md"]
      ] as const) {
        const errors = yield* at(root, (store) =>
          Effect.all([
            Effect.flip(store.add({ scope: x, topic, text: "planted", actor: "t" })),
            Effect.flip(store.replace({ scope: x, topic, match: "has a cat", text: "changed", actor: "t" })),
            Effect.flip(store.remove({ scope: x, topic, match: "has a cat", actor: "t" }))
          ])
        )
        for (const error of errors) {
          assert.strictEqual(error._tag, "StorageError")
          assert.strictEqual(error._tag === "StorageError" ? error.reason._tag : "", "LinkedFile")
          assert.strictEqual(error.message, linked(`agents/x/${topic}.md`, target))
        }
      }
      assert.deepStrictEqual(yield* fs.readFile(`${root}/agents/y/pets.md`), theirs)
      assert.deepStrictEqual(yield* fs.readFile(`${root}/agents/x/cats.md`), cats)
      assert.strictEqual(yield* fs.readLink(`${root}/agents/x/pets.md`), "../y/pets.md")
      assert.strictEqual(yield* fs.readLink(`${root}/agents/x/dogs.md`), "cats.md")
      assert.strictEqual(yield* read(root, "journal.jsonl"), journal)
    }))
})
