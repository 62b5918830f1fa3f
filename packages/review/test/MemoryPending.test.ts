/**
 * The entries waiting for a person (issue 28) kept in a scope's `pending.json`: within `pendingMax`, the oldest
 * dropped with a warning; a text already waiting is not held twice; a damaged file fails with its name, and is left
 * as it is.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Scope } from "@mneme/core"
import { Effect, FileSystem, Layer, Option, Path } from "effect"
import * as MemoryPending from "../src/MemoryPending.ts"
import { MemoryRoot } from "../src/MemoryRoot.ts"
import * as Testing from "../src/testing.ts"

const held = (text: string, at: number): MemoryPending.Held => ({ text, source: "c1 #1", why: "a reason", at })

const pendingService = Effect.flatMap(Effect.serviceOption(MemoryPending.MemoryPending), (found) =>
  Option.match(found, { onNone: () => Effect.die("no pending entries beside a memory folder"), onSome: Effect.succeed })
)

describe("the pending entries of a scope", () => {
  it.effect("keep at most pendingMax, the oldest dropped, and a text already waiting once", () =>
    Effect.gen(function* () {
      const pending = yield* pendingService
      const scope = Scope.own("a1")
      assert.strictEqual(yield* pending.hold(scope, [held("one", 1), held("two", 2)]), 0)
      assert.strictEqual(yield* pending.hold(scope, [held("two", 3), held("three", 4)]), 1)
      assert.deepStrictEqual(
        (yield* pending.list(scope)).map((entry) => entry.text),
        ["two", "three"]
      )
      assert.deepStrictEqual(yield* pending.list(Scope.team), [])
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
      const error = yield* Effect.flip(pending.hold(Scope.own("a1"), [held("one", 1)]))
      assert.strictEqual(error._tag, "StorageError")
      assert.strictEqual(error.reason._tag, "ReadFailed")
      assert.include(error.message, "agents/a1/pending.json")
      assert.include(error.message, "it is not a list of entries waiting for a person")
      assert.strictEqual(yield* fs.readFileString(path.join(folder, "pending.json")), "{ not json")
    }).pipe(Effect.provide(Testing.layer().pipe(Layer.provideMerge(NodeServices.layer))))
  )
})
