import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { MemoryConfig, MemoryFile, Scope as Scopes, Text, Topic } from "@mneme/core"
import { MemoryRoot, MemoryStore, ReviewState } from "@mneme/review"
import { Effect, FileSystem, Layer, Path, Result, type Scope } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import { execFile } from "node:child_process"
import { createHash } from "node:crypto"
import { fileURLToPath } from "node:url"
import { failingServices, listing, tempRoot, warnings } from "./fixtures/kit.ts"
import { rootLayer, storeLayer } from "./fixtures/store.ts"

type Store = MemoryStore.MemoryStore["Service"]

const own = Scopes.own("ada")
const team = Scopes.team
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

describe("scopes and paths", () => {
  test("an agent id that is not a safe name gets a slug and a hash for its folder, and stays in the root", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const ids = ["../x", "/etc/passwd", "a\u0000b", "x".repeat(129), "Ada Lovelace", "ünï", "a/b", ".."]
      for (const agentId of ids) {
        yield* at(root, (store) =>
          store.add({ scope: Scopes.own(agentId), text: `fact of ${agentId.length}`, actor: "t" })
        )
      }
      const files = (yield* listing(root)).filter((name) => name.endsWith("MEMORY.md"))
      assert.strictEqual(files.length, ids.length)
      for (const file of files) assert.match(file, /^agents\/([a-z0-9-]{1,40}-)?[0-9a-f]{12}\/MEMORY\.md$/)
      const hash = createHash("sha256").update("Ada Lovelace", "utf8").digest("hex").slice(0, 12)
      assert.include(files, `agents/ada-lovelace-${hash}/MEMORY.md`)
      yield* at(root, (store) => store.add({ scope: Scopes.own("Ada_01-x"), text: "kept by name", actor: "t" }))
      assert.include(yield* listing(root), "agents/Ada_01-x/MEMORY.md")
      assert.deepStrictEqual(entryTexts(yield* at(root, (store) => store.load(Scopes.own("../x")))), ["fact of 4"])
    }))

  test("loading a scope gives MEMORY.md first (empty when missing), then its topics by name", () =>
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

describe("add", () => {
  test("adds to a new MEMORY.md, dated from the clock, and journals the line", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
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
      const content = yield* read(root, "agents/ada/MEMORY.md")
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

  test("the added date is today in the configured time zone, and a given date is kept", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* TestClock.setTime(Date.UTC(2026, 10, 6, 23, 30))
      yield* at(root, (store) => store.add({ scope: own, text: "east", actor: "t" }), { timeZone: "Asia/Shanghai" })
      yield* at(root, (store) => store.add({ scope: own, text: "west", actor: "t" }), {
        timeZone: "America/Los_Angeles"
      })
      yield* at(root, (store) => store.add({ scope: own, text: "given", meta: [["added", "2020-01-02"]], actor: "t" }))
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

  test("the same text anywhere in the scope (white space folded, case ignored) changes nothing", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (store) => store.add({ scope: own, topic: "food", text: "The user likes   TEA", actor: "t" }))
      const before = yield* listing(root)
      const memory = yield* read(root, "agents/ada/MEMORY.md")
      const journal = yield* read(root, "journal.jsonl")
      const outcome = yield* at(root, (store) => store.add({ scope: own, text: "the user likes tea", actor: "t" }))
      assert.deepStrictEqual(outcome, {
        op: "add",
        changed: false,
        scope: own,
        topic: "food",
        file: "agents/ada/food.md",
        message: 'nothing changed: agents/ada/food.md already holds "The user likes TEA"'
      })
      assert.deepStrictEqual(yield* listing(root), before)
      assert.strictEqual(yield* read(root, "agents/ada/MEMORY.md"), memory)
      assert.strictEqual(yield* read(root, "journal.jsonl"), journal)
      const other = yield* at(root, (store) => store.add({ scope: team, text: "the user likes tea", actor: "t" }))
      assert.isTrue(other.changed)
    }))

  test("adding to a new topic creates it and links it from the index, journaling both", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (store) => store.add({ scope: own, text: "in memory", actor: "t" }))
      const outcome = yield* at(root, (store) =>
        store.add({ scope: own, topic: " Travel  Plans.md ", text: "Goes to Oslo", actor: "t" })
      )
      assert.strictEqual(
        yield* read(root, "agents/ada/travel-plans.md"),
        "# travel-plans\n\n- Goes to Oslo [added: 2026-11-06]\n"
      )
      assert.strictEqual(
        yield* read(root, "agents/ada/MEMORY.md"),
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
        yield* read(root, "agents/ada/travel-plans.md"),
        "# travel-plans\n\n- Goes to Oslo [added: 2026-11-06]\n- Flies in May [added: 2026-11-06]\n"
      )
      assert.strictEqual((yield* read(root, "agents/ada/MEMORY.md")).split("[[travel-plans]]").length, 2)
    }))

  test("a MEMORY.md without an index gets one when a topic is created", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* write(root, "team/MEMORY.md", "# Team notes\n\n- shared fact\n")
      yield* at(root, (store) => store.add({ scope: team, topic: "tools", text: "Uses vim", actor: "t" }))
      assert.strictEqual(
        yield* read(root, "team/MEMORY.md"),
        "# Team notes\n\n- shared fact\n\n## Index\n- [[tools]]\n"
      )
    }))

  test("a new topic past the topic limit is TooManyTopics, and nothing is written", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const settings = { topicsMax: 2 }
      for (const topic of ["a", "b"]) {
        yield* at(root, (store) => store.add({ scope: team, topic, text: `about ${topic}`, actor: "t" }), settings)
      }
      const before = yield* listing(root)
      const memory = yield* read(root, "team/MEMORY.md")
      const error = yield* at(
        root,
        (store) => Effect.flip(store.add({ scope: team, topic: "c", text: "about c", actor: "t" })),
        settings
      )
      assert.strictEqual(error._tag, "TooManyTopics")
      assert.strictEqual(error.message, "team already has 2 topics: add to an existing topic, or remove one first")
      assert.deepStrictEqual(yield* listing(root), before)
      assert.strictEqual(yield* read(root, "team/MEMORY.md"), memory)
      const more = yield* at(
        root,
        (store) => store.add({ scope: team, topic: "b", text: "more on b", actor: "t" }),
        settings
      )
      assert.isTrue(more.changed)
    }))

  test("a topic name that is not one (a path, a device name, a secret) is BadTopic for every operation; nothing is written", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (store) => store.add({ scope: own, text: "fact", actor: "t" }))
      const before = yield* listing(root)
      const memory = yield* read(root, "agents/ada/MEMORY.md")
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
      assert.deepStrictEqual(yield* listing(root), before)
      assert.strictEqual(yield* read(root, "agents/ada/MEMORY.md"), memory)
    }))

  test("an entry memory cannot keep is Denied with its reason, and nothing is written", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (store) => store.add({ scope: own, text: "keep me", actor: "t" }))
      const memory = yield* read(root, "agents/ada/MEMORY.md")
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
      assert.strictEqual(yield* read(root, "agents/ada/MEMORY.md"), memory)
      assert.strictEqual((yield* at(root, (store) => store.journal())).length, 1)
    }))

  test("a change that takes a file past its size is MemoryFull, saying how full and how to make room", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const settings = { memoryMax: 120 }
      yield* at(root, (store) => store.add({ scope: own, text: "a fact of some length here", actor: "t" }), settings)
      yield* at(root, (store) => store.add({ scope: own, text: "another fact, long as well", actor: "t" }), settings)
      const memory = yield* read(root, "agents/ada/MEMORY.md")
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
      assert.strictEqual(yield* read(root, "agents/ada/MEMORY.md"), memory)
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
      assert.isFalse(yield* exists(root, "agents/ada/t.md"))
    }))

  test("a topic whose index link would overfill MEMORY.md is not created", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (store) => store.add({ scope: own, text: "x".repeat(60), actor: "t" }))
      const memory = yield* read(root, "agents/ada/MEMORY.md")
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
      assert.deepStrictEqual(
        (yield* listing(root)).filter((name) => !name.startsWith(".")),
        ["agents", "agents/ada", "agents/ada/MEMORY.md", "journal.jsonl"]
      )
    }))

  test("a MEMORY.md far past its size still loads, may shrink or keep its size, but does not grow", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const entries = Array.from({ length: 3000 }, (_, i) => `- hand-written fact number ${i} [added: 2026-01-01]`)
      yield* write(root, "team/MEMORY.md", `# Memory\n\n${entries.join("\n")}\n`)
      const loaded = yield* at(root, (store) => store.load(team))
      assert.strictEqual(loaded.files[0]!.parsed.entries.length, 3000)
      assert.isAbove(loaded.files[0]!.size, 100_000)
      const overFull = /^team\/MEMORY\.md would hold [\d,]+ of its 4,000 characters \(\d,\d{3}%\): remove or shorten/
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
      const texts = entryTexts(yield* at(root, (store) => store.load(team)))
      assert.strictEqual(texts.length, 2999)
      assert.deepStrictEqual(texts.slice(5, 10), [
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
    root: string,
    settings: Partial<MemoryConfig.Settings>,
    body: (store: Store) => Effect.Effect<A, E>
  ) =>
    MemoryStore.MemoryStore.use(body).pipe(
      Effect.provide(
        MemoryStore.layer.pipe(
          Layer.provide(rootLayer(root)),
          Layer.provide(MemoryConfig.layer({ timeZone: "UTC", ...settings }))
        )
      )
    )

  test("entryMax: a 50-character entry is refused under entryMax 20", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const error = yield* provided(root, { entryMax: 20 }, (store) =>
        Effect.flip(store.add({ scope: own, text: "x".repeat(50), actor: "t" }))
      )
      assert.strictEqual(error._tag, "Denied")
      assert.strictEqual(
        error.message,
        "memory cannot keep this entry: the entry is 50 characters, over the limit of 20"
      )
      assert.deepStrictEqual(yield* listing(root), [])
    }))

  test("memoryMax: an add past memoryMax 40 is MemoryFull", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const error = yield* provided(root, { memoryMax: 40 }, (store) =>
        Effect.flip(store.add({ scope: own, text: "a fact that takes MEMORY.md past forty", actor: "t" }))
      )
      assert.strictEqual(error._tag, "MemoryFull")
      assert.strictEqual(
        error.message,
        "agents/ada/MEMORY.md would hold 81 of its 40 characters (203%): remove or shorten entries, or move details into a topic, to make room"
      )
      assert.isFalse(yield* exists(root, "agents/ada/MEMORY.md"))
    }))

  test("topicMax: an add past topicMax 20 is MemoryFull", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const error = yield* provided(root, { topicMax: 20 }, (store) =>
        Effect.flip(store.add({ scope: own, topic: "t", text: "a fact past a small topic", actor: "t" }))
      )
      assert.strictEqual(error._tag, "MemoryFull")
      assert.strictEqual(
        error.message,
        "agents/ada/t.md would hold 53 of its 20 characters (265%): remove or shorten entries, or move details into a topic, to make room"
      )
      assert.isFalse(yield* exists(root, "agents/ada/t.md"))
    }))

  test("topicsMax: a second topic under topicsMax 1 is TooManyTopics", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
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
      assert.isFalse(yield* exists(root, "agents/ada/b.md"))
    }))
})

