/**
 * The entries waiting for a person (issue 28) kept in a scope's `pending.json`: within `pendingMax`, the oldest
 * dropped with a warning; a text already waiting is not held twice; a damaged file fails with its name, and is left
 * as it is. Each entry held, approved or rejected leaves a journal line; an undo of an approval removes the entry it
 * wrote, and the lines of the pending list are never undone.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { MemoryEdit, MemoryScope } from "@mneme/core"
import { Effect, FileSystem, Layer, Option, Path } from "effect"
import * as Journal from "../src/internal/journal.ts"
import { MemoryStore } from "../src/MemoryStore.ts"
import * as MemoryPending from "../src/MemoryPending.ts"
import { MemoryRoot } from "../src/MemoryRoot.ts"
import * as Testing from "../src/testing.ts"

const held = (text: string, at: number): MemoryPending.Held => ({ text, source: "c1 #1", why: "a reason", at })

const review = { actor: "review", auto: true }

const pendingService = Effect.flatMap(Effect.serviceOption(MemoryPending.MemoryPending), (found) =>
  Option.match(found, { onNone: () => Effect.die("no pending entries beside a memory folder"), onSome: Effect.succeed })
)

describe("the pending entries of a scope", () => {
  it.effect("keep at most pendingMax, the oldest dropped, and a text already waiting once", () =>
    Effect.gen(function* () {
      const pending = yield* pendingService
      const scope = MemoryScope.own("a1")
      assert.strictEqual(yield* pending.hold(scope, [held("one", 1), held("two", 2)], review), 0)
      assert.strictEqual(yield* pending.hold(scope, [held("two", 3), held("three", 4)], review), 1)
      assert.deepStrictEqual(
        (yield* pending.list(scope)).map((entry) => entry.text),
        ["two", "three"]
      )
      assert.deepStrictEqual(yield* pending.list(MemoryScope.team), [])
    }).pipe(Effect.provide(Testing.layer({ settings: { pendingMax: 2 } }).pipe(Layer.provideMerge(NodeServices.layer))))
  )

  it.effect("fail on a damaged file, naming it, and leave it as it is", () =>
    Effect.gen(function* () {
      const pending = yield* pendingService
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const folder = path.join((yield* MemoryRoot).root, "agents/a1")
      yield* fs.makeDirectory(folder, { recursive: true })
      yield* fs.writeFileString(path.join(folder, "pending.json"), "{ not json")
      const error = yield* Effect.flip(pending.hold(MemoryScope.own("a1"), [held("one", 1)], review))
      assert.strictEqual(error._tag, "StorageError")
      assert.strictEqual(error.reason._tag, "ReadFailed")
      assert.include(error.message, "agents/a1/pending.json")
      assert.include(error.message, "it is not a list of entries waiting for a person")
      assert.strictEqual(yield* fs.readFileString(path.join(folder, "pending.json")), "{ not json")
    }).pipe(Effect.provide(Testing.layer().pipe(Layer.provideMerge(NodeServices.layer))))
  )
})

/** The journal's lines as `op file actor[ auto] ±text`. */
const journaled = Effect.map(
  MemoryStore.use((store) => store.journal()),
  (lines) =>
    lines.map(
      (line) =>
        `${line.op} ${line.file} ${line.actor}${line.auto === true ? " auto" : ""} ${
          line.after === undefined ? `-${line.before ?? ""}` : `+${line.after}`
        }`
    )
)

describe("a change to a pending list, planned once for both backends", () => {
  const actor = { actor: "review", auto: true }
  const [a, b, c, d] = [held("a", 1), held("b", 2), held("c", 3), held("d", 4)]

  it("a hold adds each new text and drops the oldest past the bound, an entry held and dropped at once too", () => {
    const change = MemoryPending.holdChange([a, b], [held("b", 5), c, d], { max: 1, dir: "team", actor })
    assert.deepStrictEqual(change.next, [d])
    assert.deepStrictEqual(change.gone, [a, b])
    assert.deepStrictEqual(change.added, [d])
    assert.strictEqual(change.result, 3)
    assert.deepStrictEqual(
      change.records.map((record) => [record.op, record.after ?? record.before, record.auto]),
      [
        ["hold", "c", true],
        ["hold", "d", true],
        ["reject", "a", true],
        ["reject", "b", true],
        ["reject", "c", true]
      ]
    )
    assert.isTrue(change.records.every((record) => record.file === "team/pending.json"))
  })

  it("a removal takes out only the entries there, journaled as the person's decision", () => {
    const change = MemoryPending.removeChange([a, b, c], [b, d], { op: "approve", actor: "ada" }, "team")
    assert.deepStrictEqual([change.next, change.gone, change.added, change.result], [[a, c], [b], [], [b]])
    assert.deepStrictEqual(
      change.records.map((record) => [record.op, record.before, record.actor, record.auto]),
      [["approve", "b", "ada", undefined]]
    )
  })
})

