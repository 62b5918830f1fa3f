import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { MemoryConfig, Text } from "@mneme/core"
import { Cursors, MemoryStore } from "@mneme/review"
import { Effect, FileSystem, Layer, Path, type Scope } from "effect"
import { TestClock } from "effect/testing"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { failingServices, listing, tempRoot, warnings } from "./fixtures/kit.ts"

type Store = MemoryStore.MemoryStore["Service"]

const own = { kind: "agent", agentId: "ada" } as const
const team = { kind: "team" } as const
const noon = Date.UTC(2026, 10, 6, 12)
const testSettings: Partial<MemoryConfig.Settings> = { timeZone: "UTC" }

/** Runs `body` with a store over `root` (a new instance each time) and the settings given over the test's own. */
const at = <A, E, R>(
  root: string,
  body: (store: Store) => Effect.Effect<A, E, R>,
  settings: Partial<MemoryConfig.Settings> = {}
) =>
  MemoryStore.MemoryStore.use(body).pipe(
    Effect.provide(MemoryStore.layer({ root })),
    Effect.provide(MemoryConfig.layer({ ...testSettings, ...settings }))
  )

const read = (root: string, file: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    return yield* fs.readFileString(path.join(root, file))
  })

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

/** A test on the real file system, with the test clock at noon UTC on 2026-11-06. */
const test = <A, E>(name: string, body: () => Effect.Effect<A, E, FileSystem.FileSystem | Path.Path | Scope.Scope>) =>
  it.effect(name, () => TestClock.setTime(noon).pipe(Effect.andThen(body), Effect.provide(NodeServices.layer)))

