import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import { NotText, StorageError } from "../src/Errors.ts"
import * as MemoryConfig from "../src/MemoryConfig.ts"
import * as MemoryEdit from "../src/MemoryEdit.ts"
import * as MemoryFile from "../src/MemoryFile.ts"
import * as MemoryScope from "../src/MemoryScope.ts"
import * as Text from "../src/Text.ts"

const own = MemoryScope.own("ada")
const dir = "agents/ada"
const today = "2026-11-06"
const context = (overrides: Partial<MemoryConfig.Settings> = {}): MemoryEdit.EditSettings => ({
  settings: MemoryConfig.make(overrides),
  today
})
const actor = { actor: "t" } as const

/** A scope as read from `contents` (file name → text; MEMORY.md missing unless given), and `unreadable` topics. */
const scopeOf = (
  contents: { readonly [name: string]: string },
  options: {
    readonly scope?: MemoryScope.MemoryScope
    readonly dir?: string
    readonly unreadable?: ReadonlyArray<string>
  } = {}
): MemoryEdit.Files => {
  const folder = options.dir ?? dir
  const file = (name: string, topic: string | undefined): MemoryEdit.File => {
    const text = contents[name]
    return {
      file: `${folder}/${name}`,
      topic,
      exists: text !== undefined,
      parsed: MemoryFile.parse(text ?? ""),
      size: text === undefined ? 0 : Text.length(text)
    }
  }
  const topics = Object.keys(contents)
    .filter((name) => name !== "MEMORY.md")
    .sort()
  return {
    scope: options.scope ?? own,
    dir: folder,
    files: [file("MEMORY.md", undefined), ...topics.map((name) => file(name, name.slice(0, -3)))],
    unreadable: (options.unreadable ?? []).map((name) => ({
      file: `${folder}/${name}`,
      error: new StorageError({ reason: new NotText({ file: `${folder}/${name}` }) })
    }))
  }
}

/** Plans `changes` in order over `scopes` (one scope, or several). */
const batch = (
  scopes: MemoryEdit.Files | ReadonlyArray<MemoryEdit.Files>,
  changes: ReadonlyArray<MemoryEdit.Change>,
  settings: Partial<MemoryConfig.Settings> = {}
) =>
  MemoryEdit.planAll(
    MemoryEdit.start(Array.isArray(scopes) ? scopes : [scopes]),
    changes.map((change) => MemoryEdit.prepare(change, context(settings)))
  )

/** The one change's outcome, or its error. */
const one = (
  scopes: MemoryEdit.Files | ReadonlyArray<MemoryEdit.Files>,
  change: MemoryEdit.Change,
  settings: Partial<MemoryConfig.Settings> = {}
) => {
  const { draft, results } = batch(scopes, [change], settings)
  return { draft, result: results[0]! }
}

const success = <A, E>(result: Result.Result<A, E>): A => {
  if (Result.isFailure(result)) assert.fail(`expected a success, got ${String(result.failure)}`)
  return result.success
}

const failure = <A, E>(result: Result.Result<A, E>): E => {
  if (Result.isSuccess(result)) assert.fail("expected a failure")
  return result.failure
}

/** The texts the draft writes, by file ("" when deleted). */
const written = (draft: MemoryEdit.Draft) =>
  Object.fromEntries(draft.writes.map((write) => [write.file, write.content ?? "(deleted)"]))

const add = (text: string, topic?: string, more: Partial<MemoryEdit.AddInput> = {}): MemoryEdit.Change => ({
  op: "add",
  scope: own,
  text,
  ...(topic === undefined ? {} : { topic }),
  ...actor,
  ...more
})

const remove = (match: string, topic?: string, exact?: boolean): MemoryEdit.Change => ({
  op: "remove",
  scope: own,
  match,
  ...(topic === undefined ? {} : { topic }),
  ...(exact === undefined ? {} : { exact }),
  ...actor
})

