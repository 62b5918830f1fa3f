/**
 * A change refused because its journal cannot be written leaves the memory root exactly as it was (issue 8 item 20):
 * no folder it would have made for a new agent, the team or the archive, no id record, and no journal of its own.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { MemoryConfig, MemoryScope } from "@mneme/core"
import { MemoryStore } from "@mneme/review"
import { Effect, FileSystem, type Layer, Path, type Scope } from "effect"
import { TestClock } from "effect/testing"
import { createHash } from "node:crypto"
import { type Call, failingServices, listing, tempRoot } from "./fixtures/kit.ts"
import { storeLayer } from "./fixtures/store.ts"

type Store = MemoryStore.MemoryStore["Service"]

const noon = Date.UTC(2026, 10, 6, 12)
const stamp = "2026-11-06T12-00-00-000Z"
const testSettings: Partial<MemoryConfig.Settings> = { timeZone: "UTC" }

/** A new agent whose folder is hashed, so its first change also writes the folder's `agent.json`. */
const newcomer = "Ada Lovelace"
const newcomerDir = `agents/ada-lovelace-${createHash("sha256").update(newcomer, "utf8").digest("hex").slice(0, 12)}`

/** Runs `body` with a store over `root` (a new instance each time). */
const at = <A, E, R>(root: string, body: (store: Store) => Effect.Effect<A, E, R>) =>
  MemoryStore.MemoryStore.use(body).pipe(Effect.provide(storeLayer(root, { settings: testSettings })))

/** A test on the real file system, with the test clock at noon UTC on 2026-11-06. */
const test = <A, E>(name: string, body: () => Effect.Effect<A, E, FileSystem.FileSystem | Path.Path | Scope.Scope>) =>
  it.effect(name, () => TestClock.setTime(noon).pipe(Effect.andThen(body), Effect.provide(NodeServices.layer)))

/** Every entry of the root: a folder as `"folder"`, a file as its bytes. */
const snapshot = (root: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const entries: Record<string, string | Uint8Array> = {}
    for (const name of yield* listing(root)) {
      const absolute = `${root}/${name}`
      entries[name] = (yield* fs.stat(absolute)).type === "Directory" ? "folder" : yield* fs.readFile(absolute)
    }
    return entries
  })

/** A root where ada has a MEMORY.md and a topic, journaled; no team memory, no archive, no other agent. */
const seeded = Effect.gen(function* () {
  const root = yield* tempRoot
  yield* at(root, (store) =>
    Effect.all([
      store.add({ scope: MemoryScope.own("ada"), text: "kept", actor: "t" }),
      store.add({ scope: MemoryScope.own("ada"), topic: "pets", text: "Has a cat", actor: "t" })
    ])
  )
  return root
})

/** A change through the store, as these tests run it. */
type Change = (store: Store) => Effect.Effect<unknown, unknown>

/** The first change of the new agent whose folder is hashed. */
const addNewcomer: Change = (store) => store.add({ scope: MemoryScope.own(newcomer), text: "a first fact", actor: "t" })

/** The changes that make folders before they are made: a new agent, a first team entry, an archive. */
const firstChanges: Readonly<Record<string, Change>> = {
  "an add for a brand-new agent": addNewcomer,
  "an add for a brand-new agent kept by name": (store: Store) =>
    store.add({ scope: MemoryScope.own("bob"), topic: "pets", text: "Has a dog", actor: "t" }),
  "a first add to team memory": (store: Store) =>
    store.add({ scope: MemoryScope.team, text: "a team fact", actor: "t" }),
  "an archive of an existing agent": (store: Store) => store.archive("ada")
}

const injectedMessage = "journal.jsonl: could not write it (nothing was changed): Unknown: injected failure"
const folderMessage = "journal.jsonl: could not write it (nothing was changed): it is a folder, not a file"

/** Asserts that `error` is the journal's `WriteFailed` with `message`. */
const assertRefused = (error: unknown, message: string) => {
  const refused = error as { _tag: string; reason?: { _tag: string }; message: string }
  assert.strictEqual(refused._tag, "StorageError")
  assert.strictEqual(refused.reason?._tag, "WriteFailed")
  assert.strictEqual(refused.message, message)
}

/** Runs every first change once more and checks they now succeed and leave what they should. */
const succeedAfterwards = (root: string) =>
  Effect.gen(function* () {
    const archived = yield* at(root, (store) =>
      Effect.gen(function* () {
        for (const change of Object.values(firstChanges).slice(0, 3)) yield* change(store)
        return yield* store.archive("ada")
      })
    )
    assert.strictEqual(archived, `archive/ada-${stamp}`)
    const files = yield* listing(root)
    for (const file of [
      `${newcomerDir}/MEMORY.md`,
      `${newcomerDir}/agent.json`,
      "agents/bob/pets.md",
      "team/MEMORY.md",
      `archive/ada-${stamp}/MEMORY.md`,
      `archive/ada-${stamp}/pets.md`
    ]) {
      assert.include(files, file)
    }
    assert.notInclude(files, "agents/ada")
    const journal = yield* at(root, (store) => store.journal())
    assert.deepStrictEqual(
      journal.slice(-5).map((line) => [line.op, line.file]),
      [
        ["add", `${newcomerDir}/MEMORY.md`],
        ["add", "agents/bob/pets.md"],
        ["add", "agents/bob/MEMORY.md"],
        ["add", "team/MEMORY.md"],
        ["archive", "agents/ada"]
      ]
    )
  })