describe("scopes and paths", () => {
  test("an agent id that is not a safe name becomes 32 hex digits of its SHA-256, and stays in the root", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const ids = ["../x", "/etc/passwd", "a\u0000b", "x".repeat(129), "", "ünï", "a/b", ".."]
      for (const agentId of ids) {
        yield* at(root, (store) =>
          store.add({ scope: { kind: "agent", agentId }, text: `fact of ${agentId.length}`, actor: "t" })
        )
      }
      const files = (yield* listing(root)).filter((name) => name.endsWith("MEMORY.md"))
      assert.strictEqual(files.length, ids.length)
      for (const file of files) assert.match(file, /^agents\/[0-9a-f]{32}\/MEMORY\.md$/)
      yield* at(root, (store) =>
        store.add({ scope: { kind: "agent", agentId: "Ada_01-x" }, text: "kept by name", actor: "t" })
      )
      assert.include(yield* listing(root), "agents/Ada_01-x/MEMORY.md")
      assert.deepStrictEqual(entryTexts(yield* at(root, (store) => store.load({ kind: "agent", agentId: "../x" }))), [
        "fact of 4"
      ])
    }))

  test("loading a scope gives MEMORY.md first (empty when missing), then its topics by name", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const empty = yield* at(root, (store) => store.load(own))
      assert.deepStrictEqual(empty, {
        scope: own,
        files: [
          { topic: undefined, file: "agents/ada/MEMORY.md", parsed: { lines: [], entries: [], links: [] }, size: 0 }
        ]
      })
      yield* write(root, "agents/ada/zoo.md", "# zoo\n- zebras\n")
      yield* write(root, "agents/ada/art.md", "# art\n- the user paints 🎨\n")
      yield* write(root, "agents/ada/Not A Topic.md", "- ignored\n")
      yield* write(root, "agents/ada/notes.txt", "- ignored\n")
      yield* write(root, "agents/ada/sub/inner.md", "- ignored\n")
      const loaded = yield* at(root, (store) => store.load(own))
      assert.deepStrictEqual(
        loaded.files.map((file) => [file.topic, file.file, file.size]),
        [
          [undefined, "agents/ada/MEMORY.md", 0],
          ["art", "agents/ada/art.md", Text.length("# art\n- the user paints 🎨\n")],
          ["zoo", "agents/ada/zoo.md", 15]
        ]
      )
      assert.deepStrictEqual(entryTexts(loaded), ["the user paints 🎨", "zebras"])
    }))

  test("reading a root that does not exist yet creates nothing; the first write creates it", () =>
    Effect.gen(function* () {
      const path = yield* Path.Path
      const fs = yield* FileSystem.FileSystem
      const root = path.join(yield* tempRoot, "memory")
      assert.deepStrictEqual(entryTexts(yield* at(root, (store) => store.load(team))), [])
      assert.deepStrictEqual(yield* at(root, (store) => store.journal()), [])
      assert.isFalse(yield* fs.exists(root))
      yield* at(root, (store) => store.add({ scope: team, text: "first", actor: "t" }))
      assert.deepStrictEqual(yield* listing(root), ["journal.jsonl", "team", "team/MEMORY.md"])
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
        message: `added to agents/ada/MEMORY.md (now ${Text.length(content)} of 4000 characters): "The user likes tea"`,
        after: line
      })
      assert.deepStrictEqual(yield* at(root, (store) => store.journal()), [
        {
          version: 1,
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
      yield* at(root, (store) => store.add({ scope: own, text: "nowhere", actor: "t" }), {
        timeZone: "Mars/Olympus"
      }).pipe(Effect.provide(logged.layer))
      const lines = (yield* at(root, (store) => store.load(own))).files[0]!.parsed.entries.map((e) => e.meta)
      assert.deepStrictEqual(lines, [
        [["added", "2026-11-07"]],
        [["added", "2026-11-06"]],
        [["added", "2020-01-02"]],
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
        'added to agents/ada/travel-plans.md (now 51 of 16000 characters): "Goes to Oslo"; the new topic "travel-plans" is linked from agents/ada/MEMORY.md'
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

  test("a topic name that is not one is BadTopic, for every operation, and nothing is written", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      for (const topic of ["../x", "/etc/passwd", "a\u0000b", "memory", "", "a.b", "x".repeat(49), "..\\x"]) {
        const errors = yield* at(root, (store) =>
          Effect.all([
            Effect.flip(store.add({ scope: own, topic, text: "fact", actor: "t" })),
            Effect.flip(store.replace({ scope: own, topic, match: "fact", text: "other", actor: "t" })),
            Effect.flip(store.remove({ scope: own, topic, match: "fact", actor: "t" }))
          ])
        )
        for (const error of errors) {
          assert.strictEqual(error._tag, "BadTopic")
          assert.strictEqual(
            error.message,
            `${JSON.stringify(topic)} is not a topic name: use 1-48 letters, digits, "_" or "-", starting with a letter or digit, not "memory"`
          )
        }
      }
      assert.deepStrictEqual(yield* listing(root), [])
    }))

  test("an entry memory cannot keep is Denied with its problem, and nothing is written", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (store) => store.add({ scope: own, text: "keep me", actor: "t" }))
      const memory = yield* read(root, "agents/ada/MEMORY.md")
      const cases = [
        ["x".repeat(301), "memory cannot keep this entry: the entry is 301 characters, over the limit of 300"],
        ["  - [added: 2026-01-01]", "memory cannot keep this entry: the entry is empty"],
        [
          "the key is sk-proj-4fT9aQ2mZx7LbV1nR8sK3wYc6JdP0hGe",
          "memory cannot keep this entry: the entry looks like a secret (a key, password or ID number), which memory never keeps"
        ]
      ] as const
      for (const [text, message] of cases) {
        const errors = yield* at(root, (store) =>
          Effect.all([
            Effect.flip(store.add({ scope: own, text, actor: "t" })),
            Effect.flip(store.replace({ scope: own, match: "keep me", text, actor: "t" }))
          ])
        )
        for (const error of errors) {
          assert.strictEqual(error._tag, "Denied")
          assert.strictEqual(error.message, message)
        }
      }
      const hostSecret = yield* at(
        root,
        (store) => Effect.flip(store.add({ scope: own, text: "codename bluebird", actor: "t" })),
        {
          isSecret: (text) => text.includes("bluebird")
        }
      )
      assert.strictEqual(hostSecret._tag, "Denied")
      assert.strictEqual(hostSecret.message, cases[2][1])
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
        {
          topicMax: 50
        }
      )
      assert.strictEqual(topic._tag, "MemoryFull")
      assert.include(topic.message, "agents/ada/t.md would hold ")
      assert.isFalse(yield* Effect.flatMap(FileSystem.FileSystem, (fs) => fs.exists(`${root}/agents/ada/t.md`)))
    }))

  test("a topic whose index link would overfill MEMORY.md is not created", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (store) => store.add({ scope: own, text: "x".repeat(60), actor: "t" }))
      const memory = yield* read(root, "agents/ada/MEMORY.md")
      const error = yield* at(
        root,
        (store) => Effect.flip(store.add({ scope: own, topic: "more", text: "details", actor: "t" })),
        {
          memoryMax: Text.length(memory) + 5
        }
      )
      assert.strictEqual(error._tag, "MemoryFull")
      assert.include(error.message, "agents/ada/MEMORY.md would hold ")
      assert.deepStrictEqual(yield* listing(root), ["agents", "agents/ada", "agents/ada/MEMORY.md", "journal.jsonl"])
    }))

  test("a MEMORY.md far past its size still loads, may shrink or keep its size, but does not grow", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const entries = Array.from({ length: 3000 }, (_, i) => `- hand-written fact number ${i} [added: 2026-01-01]`)
      yield* write(root, "team/MEMORY.md", `# Memory\n\n${entries.join("\n")}\n`)
      const loaded = yield* at(root, (store) => store.load(team))
      assert.strictEqual(loaded.files[0]!.parsed.entries.length, 3000)
      assert.isAbove(loaded.files[0]!.size, 100_000)
      const grow = yield* at(root, (store) => Effect.flip(store.add({ scope: team, text: "one more", actor: "t" })))
      assert.strictEqual(grow._tag, "MemoryFull")
      assert.match(
        grow.message,
        /^team\/MEMORY\.md would hold \d+ of its 4000 characters \(\d{4}%\): remove or shorten/
      )
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
      assert.match(
        longer.message,
        /^team\/MEMORY\.md would hold \d+ of its 4000 characters \(\d{4}%\): remove or shorten/
      )
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
      assert.strictEqual(
        yield* read(root, "agents/ada/MEMORY.md"),
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
      assert.match(
        outcome.message,
        /^replaced in agents\/ada\/MEMORY\.md \(now \d+ of 4000 characters\): "The user drinks coffee at 9" is now "The user drinks coffee at 10"$/
      )
      const [line] = yield* at(root, (store) => store.journal({ limit: 1 }))
      assert.deepStrictEqual(line, {
        version: 1,
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
        `removed from agents/ada/MEMORY.md: "The user likes black tea" (now ${size} of 4000 characters)`
      )
    }))

  test("NoMatch lists at most eight candidates", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (store) =>
        Effect.forEach(
          Array.from({ length: 11 }, (_, i) => i),
          (i) => store.add({ scope: team, text: `note ${i}`, actor: "t" }),
          {
            discard: true
          }
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
      assert.strictEqual(yield* read(root, "agents/ada/books.md"), "# books\n\n\nA note a person wrote.\n")
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
      assert.deepStrictEqual(yield* listing(root), ["journal.jsonl", "team", "team/MEMORY.md"])
      assert.strictEqual(yield* read(root, "team/MEMORY.md"), "# Memory\n\n## Index\n")
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

  test("a file that is not valid UTF-8 is a MemoryWriteError naming it, and is left as it is", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const bytes = new Uint8Array([0x23, 0x20, 0x4d, 0x0a, 0x2d, 0x20, 0xc3, 0x28, 0x0a])
      yield* write(root, "agents/ada/MEMORY.md", bytes)
      const errors = yield* at(root, (store) =>
        Effect.all([
          Effect.flip(store.load(own)),
          Effect.flip(store.view("ada")),
          Effect.flip(store.add({ scope: own, text: "x", actor: "t" })),
          Effect.flip(store.remove({ scope: own, match: "x", actor: "t" }))
        ])
      )
      for (const error of errors) {
        assert.strictEqual(error._tag, "MemoryWriteError")
        assert.strictEqual(
          error.message,
          "agents/ada/MEMORY.md: is not valid UTF-8 text; fix or remove it by hand (nothing was changed)"
        )
      }
      const fs = yield* FileSystem.FileSystem
      assert.deepStrictEqual(yield* fs.readFile(`${root}/agents/ada/MEMORY.md`), bytes)
      assert.deepStrictEqual(yield* listing(root), ["agents", "agents/ada", "agents/ada/MEMORY.md"])
    }))
})