const replace = (match: string, text: string, more: Partial<MemoryEdit.ReplaceInput> = {}): MemoryEdit.Change => ({
  op: "replace",
  scope: own,
  match,
  text,
  ...actor,
  ...more
})

describe("add", () => {
  it("starts a missing MEMORY.md, dates the entry and journals its line", () => {
    const { draft, result } = one(
      scopeOf({}),
      add("  - The user   likes tea ", undefined, { meta: [["source", "c #1"]] })
    )
    const line = "- The user likes tea [source: c #1; added: 2026-11-06]"
    const content = `# Memory\n\n${line}\n\n## Index\n`
    assert.deepStrictEqual(written(draft), { "agents/ada/MEMORY.md": content })
    assert.deepStrictEqual(draft.journal, [
      { op: "add", scope: dir, file: "agents/ada/MEMORY.md", actor: "t", after: line }
    ])
    assert.deepStrictEqual(success(result), {
      op: "add",
      changed: true,
      scope: own,
      topic: undefined,
      file: "agents/ada/MEMORY.md",
      message: `added to agents/ada/MEMORY.md (now ${Text.length(content)} of 4,000 characters): "The user likes tea"`,
      after: line
    })
  })

  it("keeps a given date, and the actor's auto flag in the journal", () => {
    const { draft } = one(scopeOf({}), add("dated", undefined, { meta: [["added", "2020-01-02"]], auto: true }))
    assert.deepStrictEqual(draft.journal[0], {
      op: "add",
      scope: dir,
      file: "agents/ada/MEMORY.md",
      actor: "t",
      auto: true,
      after: "- dated [added: 2020-01-02]"
    })
  })

  it("goes after the last filled line above the index, hand-written lines kept", () => {
    const memory = "# Mine\r\n\r\nA note.\r\n* hand entry\r\n\r\n\r\n## Index\r\n- [[pets]]\r\n"
    const { draft } = one(scopeOf({ "MEMORY.md": memory, "pets.md": "# pets\n- a cat\n" }), add("new one"))
    assert.strictEqual(
      written(draft)["agents/ada/MEMORY.md"],
      "# Mine\n\nA note.\n* hand entry\n- new one [added: 2026-11-06]\n\n\n## Index\n- [[pets]]\n"
    )
  })

  it("the same text anywhere in the scope (white space folded, case ignored) changes nothing", () => {
    const scope = scopeOf({
      "MEMORY.md": MemoryFile.newMemory + "- [[food]]\n",
      "food.md": "# food\n\n- The user likes   TEA\n"
    })
    const { draft, result } = one(scope, add("the user likes tea"))
    assert.deepStrictEqual(success(result), {
      op: "add",
      changed: false,
      scope: own,
      topic: "food",
      file: "agents/ada/food.md",
      message: 'nothing changed: agents/ada/food.md already holds "The user likes TEA"'
    })
    assert.deepStrictEqual([draft.writes, draft.journal], [[], []])
  })

  it("a new topic is made and linked from the index: two files, two journal lines", () => {
    const { draft, result } = one(
      scopeOf({ "MEMORY.md": "# Memory\n\n- in memory\n" }),
      add("Goes to Oslo", " Travel  Plans.md ")
    )
    assert.deepStrictEqual(written(draft), {
      "agents/ada/travel-plans.md": "# travel-plans\n\n- Goes to Oslo [added: 2026-11-06]\n",
      "agents/ada/MEMORY.md": "# Memory\n\n- in memory\n\n## Index\n- [[travel-plans]]\n"
    })
    assert.deepStrictEqual(
      draft.journal.map((record) => [record.file, record.after]),
      [
        ["agents/ada/travel-plans.md", "- Goes to Oslo [added: 2026-11-06]"],
        ["agents/ada/MEMORY.md", "- [[travel-plans]]"]
      ]
    )
    assert.strictEqual(
      success(result).message,
      'added to agents/ada/travel-plans.md (now 51 of 16,000 characters): "Goes to Oslo"; the new topic "travel-plans" is linked from agents/ada/MEMORY.md'
    )
  })

  it("adding to an existing topic that is not linked links it (a crash between the two writes left it so)", () => {
    const { draft, result } = one(
      scopeOf({ "MEMORY.md": MemoryFile.newMemory, "pets.md": "# pets\n\n- Has a cat\n" }),
      add("Has a dog", "pets")
    )
    assert.deepStrictEqual(written(draft), {
      "agents/ada/pets.md": "# pets\n\n- Has a cat\n- Has a dog [added: 2026-11-06]\n",
      "agents/ada/MEMORY.md": "# Memory\n\n## Index\n- [[pets]]\n"
    })
    assert.strictEqual(draft.journal.length, 2)
    assert.match(
      success(result).message,
      /; the topic "pets" was not linked and is now linked from agents\/ada\/MEMORY\.md$/
    )
    const linked = one(
      scopeOf({ "MEMORY.md": MemoryFile.newMemory + "- [[pets]]\n", "pets.md": "# pets\n" }),
      add("Has a dog", "pets")
    )
    assert.deepStrictEqual(Object.keys(written(linked.draft)), ["agents/ada/pets.md"])
  })

  it("a new topic past the topic limit is TooManyTopics (topics that cannot be read count); an existing one is fine", () => {
    const scope = scopeOf({ "a.md": "# a\n- about a\n" }, { unreadable: ["b.md"] })
    const error = failure(one(scope, add("about c", "c"), { topicsMax: 2 }).result)
    assert.strictEqual(error._tag, "TooManyTopics")
    assert.strictEqual(error.message, "agents/ada already has 2 topics: add to an existing topic, or remove one first")
    assert.isTrue(success(one(scope, add("more on a", "a"), { topicsMax: 2 }).result).changed)
  })

  it("a file taken past its size is MemoryFull; a topic whose link would overfill MEMORY.md is not made", () => {
    const memory = "# Memory\n\n- a fact of some length here\n"
    const full = failure(one(scopeOf({ "MEMORY.md": memory }), add("one fact too many"), { memoryMax: 60 }).result)
    const size = Text.length(memory) + Text.length("- one fact too many [added: 2026-11-06]\n")
    assert.strictEqual(full._tag, "MemoryFull")
    assert.strictEqual(
      full.message,
      `agents/ada/MEMORY.md would hold ${size} of its 60 characters (${Math.round((size / 60) * 100)}%): remove or shorten entries, or move details into a topic, to make room`
    )
    const topic = failure(one(scopeOf({}), add("x".repeat(60), "t"), { topicMax: 50 }).result)
    assert.deepStrictEqual(
      [topic._tag, topic._tag === "MemoryFull" ? topic.file : ""],
      ["MemoryFull", "agents/ada/t.md"]
    )
    const link = failure(
      one(scopeOf({ "MEMORY.md": memory }), add("details", "more"), { memoryMax: Text.length(memory) + 5 }).result
    )
    assert.deepStrictEqual(
      [link._tag, link._tag === "MemoryFull" ? link.file : ""],
      ["MemoryFull", "agents/ada/MEMORY.md"]
    )
  })

  it("an entry memory cannot keep is Denied, with the reason's tag and message", () => {
    const cases = [
      ["x".repeat(301), "TooLong", "memory cannot keep this entry: the entry is 301 characters, over the limit of 300"],
      ["  - [added: 2026-01-01]", "EmptyEntry", "memory cannot keep this entry: the entry is empty"],
      [
        "the key is sk-proj-4fT9aQ2mZx7LbV1nR8sK3wYc6JdP0hGe",
        "SecretEntry",
        "memory cannot keep this entry: it looks like a secret (a key, password or ID number), which memory never keeps"
      ]
    ] as const
    for (const [text, reason, message] of cases) {
      for (const change of [add(text), replace("keep me", text)]) {
        const error = failure(one(scopeOf({ "MEMORY.md": "- keep me\n" }), change).result)
        assert.strictEqual(error._tag, "Denied")
        assert.strictEqual(error._tag === "Denied" ? error.reason._tag : "", reason)
        assert.strictEqual(error.message, message)
      }
    }
    const host = failure(
      one(scopeOf({}), add("codename bluebird"), { isSecret: (text) => text.includes("bluebird") }).result
    )
    assert.strictEqual(host._tag === "Denied" ? host.reason._tag : host._tag, "SecretEntry")
    const limit = failure(one(scopeOf({}), add("x".repeat(50)), { entryMax: 20 }).result)
    assert.strictEqual(limit.message, "memory cannot keep this entry: the entry is 50 characters, over the limit of 20")
  })

  it("a topic name that is not one, looks secret or is a device name is BadTopic for every operation", () => {
    for (const topic of ["../x", "memory", "", "a.b", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "con", "LPT1.txt"]) {
      for (const change of [add("fact", topic), replace("fact", "other", { topic }), remove("fact", topic)]) {
        const error = failure(one(scopeOf({ "MEMORY.md": "- fact\n" }), change).result)
        assert.strictEqual(error._tag, "BadTopic")
        assert.notInclude(error.message, "ghp_abcdefghij")
      }
    }
  })
})

