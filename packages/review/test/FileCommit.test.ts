/**
 * The temporaries of a commit of the files backend are a resource (`internal/fileCommit.ts`): whatever ends its phases,
 * none is left in the root. A commit refused in its swap phase, after some files landed, for a new agent and with the
 * review state, leaves the root as it was; a writer interrupted while its temporaries are being written finishes its
 * commit whole and leaves none either.
 */
import { NodePath, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { MemoryConfig, MemoryScope } from "@mneme/core"
import { MemoryStore } from "@mneme/review"
import { Deferred, Effect, Exit, Fiber, FileSystem, Layer, Path, type Scope } from "effect"
import { failingServices, listing, tempRoot } from "./fixtures/kit.ts"
import { storeLayer } from "./fixtures/store.ts"
import { applyWith } from "./storeSuite.ts"

type Store = MemoryStore.MemoryStore["Service"]

const ada = MemoryScope.own("ada")
const bob = MemoryScope.own("bob")
const testSettings: Partial<MemoryConfig.Settings> = { timeZone: "UTC" }

/** Runs `body` with a store over `root` (a new instance each time). */
const at = <A, E, R>(root: string, body: (store: Store) => Effect.Effect<A, E, R>) =>
  MemoryStore.MemoryStore.use(body).pipe(Effect.provide(storeLayer(root, { settings: testSettings })))

/** A test on the real file system. */
const test = <A, E>(name: string, body: () => Effect.Effect<A, E, FileSystem.FileSystem | Path.Path | Scope.Scope>) =>
  it.effect(name, () => Effect.provide(body(), NodeServices.layer))

/** Every file of the root with its text, and the names of every folder. */
const snapshot = (root: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const entries: Record<string, string> = {}
    for (const name of yield* listing(root)) {
      const absolute = `${root}/${name}`
      entries[name] = (yield* fs.stat(absolute)).type === "Directory" ? "folder" : yield* fs.readFileString(absolute)
    }
    return entries
  })

/** The temporary files among the root's names. */
const temporaries = (root: string) =>
  Effect.map(listing(root), (names) => names.filter((name) => name.endsWith(".tmp")))

describe("a commit's temporaries", () => {
  test("a commit refused in its swap phase leaves no temporary, no folder it made, and the state as it was", () =>
    Effect.gen(function* () {
      const path = yield* Path.Path
      const root = yield* tempRoot
      yield* at(root, (store) =>
        Effect.andThen(
          store.add({ scope: ada, topic: "pets", text: "Has a cat", actor: "t" }),
          applyWith(store, [], (state) => ({ ...state, cursors: { "chat:c": 1 } }))
        )
      )
      const before = yield* snapshot(root)
      // The memory files are renamed into place and given back; the state file's rename fails.
      const failing = failingServices((call, file) => call === "rename" && path.basename(file) === "reviewed.json")
      const error = yield* at(root, (store) =>
        Effect.flip(
          applyWith(
            store,
            [
              { op: "add", scope: bob, topic: "pets", text: "Has a dog", actor: "review" },
              { op: "replace", scope: ada, topic: "pets", match: "cat", text: "Has two cats", actor: "review" }
            ],
            (state) => ({ ...state, cursors: { "chat:c": 2 } })
          )
        )
      ).pipe(Effect.provide(failing))
      assert.strictEqual(error.reason._tag, "WriteFailed")
      assert.deepStrictEqual(yield* temporaries(root), [])
      assert.deepStrictEqual(yield* snapshot(root), before)
    }))

  test("a writer interrupted while it writes its temporaries finishes its commit whole and leaves none", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      yield* at(root, (store) => store.add({ scope: ada, text: "kept", actor: "t" }))
      const reached = yield* Deferred.make<void>()
      const go = yield* Deferred.make<void>()
      // Writing MEMORY.md's new text aside waits until the writer has been interrupted.
      const held = Layer.effect(
        FileSystem.FileSystem,
        Effect.map(FileSystem.FileSystem, (fs): FileSystem.FileSystem => ({
          ...fs,
          open: (file, options) =>
            file.includes("/.MEMORY.md.") && file.endsWith(".tmp")
              ? Deferred.succeed(reached, undefined).pipe(
                  Effect.andThen(Deferred.await(go)),
                  Effect.andThen(fs.open(file, options))
                )
              : fs.open(file, options)
        }))
      ).pipe(Layer.provide(NodeServices.layer), Layer.merge(NodePath.layer))
      const writer = yield* at(root, (store) => store.add({ scope: ada, text: "Lives in Oslo", actor: "t" })).pipe(
        Effect.provide(held),
        Effect.forkChild
      )
      yield* Deferred.await(reached)
      // The interruption is sent before the temporary is written, and takes effect once the commit is done.
      const interrupting = yield* Effect.forkChild(Fiber.interrupt(writer))
      yield* Effect.yieldNow
      yield* Deferred.succeed(go, undefined)
      yield* Fiber.join(interrupting)
      assert.isTrue(Exit.hasInterrupts(yield* Fiber.await(writer)))
      assert.deepStrictEqual(yield* temporaries(root), [])
      const memory = yield* at(root, (store) => store.load(ada))
      const texts = memory.files.flatMap((file) => file.parsed.entries.map((entry) => entry.text))
      assert.deepStrictEqual(texts, ["kept", "Lives in Oslo"])
      const journal = yield* at(root, (store) => store.journal())
      assert.deepStrictEqual(
        journal.map((line) => [line.op, line.after]),
        [
          ["add", "- kept [added: 1970-01-01]"],
          ["add", "- Lives in Oslo [added: 1970-01-01]"]
        ]
      )
    }))
})