describe("the root's boundary", () => {
  /** The end of the message that refuses a path whose link leads outside the root, as a pattern. */
  const throughLink = "leads through a link to .*, outside the memory root; nothing there is read or written"

  test("a scope folder that is a link to a place outside the root is neither read nor written", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* tempRoot
      const outside = yield* tempRoot
      yield* write(outside, "MEMORY.md", "# Outside\n- secret plans\n")
      yield* fs.makeDirectory(`${root}/agents`)
      yield* fs.symlink(outside, `${root}/agents/eve`)
      const scope = { kind: "agent", agentId: "eve" } as const
      const [add, remove] = yield* at(root, (store) =>
        Effect.all([
          Effect.flip(store.add({ scope, text: "planted", actor: "t" })),
          Effect.flip(store.remove({ scope, match: "secret plans", actor: "t" }))
        ])
      )
      for (const error of [add, remove]) {
        assert.strictEqual(error._tag, "Denied")
        assert.match(error.message, new RegExp(`^agents/eve(/MEMORY\\.md)? ${throughLink}$`))
      }
      const load = yield* at(root, (store) => Effect.flip(store.load(scope)))
      assert.strictEqual(load._tag, "MemoryWriteError")
      assert.match(load.message, new RegExp(`^\\.: agents/eve ${throughLink}$`))
      const archive = yield* at(root, (store) => Effect.flip(store.archive("eve")))
      assert.strictEqual(archive._tag, "MemoryWriteError")
      assert.match(archive.message, new RegExp(`^agents/eve: agents/eve ${throughLink}$`))
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
      assert.strictEqual(topic._tag, "Denied")
      assert.match(topic.message, new RegExp(`^team/t\\.md ${throughLink}$`))
      const load = yield* at(root, (store) => Effect.flip(store.load(team)))
      assert.strictEqual(load._tag, "MemoryWriteError")
      assert.match(load.message, new RegExp(`^\\.: team/t\\.md ${throughLink}$`))
      yield* fs.remove(`${root}/team/t.md`)
      yield* fs.symlink(`${outside}/journal.jsonl`, `${root}/journal.jsonl`)
      const journal = yield* at(root, (store) => Effect.flip(store.add({ scope: team, text: "x", actor: "t" })))
      assert.strictEqual(journal._tag, "Denied")
      assert.strictEqual(
        journal.message,
        "journal.jsonl is a link that leads nowhere; nothing there is read or written"
      )
      assert.strictEqual(yield* read(root, "team/MEMORY.md"), "# Memory\n\n## Index\n")
      yield* fs.remove(`${root}/journal.jsonl`)
      yield* fs.symlink(`${outside}/t.md`, `${root}/agents-md-link`)
      yield* fs.makeDirectory(`${root}/agents/bob`, { recursive: true })
      yield* fs.symlink(`${outside}/t.md`, `${root}/agents/bob/MEMORY.md`)
      const memory = yield* at(root, (store) =>
        Effect.flip(store.add({ scope: { kind: "agent", agentId: "bob" }, text: "x", actor: "t" }))
      )
      assert.strictEqual(memory._tag, "Denied")
      assert.match(memory.message, new RegExp(`^agents/bob/MEMORY\\.md ${throughLink}$`))
      assert.deepStrictEqual(yield* listing(outside), ["t.md"])
      assert.strictEqual(yield* read(outside, "t.md"), "# t\n- outside fact\n")
    }))

  test("a link that stays inside the root is followed", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* tempRoot
      yield* at(root, (store) => store.add({ scope: own, text: "shared through a link", actor: "t" }))
      yield* fs.symlink(`${root}/agents/ada`, `${root}/agents/ada-alias`)
      const loaded = yield* at(root, (store) => store.load({ kind: "agent", agentId: "ada-alias" }))
      assert.deepStrictEqual(entryTexts(loaded), ["shared through a link"])
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
          assert.strictEqual(error._tag, "MemoryWriteError")
          assert.match(
            error.message,
            /^agents\/ada\/pets\.md: could not write it \(the old file is unchanged\): Unknown: FileSystem\./
          )
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
      assert.strictEqual(error._tag, "MemoryWriteError")
      assert.match(error.message, /^agents\/ada\/pets\.md: could not remove it: /)
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
      assert.isFalse(yield* Effect.flatMap(FileSystem.FileSystem, (fs) => fs.exists(`${root}/.lock`)))
    }).pipe(Effect.provide(NodeServices.layer))
  )

  it.live("store writes and review-state writes in one process run side by side without a deadlock", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const both = Layer.merge(MemoryStore.layer({ root }), Cursors.layer({ root }))
      yield* Effect.gen(function* () {
        const store = yield* MemoryStore.MemoryStore
        const cursors = yield* Cursors.Cursors
        yield* Effect.forEach(
          Array.from({ length: 80 }, (_, i) => i),
          (i) =>
            i % 2 === 0 ? store.add({ scope: team, text: `fact ${i}`, actor: "t" }) : cursors.setCursor(`chat:${i}`, i),
          { concurrency: "unbounded", discard: true }
        )
        assert.strictEqual(entryTexts(yield* store.load(team)).length, 40)
        assert.strictEqual(yield* cursors.cursor("chat:79"), 79)
      }).pipe(Effect.provide(both), Effect.provide(MemoryConfig.layer({ memoryMax: 100_000 })))
    }).pipe(Effect.provide(NodeServices.layer))
  )
})