describe("replace and remove", () => {
  const memory = [
    "# Memory",
    "",
    "- The user likes green tea [source: c #1; added: 2026-01-01]",
    "- Likes tea [added: 2026-01-01]",
    "- Likes tea with milk [added: 2026-01-01]",
    "",
    "## Index",
    ""
  ].join("\n")
  const scope = scopeOf({ "MEMORY.md": memory })

  it("replace keeps the entry's place and metadata, and journals before and after", () => {
    const { draft, result } = one(scope, replace("green", "The user likes white tea"))
    const before = "- The user likes green tea [source: c #1; added: 2026-01-01]"
    const after = "- The user likes white tea [source: c #1; added: 2026-01-01]"
    assert.strictEqual(written(draft)["agents/ada/MEMORY.md"], memory.replace(before, after))
    assert.deepStrictEqual(draft.journal, [
      { op: "replace", scope: dir, file: "agents/ada/MEMORY.md", actor: "t", before, after }
    ])
    const outcome = success(result)
    assert.deepStrictEqual([outcome.changed, outcome.before, outcome.after], [true, before, after])
    assert.strictEqual(
      outcome.message,
      `replaced in agents/ada/MEMORY.md (now ${Text.length(memory)} of 4,000 characters): "The user likes green tea" is now "The user likes white tea"`
    )
  })

  it("replace with new metadata fills today's date; the same line again changes nothing", () => {
    const { result } = one(scope, replace("Likes tea", "Likes tea", { meta: [["by", "bob"]] }))
    assert.strictEqual(success(result).after, "- Likes tea [by: bob; added: 2026-11-06]")
    const same = success(one(scope, replace("Likes tea", "Likes  tea")).result)
    assert.deepStrictEqual(
      [same.changed, same.message],
      [false, 'nothing changed: agents/ada/MEMORY.md already holds "Likes tea"']
    )
  })

  it("with exact, only the entry with exactly that text: never one that merely contains it", () => {
    const gone = scopeOf({ "MEMORY.md": memory.replace("- Likes tea [added: 2026-01-01]\n", "") })
    for (const change of [
      replace("Likes tea", "The user prefers coffee", { exact: true }),
      remove("Likes tea", undefined, true)
    ]) {
      const { draft, result } = one(gone, change)
      const error = failure(result)
      assert.strictEqual(error._tag, "NoMatch")
      assert.strictEqual(error.message, 'no entry in agents/ada/MEMORY.md holds "Likes tea"')
      assert.deepStrictEqual(draft.writes, [])
    }
    const loose = success(one(gone, remove("Likes tea")).result)
    assert.strictEqual(loose.before, "- Likes tea with milk [added: 2026-01-01]")
    const exact = success(one(scope, remove("Likes tea", undefined, true)).result)
    assert.strictEqual(exact.before, "- Likes tea [added: 2026-01-01]")
  })

  it("a match naming several entries or none is NoMatch with the candidates; a missing topic names its file", () => {
    const several = failure(one(scope, remove("tea")).result)
    assert.strictEqual(
      several.message,
      '"tea" matches several entries in agents/ada/MEMORY.md; quote one of them whole:\n- The user likes green tea\n- Likes tea\n- Likes tea with milk'
    )
    const missing = failure(one(scope, remove("tea", "nope")).result)
    assert.strictEqual(missing.message, 'no entry in agents/ada/nope.md holds "tea"')
  })

  it("removing the last entry of a topic deletes it with its link; a topic with a note stays", () => {
    const topics = scopeOf({
      "MEMORY.md": "# Memory\n\n- in memory\n\n## Index\n- [[books]]\n- [[pets]]\n",
      "pets.md": "# pets\n\n- Has a cat\n",
      "books.md": "# books\n\n- Reads Tolstoy\n\nA note a person wrote.\n"
    })
    const { draft, results } = batch(topics, [remove("cat", "pets"), remove("Tolstoy", "books")])
    assert.deepStrictEqual(written(draft), {
      "agents/ada/pets.md": "(deleted)",
      "agents/ada/MEMORY.md": "# Memory\n\n- in memory\n\n## Index\n- [[books]]\n",
      "agents/ada/books.md": "# books\n\nA note a person wrote.\n"
    })
    assert.strictEqual(
      success(results[0]!).message,
      'removed from agents/ada/pets.md: "Has a cat"; the topic "pets" had nothing left and is deleted, with its link in agents/ada/MEMORY.md'
    )
    assert.deepStrictEqual(
      draft.journal.map((record) => [record.op, record.file, record.before]),
      [
        ["remove", "agents/ada/pets.md", "- Has a cat"],
        ["remove", "agents/ada/MEMORY.md", "- [[pets]]"],
        ["remove", "agents/ada/books.md", "- Reads Tolstoy"]
      ]
    )
  })

  it("a file past its size may keep its size or shrink, but not grow", () => {
    const entries = Array.from({ length: 300 }, (_, i) => `- hand-written fact number ${i} [added: 2026-01-01]`)
    const big = scopeOf({ "MEMORY.md": `# Memory\n\n${entries.join("\n")}\n` })
    assert.strictEqual(failure(one(big, add("one more")).result)._tag, "MemoryFull")
    assert.strictEqual(
      failure(one(big, replace("hand-written fact number 5", "hand-written fact number 55")).result)._tag,
      "MemoryFull"
    )
    assert.isTrue(success(one(big, replace("hand-written fact number 7", "hand-written fact number X")).result).changed)
    assert.isTrue(success(one(big, replace("hand-written fact number 9", "fact nine")).result).changed)
    assert.isTrue(success(one(big, remove("hand-written fact number 299")).result).changed)
  })
})