describe("replace and remove", () => {
  const seed = (root: string) =>
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

  test("replace keeps the entry's place and metadata, and journals before and after", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* seed(root)
      const outcome = yield* at(root, (store) =>
        store.replace({ scope: own, match: "coffee", text: "The user drinks coffee at 10", actor: "cli" })
      )
      const content = yield* read(root, "agents/ada/MEMORY.md")
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
        store.replace({ scope: own, match: "Lives in Oslo", text: "Lives in Oslo", meta: [["by", "bob"]], actor: "t" })
      )
      assert.strictEqual(withMeta.after, "- Lives in Oslo [by: bob; added: 2026-11-06]")
      const unchanged = yield* at(root, (store) =>
        store.replace({ scope: own, match: "Lives in Oslo", text: "Lives in  Oslo", meta: [["by", "bob"]], actor: "t" })
      )
      assert.deepStrictEqual(
        [unchanged.changed, unchanged.message],
        [false, 'nothing changed: agents/ada/MEMORY.md already holds "Lives in Oslo"']
      )
    }))

  test("a match is the exact text first, else the one entry containing it; none or several is NoMatch", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* seed(root)
      yield* at(root, (store) => store.add({ scope: own, text: "tea", actor: "t" }))
      const exact = yield* at(root, (store) => store.remove({ scope: own, match: "tea", actor: "t" }))
      assert.strictEqual(exact.before, "- tea [added: 2026-11-06]")
      const memory = yield* read(root, "agents/ada/MEMORY.md")
      const several = yield* at(root, (store) => Effect.flip(store.remove({ scope: own, match: "LIKES", actor: "t" })))
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
      assert.strictEqual(yield* read(root, "agents/ada/MEMORY.md"), memory)
      const quoted = yield* at(root, (store) =>
        store.remove({ scope: own, match: "- the user likes BLACK tea [source: c #1]", actor: "t" })
      )
      const size = Text.length(yield* read(root, "agents/ada/MEMORY.md"))
      assert.strictEqual(
        quoted.message,
        `removed from agents/ada/MEMORY.md: "The user likes black tea" (now ${size} of 4,000 characters)`
      )
    }))

  test("with exact, replace and remove change only the entry with exactly that text (issue 8 item 1)", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (store) =>
        Effect.forEach(["Likes tea", "Likes tea with milk"], (text) => store.add({ scope: own, text, actor: "t" }), {
          discard: true
        })
      )
      const removed = yield* at(root, (store) =>
        store.remove({ scope: own, match: "Likes tea", exact: true, actor: "t" })
      )
      assert.strictEqual(removed.before, "- Likes tea [added: 2026-11-06]")
      const memory = yield* read(root, "agents/ada/MEMORY.md")
      const errors = yield* at(root, (store) =>
        Effect.all([
          Effect.flip(store.remove({ scope: own, match: "Likes tea", exact: true, actor: "t" })),
          Effect.flip(
            store.replace({ scope: own, match: "Likes tea", exact: true, text: "The user prefers coffee", actor: "t" })
          )
        ])
      )
      for (const error of errors) {
        assert.strictEqual(error._tag, "NoMatch")
        assert.strictEqual(error.message, 'no entry in agents/ada/MEMORY.md holds "Likes tea"')
      }
      assert.strictEqual(yield* read(root, "agents/ada/MEMORY.md"), memory)
      assert.include(memory, "- Likes tea with milk [added: 2026-11-06]")
      assert.strictEqual((yield* at(root, (store) => store.journal())).length, 3)
    }))

  test("NoMatch lists at most eight candidates", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (store) =>
        Effect.forEach(
          Array.from({ length: 11 }, (_, i) => i),
          (i) => store.add({ scope: team, text: `note ${i}`, actor: "t" }),
          { discard: true }
        )
      )
      const error = yield* at(root, (store) => Effect.flip(store.remove({ scope: team, match: "note", actor: "t" })))
      const candidates = Array.from({ length: 8 }, (_, i) => `note ${i}`)
      assert.strictEqual(error._tag, "NoMatch")
      assert.deepStrictEqual(error._tag === "NoMatch" ? error.candidates : [], candidates)
      assert.strictEqual(
        error.message,
        `"note" matches several entries in team/MEMORY.md; quote one of them whole:\n${candidates.map((text) => `- ${text}`).join("\n")}`
      )
    }))

  test("removing the last entry of a topic deletes the file and its index link; a topic with a note stays", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (store) =>
        Effect.all([
          store.add({ scope: own, text: "in memory", actor: "t" }),
          store.add({ scope: own, topic: "pets", text: "Has a cat", actor: "t" }),
          store.add({ scope: own, topic: "books", text: "Reads Tolstoy", actor: "t" })
        ])
      )
      yield* write(root, "agents/ada/books.md", `${yield* read(root, "agents/ada/books.md")}\nA note a person wrote.\n`)
      const outcome = yield* at(root, (store) => store.remove({ scope: own, topic: "pets", match: "cat", actor: "t" }))
      assert.strictEqual(
        outcome.message,
        'removed from agents/ada/pets.md: "Has a cat"; the topic "pets" had nothing left and is deleted, with its link in agents/ada/MEMORY.md'
      )
      assert.deepStrictEqual(
        (yield* listing(root)).filter((name) => name.startsWith("agents/ada/")),
        ["agents/ada/MEMORY.md", "agents/ada/books.md"]
      )
      assert.strictEqual(
        yield* read(root, "agents/ada/MEMORY.md"),
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
      assert.strictEqual(yield* read(root, "agents/ada/books.md"), "# books\n\nA note a person wrote.\n")
      assert.include(yield* read(root, "agents/ada/MEMORY.md"), "- [[books]]")
    }))

  test("a topic file with no heading is read, added to and emptied like any other", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* write(root, "team/MEMORY.md", "# Memory\n\n## Index\n- [[loose]]\n")
      yield* write(root, "team/loose.md", "- first loose fact\n")
      assert.deepStrictEqual(entryTexts(yield* at(root, (store) => store.load(team))), ["first loose fact"])
      yield* at(root, (store) => store.add({ scope: team, topic: "loose", text: "second", actor: "t" }))
      assert.strictEqual(yield* read(root, "team/loose.md"), "- first loose fact\n- second [added: 2026-11-06]\n")
      yield* at(root, (store) => store.remove({ scope: team, topic: "loose", match: "first loose fact", actor: "t" }))
      yield* at(root, (store) => store.remove({ scope: team, topic: "loose", match: "second", actor: "t" }))
      assert.deepStrictEqual(
        (yield* listing(root)).filter((name) => !name.startsWith(".")),
        ["journal.jsonl", "team", "team/MEMORY.md"]
      )
      assert.strictEqual(yield* read(root, "team/MEMORY.md"), "# Memory\n\n## Index\n")
    }))

  test("property: any adds to MEMORY.md and topics, then removing them all, give back the files byte for byte (issue 8 item 9)", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const start = {
        "agents/ada/MEMORY.md": "# Memory\n\nA note kept by hand.\n\n\n## Index\n- [[old]]\n",
        "agents/ada/old.md": "# old\n\n- an old fact\n"
      }
      for (const [file, text] of Object.entries(start)) yield* write(root, file, text)
      const cycle = (adds: ReadonlyArray<string | undefined>, reverse: boolean) =>
        at(root, (store) =>
          Effect.gen(function* () {
            const changes = adds.map((topic, i) => ({ topic, text: `fact number ${i}` }))
            for (const { topic, text } of changes) yield* store.add({ scope: own, topic, text, actor: "t" })
            for (const { topic, text } of reverse ? changes.toReversed() : changes) {
              yield* store.remove({ scope: own, topic, match: text, exact: true, actor: "t" })
            }
            for (const [file, text] of Object.entries(start)) assert.strictEqual(yield* read(root, file), text)
            const files = (yield* listing(root)).filter((name) => name.startsWith("agents/ada/"))
            assert.deepStrictEqual(files, Object.keys(start))
          })
        )
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(
            fc.array(fc.constantFrom(undefined, "old", "pets", "work"), { minLength: 1, maxLength: 8 }),
            fc.boolean(),
            (adds, reverse) => Effect.runPromise(cycle(adds, reverse).pipe(Effect.provide(NodeServices.layer)))
          ),
          { numRuns: 25 }
        )
      )
    }))
})