describe("archive, view and journal", () => {
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
      assert.strictEqual(again._tag, "MemoryWriteError")
      assert.strictEqual(again.message, "agents/ada: there is no memory folder to archive")
      yield* at(root, (store) => store.add({ scope: own, text: "two", actor: "t" }))
      assert.strictEqual(yield* at(root, (store) => store.archive("ada")), "archive/ada-2026-11-06T12-00-00-000Z-2")
      const [line] = yield* at(root, (store) => store.journal({ limit: 1 }))
      assert.deepStrictEqual(line, {
        version: 1,
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

  test("the journal is read newest last, to a limit, skipping damaged lines with one warning", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (store) =>
        Effect.forEach(["a", "b", "c"], (text) => store.add({ scope: team, text, actor: "t" }), { discard: true })
      )
      const fs = yield* FileSystem.FileSystem
      const lines = (yield* read(root, "journal.jsonl")).split("\n")
      yield* fs.writeFileString(
        `${root}/journal.jsonl`,
        [lines[0], "{ broken", JSON.stringify({ version: 9, op: "add" }), lines[1], lines[2], ""].join("\n")
      )
      const logged = warnings()
      const all = yield* at(root, (store) => store.journal()).pipe(Effect.provide(logged.layer))
      assert.deepStrictEqual(
        all.map((line) => line.after),
        ["- a [added: 2026-11-06]", "- b [added: 2026-11-06]", "- c [added: 2026-11-06]"]
      )
      assert.deepStrictEqual(logged.lines, ["mneme: journal.jsonl has 2 damaged line(s), skipped (line 2, 3)"])
      const last = yield* at(root, (store) => store.journal({ limit: 2 }))
      assert.deepStrictEqual(
        last.map((line) => line.after),
        ["- b [added: 2026-11-06]", "- c [added: 2026-11-06]"]
      )
      assert.deepStrictEqual(yield* at(root, (store) => store.journal({ limit: 0 })), [])
    }))
})