describe("a batch", () => {
  it("plans each change against what the earlier ones left, and writes each file once", () => {
    const team = scopeOf({}, { scope: MemoryScope.team, dir: "team" })
    const { draft, results } = batch(
      [scopeOf({}), team],
      [
        add("first"),
        add("second"),
        add("first"),
        add("about pets", "pets"),
        replace("second", "second, edited"),
        { op: "add", scope: MemoryScope.team, text: "for the team", ...actor },
        remove("nothing here")
      ]
    )
    assert.deepStrictEqual(
      results.map((result) => (Result.isSuccess(result) ? result.success.changed : result.failure._tag)),
      [true, true, false, true, true, true, "NoMatch"]
    )
    assert.deepStrictEqual(written(draft), {
      "agents/ada/MEMORY.md":
        "# Memory\n\n- first [added: 2026-11-06]\n- second, edited [added: 2026-11-06]\n\n## Index\n- [[pets]]\n",
      "agents/ada/pets.md": "# pets\n\n- about pets [added: 2026-11-06]\n",
      "team/MEMORY.md": "# Memory\n\n- for the team [added: 2026-11-06]\n\n## Index\n"
    })
    assert.deepStrictEqual(
      draft.journal.map((record) => [record.op, record.file]),
      [
        ["add", "agents/ada/MEMORY.md"],
        ["add", "agents/ada/MEMORY.md"],
        ["add", "agents/ada/pets.md"],
        ["add", "agents/ada/MEMORY.md"],
        ["replace", "agents/ada/MEMORY.md"],
        ["add", "team/MEMORY.md"]
      ]
    )
  })

  it("a topic made and emptied again in one batch writes nothing for it", () => {
    const { draft } = batch(scopeOf({ "MEMORY.md": MemoryFile.newMemory }), [
      add("brief", "passing"),
      remove("brief", "passing")
    ])
    assert.deepStrictEqual(written(draft), { "agents/ada/MEMORY.md": MemoryFile.newMemory })
    assert.strictEqual(draft.journal.length, 4)
  })

  it("a change that fails leaves the draft as the earlier ones left it", () => {
    const { draft, results } = batch(scopeOf({}), [add("kept"), add("x".repeat(80)), add("also kept")], {
      memoryMax: 90
    })
    assert.deepStrictEqual(
      results.map((result) => (Result.isSuccess(result) ? "ok" : result.failure._tag)),
      ["ok", "MemoryFull", "ok"]
    )
    assert.strictEqual(draft.journal.length, 2)
  })

  it("a topic file that could not be read: changes to it fail with its error, the rest go on", () => {
    const scope = scopeOf(
      { "MEMORY.md": MemoryFile.newMemory + "- [[bad]]\n- [[good]]\n", "good.md": "# good\n" },
      { unreadable: ["bad.md"] }
    )
    const { draft, results } = batch(scope, [
      add("to bad", "bad"),
      remove("x", "bad"),
      add("to memory"),
      add("to good", "good")
    ])
    for (const result of results.slice(0, 2)) {
      const error = failure(result)
      assert.strictEqual(error._tag, "StorageError")
      assert.strictEqual(
        error.message,
        "agents/ada/bad.md is not valid UTF-8 text; fix or remove it by hand (nothing was changed)"
      )
    }
    assert.deepStrictEqual(Object.keys(written(draft)), ["agents/ada/MEMORY.md", "agents/ada/good.md"])
  })

  it("property: any adds (MEMORY.md and topics) then removing them all gives back the files, byte for byte", () => {
    const blanks = fc.integer({ min: 0, max: 2 }).map((n) => "\n".repeat(n))
    const memory = fc
      .tuple(blanks, fc.boolean(), blanks, fc.boolean(), blanks)
      .map(
        ([a, note, b, entry, c]) =>
          `# Ada\n${a}${note ? "A note by hand.\n" : ""}${b}${entry ? "- kept by hand\n" : ""}${c}## Index\n- [[old]]\n`
      )
    const topic = blanks.map((a) => `# old\n${a}- an old fact\n`)
    const adds = fc.array(fc.constantFrom(undefined, "old", "pets", "work"), { minLength: 1, maxLength: 12 })
    const order = fc.array(fc.double({ noNaN: true }), { minLength: 12, maxLength: 12 })
    fc.assert(
      fc.property(memory, topic, adds, order, (memory, topic, adds, order) => {
        const start = { "agents/ada/MEMORY.md": memory, "agents/ada/old.md": topic }
        const texts = adds.map((topic, i) => [topic, `fact number ${i}`] as const)
        const added = batch(
          scopeOf({ "MEMORY.md": memory, "old.md": topic }),
          texts.map(([topic, text]) => add(text, topic))
        )
        assert.isTrue(added.results.every(Result.isSuccess))
        const shuffled = texts.map((text, i) => [order[i]!, text] as const).sort(([a], [b]) => a - b)
        const removed = MemoryEdit.planAll(
          added.draft,
          shuffled.map(([, [topic, text]]) => MemoryEdit.prepare(remove(text, topic, true), context()))
        )
        assert.isTrue(removed.results.every(Result.isSuccess))
        const files = removed.draft.scopes[0]!.files
        assert.deepStrictEqual(
          Object.fromEntries(files.map((file) => [file.file, MemoryFile.render(file.parsed.lines)])),
          start
        )
        for (const write of removed.draft.writes)
          assert.strictEqual(write.content, start[write.file as keyof typeof start])
      })
    )
  })
})