describe("a change refused for its journal leaves the root as it was (issue 8 item 20)", () => {
  test("a journal.jsonl that is a folder: no agent, team or archive folder is left, and all succeed once fixed", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const root = yield* seeded
      yield* fs.remove(`${root}/journal.jsonl`)
      yield* fs.makeDirectory(`${root}/journal.jsonl`)
      const before = yield* snapshot(root)
      for (const [name, change] of Object.entries(firstChanges)) {
        const error = yield* Effect.flip(at(root, change))
        assertRefused(error, folderMessage)
        assert.deepStrictEqual(yield* snapshot(root), before, name)
      }
      yield* fs.remove(`${root}/journal.jsonl`, { recursive: true })
      yield* succeedAfterwards(root)
    }))

  for (const call of ["open", "writeAll", "sync"] as const satisfies ReadonlyArray<Call>) {
    test(`a failed ${call} of the journal: nothing is left, byte for byte, and all succeed once it works`, () =>
      Effect.gen(function* () {
        const path = yield* Path.Path
        const root = yield* seeded
        const before = yield* snapshot(root)
        const failing = failingServices((c, file) => c === call && path.basename(file) === "journal.jsonl")
        for (const [name, change] of Object.entries(firstChanges)) {
          const error = yield* Effect.flip(at(root, change).pipe(Effect.provide(failing)))
          assertRefused(error, injectedMessage)
          assert.deepStrictEqual(yield* snapshot(root), before, name)
        }
        yield* succeedAfterwards(root)
      }))
  }

  test("a journal the refused change would have made first is not left behind", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const root = yield* tempRoot
      yield* fs.makeDirectory(`${root}/agents/ada`, { recursive: true })
      yield* fs.writeFileString(`${root}/agents/ada/MEMORY.md`, "# Memory\n\n- kept\n")
      const before = yield* snapshot(root)
      for (const call of ["writeAll", "sync"] as const) {
        const failing = failingServices((c, file) => c === call && path.basename(file) === "journal.jsonl")
        for (const [name, change] of Object.entries(firstChanges)) {
          const error = yield* Effect.flip(at(root, change).pipe(Effect.provide(failing)))
          assertRefused(error, injectedMessage)
          assert.deepStrictEqual(yield* snapshot(root), before, `${call}: ${name}`)
        }
      }
    }))

  test("folders that were there before are kept, empty or not, and no id record is added to them", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const root = yield* seeded
      for (const folder of [newcomerDir, "agents/bob", "team", "archive"]) {
        yield* fs.makeDirectory(`${root}/${folder}`, { recursive: true })
      }
      yield* fs.writeFileString(`${root}/archive/notes.txt`, "not mneme's\n")
      const before = yield* snapshot(root)
      const failing = failingServices((c, file) => c === "writeAll" && path.basename(file) === "journal.jsonl")
      for (const [name, change] of Object.entries(firstChanges)) {
        const error = yield* Effect.flip(at(root, change).pipe(Effect.provide(failing)))
        assertRefused(error, injectedMessage)
        assert.deepStrictEqual(yield* snapshot(root), before, name)
      }
      yield* succeedAfterwards(root)
      assert.strictEqual(yield* fs.readFileString(`${root}/archive/notes.txt`), "not mneme's\n")
    }))

  /** A change refused for one of its own files, not the journal, takes its folders away as well. */
  const refusedFor = (name: string, fails: (call: Call, path: string) => boolean, message: string) =>
    test(name, () =>
      Effect.gen(function* () {
        const root = yield* seeded
        const before = yield* snapshot(root)
        const failing: Layer.Layer<FileSystem.FileSystem | Path.Path> = failingServices(fails)
        const error = yield* Effect.flip(at(root, addNewcomer).pipe(Effect.provide(failing)))
        const refused = error as { _tag: string; message: string }
        assert.strictEqual(refused._tag, "StorageError")
        assert.strictEqual(refused.message, message)
        assert.deepStrictEqual(yield* snapshot(root), before)
        yield* succeedAfterwards(root)
      })
    )

  refusedFor(
    "a new agent's MEMORY.md that cannot be written aside leaves no folder and no id record",
    (call, file) => call === "open" && file.includes(".MEMORY.md."),
    `${newcomerDir}/MEMORY.md: could not write it (nothing was changed): Unknown: injected failure`
  )

  refusedFor(
    "a new agent's MEMORY.md that cannot be renamed into place leaves no folder, no id record, and the journal as it was",
    (call, file) => call === "rename" && file.endsWith(`${newcomerDir}/MEMORY.md`),
    `${newcomerDir}/MEMORY.md: could not write it (nothing was changed): Unknown: injected failure`
  )
})