describe("a batch (apply)", () => {
  test("plans every change against the files read once; each file is written once and the journal appended once", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
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
        yield* read(root, "agents/ada/MEMORY.md"),
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
  test("load reports topic files the index does not link; an add to such a topic links it", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* write(root, "agents/ada/MEMORY.md", "# Memory\n\n- in memory\n\n## Index\n- [[books]]\n")
      yield* write(root, "agents/ada/books.md", "# books\n\n- Reads Tolstoy\n")
      yield* write(root, "agents/ada/pets.md", "# pets\n\n- Has a cat\n")
      const loaded = yield* at(root, (store) => store.load(own))
      assert.deepStrictEqual(
        loaded.unlinked.map((file) => file.file),
        ["agents/ada/pets.md"]
      )
      const outcome = yield* at(root, (store) =>
        store.add({ scope: own, topic: "pets", text: "Has a dog", actor: "t" })
      )
      const pets = Text.length(yield* read(root, "agents/ada/pets.md"))
      assert.strictEqual(
        outcome.message,
        `added to agents/ada/pets.md (now ${pets} of 16,000 characters): "Has a dog"; the topic "pets" was not linked and is now linked from agents/ada/MEMORY.md`
      )
      assert.strictEqual(
        yield* read(root, "agents/ada/MEMORY.md"),
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

  test("an edit by a person between two operations is kept", () =>
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
      const scope = Scopes.own("eve")
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
        Effect.flip(store.add({ scope: Scopes.own("bob"), text: "x", actor: "t" }))
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

  test("a failed removal of an emptied topic keeps it and its link", () =>
    Effect.gen(function* () {
      const path = yield* Path.Path
      const root = yield* tempRoot
      yield* at(root, (store) => store.add({ scope: own, topic: "pets", text: "Has a cat", actor: "t" }))
      const before = yield* listing(root)
      const memory = yield* read(root, "agents/ada/MEMORY.md")
      const failing = failingServices((c, file) => c === "remove" && path.basename(file) === "pets.md")
      const error = yield* at(root, (store) =>
        Effect.flip(store.remove({ scope: own, topic: "pets", match: "cat", actor: "t" }))
      ).pipe(Effect.provide(failing))
      assert.strictEqual(error._tag, "StorageError")
      assert.match(error.message, /^agents\/ada\/pets\.md: /)
      assert.deepStrictEqual(yield* listing(root), before)
      assert.strictEqual(yield* read(root, "agents/ada/MEMORY.md"), memory)
    }))
})

describe("one writer per root", () => {
  it.live("200 concurrent adds from separate fibers all land, each exactly once, with 200 journal lines", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const texts = Array.from({ length: 200 }, (_, i) => `concurrent fact ${i}`)
      const outcomes = yield* at(
        root,
        (store) =>
          Effect.forEach(
            texts,
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
      assert.deepStrictEqual(kept.flatMap(entryTexts).sort(), [...texts].sort())
      const journal = yield* at(root, (store) => store.journal())
      const entryLines = journal.filter((line) => !line.after?.startsWith("- [["))
      assert.strictEqual(entryLines.length, 200)
      assert.deepStrictEqual(
        entryLines.map((line) => line.after?.replace(/ \[added: .*\]$/, "").slice(2)).sort(),
        [...texts].sort()
      )
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

  it.live("store writes and review-state writes in one process run side by side without a deadlock", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const both = Layer.merge(MemoryStore.layer, ReviewState.layer).pipe(
        Layer.provide(rootLayer(root)),
        Layer.provide(MemoryConfig.layer({ memoryMax: 100_000 }))
      )
      yield* Effect.gen(function* () {
        const store = yield* MemoryStore.MemoryStore
        const state = yield* ReviewState.ReviewState
        yield* Effect.forEach(
          Array.from({ length: 80 }, (_, i) => i),
          (i) =>
            i % 2 === 0 ? store.add({ scope: team, text: `fact ${i}`, actor: "t" }) : state.setCursor(`chat:${i}`, i),
          { concurrency: "unbounded", discard: true }
        )
        assert.strictEqual(entryTexts(yield* store.load(team)).length, 40)
        assert.strictEqual(yield* state.cursor("chat:79"), 79)
      }).pipe(Effect.provide(both))
    }).pipe(Effect.provide(NodeServices.layer))
  )
})

describe("undo (issue 9)", () => {
  test("undo reverts the scope's last change, and with count the last N, newest first, journaling each", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* write(root, "agents/ada/MEMORY.md", "# Memory\n\n- old fact [added: 2026-01-01]\n\n## Index\n")
      const start = yield* read(root, "agents/ada/MEMORY.md")
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
            `undone: "old fact, edited" in agents/ada/MEMORY.md is again "old fact" (now ${Text.length(yield* read(root, "agents/ada/MEMORY.md"))} of 4,000 characters)`
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
      assert.strictEqual(yield* read(root, "agents/ada/MEMORY.md"), start)
      assert.isFalse(yield* exists(root, "agents/ada/pets.md"))
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

  test("undo of a remove puts the entry back, with its topic and link; undo by id names one change", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (store) =>
        Effect.gen(function* () {
          yield* store.add({ scope: own, topic: "pets", text: "Has a cat", actor: "t" })
          yield* store.add({ scope: own, text: "kept", actor: "t" })
        })
      )
      const before = {
        memory: yield* read(root, "agents/ada/MEMORY.md"),
        pets: yield* read(root, "agents/ada/pets.md")
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
      assert.strictEqual(yield* read(root, "agents/ada/pets.md"), before.pets)
      assert.strictEqual(
        yield* read(root, "agents/ada/MEMORY.md"),
        before.memory.replace("- kept [added: 2026-11-06]", "- kept [added: 2026-11-06]\n- later [added: 2026-11-06]")
      )
      const again = yield* at(root, (store) => Effect.flip(store.undo({ scope: own, id: removal.id!, actor: "cli" })))
      assert.strictEqual(again._tag, "NotUndoable")
      assert.strictEqual(
        again.message,
        "cannot undo the change to agents/ada/pets.md: it was undone already; nothing was changed"
      )
      const unknown = yield* at(root, (store) => Effect.flip(store.undo({ scope: own, id: "nope", actor: "cli" })))
      assert.strictEqual(unknown._tag, "StorageError")
      assert.strictEqual(unknown.message, 'agents/ada: the journal holds no change "nope" of this memory')
    }))

  test("undo is NotUndoable where a file no longer holds what the change wrote, and then changes nothing", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (store) =>
        Effect.gen(function* () {
          yield* store.add({ scope: own, text: "Likes tea", actor: "t" })
          yield* store.add({ scope: own, text: "Likes trains", actor: "t" })
        })
      )
      const memory = yield* read(root, "agents/ada/MEMORY.md")
      yield* write(root, "agents/ada/MEMORY.md", memory.replace("Likes tea [added: 2026-11-06]", "Likes tea a lot"))
      const edited = yield* read(root, "agents/ada/MEMORY.md")
      const journal = yield* read(root, "journal.jsonl")
      const error = yield* at(root, (store) => Effect.flip(store.undo({ scope: own, count: 2, actor: "cli" })))
      assert.strictEqual(error._tag, "NotUndoable")
      assert.strictEqual(
        error.message,
        'cannot undo the change to agents/ada/MEMORY.md: it no longer holds "- Likes tea [added: 2026-11-06]"; nothing was changed'
      )
      assert.strictEqual(yield* read(root, "agents/ada/MEMORY.md"), edited)
      assert.strictEqual(yield* read(root, "journal.jsonl"), journal)
    }))
})

describe("agents, archive, view and journal", () => {
  test("agents lists the root's agents with their folders, MEMORY.md sizes and topic counts", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (store) =>
        Effect.all([
          store.add({ scope: own, text: "one", actor: "t" }),
          store.add({ scope: own, topic: "pets", text: "Has a cat", actor: "t" }),
          store.add({ scope: Scopes.own("Bob Smith"), text: "bob's", actor: "t" }),
          store.add({ scope: team, text: "team fact", actor: "t" })
        ])
      )
      const agents = yield* at(root, (store) => store.agents)
      const bob = agents.find((agent) => agent.agentId === "Bob Smith")
      assert.deepStrictEqual(agents.map((agent) => [agent.agentId, agent.dir, agent.size, agent.topics]).sort(), [
        ["Bob Smith", bob?.dir, Text.length(yield* read(root, `${bob?.dir}/MEMORY.md`)), 0],
        ["ada", "agents/ada", Text.length(yield* read(root, "agents/ada/MEMORY.md")), 1]
      ])
      assert.match(bob?.dir ?? "", /^agents\/bob-smith-[0-9a-f]{12}$/)
    }))

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

  test("view gives every entry with its scope, topic and metadata, the MEMORY.md sizes and the limits", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
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
          { scope: "own", topic: undefined, text: "own fact", added: "2026-11-06", by: undefined, source: "chat #3" },
          { scope: "own", topic: "pets", text: "Has a cat", added: "2026-11-06", by: undefined, source: undefined },
          { scope: "team", topic: undefined, text: "team fact", added: "2026-11-06", by: "bob", source: undefined }
        ],
        sizes: {
          own: Text.length(yield* read(root, "agents/ada/MEMORY.md")),
          team: Text.length(yield* read(root, "team/MEMORY.md"))
        },
        limits: { entry: 300, memory: 5000, topic: 16000, topics: 40 }
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

  test("the journal is read oldest first, to a limit, and of one scope when asked", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (store) =>
        Effect.forEach(
          [
            [team, "a"],
            [own, "b"],
            [team, "c"],
            [Scopes.own("bob"), "d"]
          ] as const,
          ([scope, text]) => store.add({ scope, text, actor: "t" }),
          { discard: true }
        )
      )
      const texts = (lines: ReadonlyArray<MemoryRoot.JournalLine>) =>
        lines.map((line) => MemoryFile.parse(line.after ?? "").entries[0]?.text)
      assert.deepStrictEqual(texts(yield* at(root, (store) => store.journal())), ["a", "b", "c", "d"])
      assert.deepStrictEqual(texts(yield* at(root, (store) => store.journal({ limit: 2 }))), ["c", "d"])
      assert.deepStrictEqual(texts(yield* at(root, (store) => store.journal({ scope: team }))), ["a", "c"])
      assert.deepStrictEqual(texts(yield* at(root, (store) => store.journal({ scope: own }))), ["b"])
      assert.deepStrictEqual(texts(yield* at(root, (store) => store.journal({ scope: team, limit: 1 }))), ["c"])
      assert.deepStrictEqual(yield* at(root, (store) => store.journal({ limit: 0 })), [])
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
        yield* at(root, (store) => store.add({ scope: Scopes.own(agentId), text: `fact of ${agentId}`, actor: "t" }))
      }
      const expected = devices.map(([agentId, slug]) => `${slug}-${sha(agentId).slice(0, 12)}`)
      assert.strictEqual(new Set(expected).size, devices.length)
      const folders = (yield* fs.readDirectory(`${root}/agents`)).toSorted()
      assert.deepStrictEqual(folders, expected.toSorted())
      for (const folder of folders) assert.isFalse(Topic.isDeviceName(folder), folder)
      for (const [i, [agentId]] of devices.entries()) {
        const dir = `agents/${expected[i]}`
        assert.deepStrictEqual(JSON.parse(yield* read(root, `${dir}/agent.json`)), { version: 1, agentId })
        const loaded = yield* at(root, (store) => store.load(Scopes.own(agentId)))
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
      const scope = Scopes.own("nul")
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
      yield* at(root, (store) => store.add({ scope: Scopes.own("y"), text: "y's fact", actor: "t" }))
      const theirs = yield* fs.readFile(`${root}/agents/y/MEMORY.md`)
      yield* fs.makeDirectory(`${root}/agents/x`)
      yield* fs.symlink("../y/MEMORY.md", `${root}/agents/x/MEMORY.md`)
      const before = yield* listing(root)
      const journal = yield* read(root, "journal.jsonl")
      const x = Scopes.own("x")
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
      assert.deepStrictEqual(entryTexts(yield* at(root, (store) => store.load(Scopes.own("y")))), ["y's fact"])
    }))

  test("a topic that links to another topic is refused on write and left out on read with its error", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* tempRoot
      const x = Scopes.own("x")
      yield* at(root, (store) =>
        Effect.all([
          store.add({ scope: Scopes.own("y"), topic: "pets", text: "y has a cat", actor: "t" }),
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