describe("the journal of the pending entries", () => {
  it.effect("has a line for each entry held, dropped, approved and rejected", () =>
    Effect.gen(function* () {
      const pending = yield* pendingService
      const store = yield* MemoryStore
      const scope = MemoryScope.own("a1")
      yield* pending.hold(scope, [held("The user likes tea", 1), held("two", 2), held("three", 3)], review)
      const [tea, two, three] = yield* pending.list(scope)
      const approved = yield* MemoryPending.approve(store, pending, scope, [tea!], "person")
      assert.isTrue(approved[0]!.done)
      const rejected = yield* MemoryPending.reject(pending, scope, [two!], "cli")
      assert.isTrue(rejected[0]!.done)
      yield* pending.hold(scope, [held("four", 4), held("five", 5), held("six", 6)], review)
      assert.deepStrictEqual(
        (yield* pending.list(scope)).map((entry) => entry.text),
        ["four", "five", "six"]
      )
      assert.strictEqual(three!.text, "three")
      assert.deepStrictEqual(yield* journaled, [
        "hold agents/a1/pending.json review auto +The user likes tea",
        "hold agents/a1/pending.json review auto +two",
        "hold agents/a1/pending.json review auto +three",
        "add agents/a1/MEMORY.md person +- The user likes tea [source: c1 #1; added: 1970-01-01]",
        "approve agents/a1/pending.json person -The user likes tea",
        "reject agents/a1/pending.json cli -two",
        "hold agents/a1/pending.json review auto +four",
        "hold agents/a1/pending.json review auto +five",
        "hold agents/a1/pending.json review auto +six",
        "reject agents/a1/pending.json review auto -three"
      ])
    }).pipe(Effect.provide(Testing.layer({ settings: { pendingMax: 3 } }).pipe(Layer.provideMerge(NodeServices.layer))))
  )

  it.effect("an undo after an approval removes the entry it wrote; a line of the list itself is never undone", () =>
    Effect.gen(function* () {
      const pending = yield* pendingService
      const store = yield* MemoryStore
      const scope = MemoryScope.own("a1")
      yield* pending.hold(scope, [held("The user likes tea", 1)], review)
      yield* MemoryPending.approve(store, pending, scope, yield* pending.list(scope), "person")
      const memory = (yield* store.load(scope)).files[0]!
      assert.deepStrictEqual(
        memory.parsed.entries.map((entry) => entry.text),
        ["The user likes tea"]
      )
      const undone = yield* store.undo({ scope, actor: "cli" })
      assert.match(undone[0]!.message, /^undone: removed "The user likes tea"/u)
      assert.deepStrictEqual((yield* store.load(scope)).files[0]!.parsed.entries, [])
      // The entry does not wait again: the approval stands in the journal, the list is as the approval left it.
      assert.deepStrictEqual(yield* pending.list(scope), [])
      const lines = yield* store.journal({ scope })
      const hold = lines.find((line) => line.op === "hold")!
      const refused = MemoryEdit.changeWithId(lines, hold.id!, "agents/a1")
      assert.isTrue(refused._tag === "Failure")
      if (refused._tag === "Failure") {
        assert.strictEqual(refused.failure._tag, "NotUndoable")
        assert.include(refused.failure.message, MemoryEdit.pendingDetail)
      }
      // Nothing else is left to undo.
      assert.deepStrictEqual(MemoryEdit.undoable(yield* store.journal({ scope })), [])
    }).pipe(Effect.provide(Testing.layer().pipe(Layer.provideMerge(NodeServices.layer))))
  )
})

describe("a journal with lines of the pending list", () => {
  it("parses them beside the lines journals always held, old ones too", () => {
    const text = [
      {
        version: 1,
        time: 1,
        op: "add",
        scope: "agents/a1",
        file: "agents/a1/MEMORY.md",
        actor: "review",
        after: "- x"
      },
      { version: 2, id: "a", time: 2, op: "hold", scope: "agents/a1", file: "agents/a1/pending.json", actor: "review" },
      {
        version: 2,
        id: "b",
        time: 3,
        op: "approve",
        scope: "team",
        file: "team/pending.json",
        actor: "cli",
        before: "y"
      },
      { version: 2, id: "c", time: 4, op: "reject", scope: "team", file: "team/pending.json", actor: "person" }
    ]
      .map((line) => JSON.stringify(line) + "\n")
      .join("")
    const decoded = Journal.decode(text)
    assert.deepStrictEqual(
      decoded.lines.map((line) => line.op),
      ["add", "hold", "approve", "reject"]
    )
    assert.deepStrictEqual(decoded.damaged, [])
  })
})