describe("undo", () => {
  /** The draft's records as journal lines (with ids and one time), as the port would write them. */
  const journaled = (draft: MemoryEdit.Draft, first = 0): ReadonlyArray<MemoryEdit.Journaled> =>
    draft.journal.map((record, i) => ({ ...record, id: `id-${first + i}`, time: 1 }))

  /** The draft's scope as its files' texts. */
  const texts = (draft: MemoryEdit.Draft) =>
    Object.fromEntries(draft.scopes[0]!.files.map((file) => [file.file, MemoryFile.render(file.parsed.lines)]))

  const undoAll = (draft: MemoryEdit.Draft, lines: ReadonlyArray<MemoryEdit.Journaled>) =>
    MemoryEdit.undoable(lines)
      .toReversed()
      .reduce<Result.Result<MemoryEdit.Draft, unknown>>(
        (result, change) =>
          Result.flatMap(result, (draft) =>
            Result.map(MemoryEdit.undo(draft, change, actor, context()), (planned) => planned.draft)
          ),
        Result.succeed(draft)
      )

  it("groups a topic's line with the link line its change wrote after it", () => {
    const { draft } = batch(scopeOf({}), [
      add("in memory"),
      add("Has a cat", "pets"),
      add("Has a dog", "pets"),
      remove("cat", "pets"),
      remove("dog", "pets")
    ])
    assert.deepStrictEqual(
      MemoryEdit.changesOf(journaled(draft)).map((change) => change.map((line) => line.id)),
      [["id-0"], ["id-1", "id-2"], ["id-3"], ["id-4"], ["id-5", "id-6"]]
    )
  })

  it("undoing every change gives back the files as they were; each undo is journaled with what it undoes", () => {
    const start = {
      "MEMORY.md": "# Memory\n\n- old fact [added: 2026-01-01]\n\n## Index\n- [[old]]\n",
      "old.md": "# old\n\n- gone soon\n"
    }
    const read = scopeOf(start)
    const { draft } = batch(read, [
      add("new fact"),
      add("Has a cat", "pets"),
      replace("old fact", "old fact, edited"),
      remove("gone soon", "old")
    ])
    assert.deepStrictEqual(Object.keys(texts(draft)), ["agents/ada/MEMORY.md", "agents/ada/pets.md"])
    const undone = success(undoAll(MemoryEdit.start([draft.scopes[0]!]), journaled(draft)))
    assert.deepStrictEqual(
      texts(undone),
      Object.fromEntries(Object.entries(start).map(([name, text]) => [`${dir}/${name}`, text]))
    )
    assert.deepStrictEqual(
      undone.journal.map((record) => [record.op, record.file, record.undoes]),
      [
        ["undo", "agents/ada/old.md", "id-4"],
        ["undo", "agents/ada/MEMORY.md", "id-5"],
        ["undo", "agents/ada/MEMORY.md", "id-3"],
        ["undo", "agents/ada/pets.md", "id-1"],
        ["undo", "agents/ada/MEMORY.md", "id-2"],
        ["undo", "agents/ada/MEMORY.md", "id-0"]
      ]
    )
  })

  it("the undo's outcome and its messages", () => {
    const { draft } = batch(scopeOf({}), [add("Has a cat", "pets")])
    const [change] = MemoryEdit.undoable(journaled(draft))
    const planned = success(MemoryEdit.undo(MemoryEdit.start([draft.scopes[0]!]), change!, actor, context()))
    assert.deepStrictEqual(planned.outcome, {
      op: "remove",
      changed: true,
      scope: own,
      topic: "pets",
      file: "agents/ada/pets.md",
      before: "- Has a cat [added: 2026-11-06]",
      message:
        'undone: removed "Has a cat" from agents/ada/pets.md; the topic "pets" had nothing left and is deleted, with its link in agents/ada/MEMORY.md'
    })
  })

  it("is NotUndoable where the file no longer holds what the change wrote, or holds the removed entry again", () => {
    const { draft } = batch(scopeOf({}), [add("Likes tea"), remove("Likes tea")])
    const [added, removed] = MemoryEdit.undoable(journaled(draft))
    const edited = MemoryEdit.start([scopeOf({ "MEMORY.md": "# Memory\n\n- Likes tea, edited by hand\n" })])
    const error = failure(MemoryEdit.undo(edited, added!, actor, context()))
    assert.strictEqual(error._tag, "NotUndoable")
    assert.strictEqual(
      error.message,
      'cannot undo the change to agents/ada/MEMORY.md: it no longer holds "- Likes tea [added: 2026-11-06]"; nothing was changed'
    )
    const again = MemoryEdit.start([scopeOf({ "MEMORY.md": "# Memory\n\n- likes TEA\n" })])
    assert.strictEqual(
      failure(MemoryEdit.undo(again, removed!, actor, context())).message,
      'cannot undo the change to agents/ada/MEMORY.md: it holds "likes TEA" again; nothing was changed'
    )
  })

  it("leaves out changes already undone, undos, archives and lines without an id; by id says why it cannot", () => {
    const lines: ReadonlyArray<MemoryEdit.Journaled> = [
      { time: 1, op: "add", scope: dir, file: `${dir}/MEMORY.md`, actor: "t", after: "- v1" },
      { id: "a", time: 2, op: "add", scope: dir, file: `${dir}/MEMORY.md`, actor: "t", after: "- one" },
      { id: "b", time: 3, op: "add", scope: dir, file: `${dir}/MEMORY.md`, actor: "t", after: "- two" },
      { id: "c", time: 4, op: "undo", scope: dir, file: `${dir}/MEMORY.md`, actor: "t", before: "- two", undoes: "b" },
      { id: "d", time: 5, op: "archive", scope: dir, file: dir, actor: "t", after: "archive/ada" }
    ]
    assert.deepStrictEqual(
      MemoryEdit.undoable(lines).map((change) => change[0]!.id),
      ["a"]
    )
    const why = (id: string) => {
      const result = MemoryEdit.changeWithId(lines, id, dir)
      return Result.isSuccess(result) ? "ok" : result.failure.message
    }
    assert.strictEqual(why("a"), "ok")
    assert.strictEqual(
      why("b"),
      "cannot undo the change to agents/ada/MEMORY.md: it was undone already; nothing was changed"
    )
    assert.strictEqual(
      why("c"),
      "cannot undo the change to agents/ada/MEMORY.md: it is itself an undo; nothing was changed"
    )
    assert.strictEqual(
      why("d"),
      "cannot undo the change to agents/ada: archiving a memory folder is undone by moving it back by hand; nothing was changed"
    )
    assert.strictEqual(why("zz"), 'agents/ada: the journal holds no change "zz" of this memory')
  })
})
