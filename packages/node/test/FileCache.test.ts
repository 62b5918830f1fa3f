/**
 * The parsed files the files backend keeps while they are unchanged, on both platforms (Node's own, whose stats keep
 * a file's change time to the fraction of a millisecond, and the double, whose stats go through Effect's file system
 * in whole milliseconds): a file a person edits by hand is always seen, even with the same size and the same change
 * time, and a file unchanged since long ago is not read again. These run on the real clock: the cache compares a
 * file's change time with when it was read.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { MemoryConfig, MemoryScope } from "@mneme/core"
import { FileRoot, MemoryStore, Platform, RootFiles } from "@mneme/review"
import { Effect, type FileSystem, Layer } from "effect"
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodePlatform } from "../src/index.ts"

/** The platform of `platform`, counting the files its `RootFiles` reads into `reads`. */
const countingReads = (
  platform: Layer.Layer<Platform.Platform | RootFiles.RootFiles, never, FileSystem.FileSystem>,
  reads: Array<string>
) =>
  Layer.effect(
    RootFiles.RootFiles,
    Effect.map(RootFiles.RootFiles, (service) => ({
      ...service,
      readFile: (path: string) =>
        Effect.andThen(
          Effect.sync(() => reads.push(path)),
          service.readFile(path)
        )
    }))
  ).pipe(Layer.provideMerge(platform))

const platforms = [
  ["Node's platform", () => NodePlatform.layer],
  ["the platform double", () => Platform.layerTest()]
] as const

/** A store over `root` on `platform`, its file reads counted into `reads`. */
const storeOver = (root: string, platform: (typeof platforms)[number][1], reads: Array<string>) =>
  MemoryStore.layer.pipe(
    Layer.provide(FileRoot.layer({ root })),
    Layer.provide(MemoryConfig.layer()),
    Layer.provide(countingReads(platform(), reads)),
    Layer.provide(NodeServices.layer)
  )

const teamTexts = Effect.map(
  Effect.flatMap(MemoryStore.MemoryStore, (store) => store.load(MemoryScope.team)),
  (scope) => scope.files[0]!.parsed.entries.map((entry) => entry.text)
)

/** A temporary root with team/MEMORY.md holding `content`. */
const rootWith = (content: string) => {
  const root = mkdtempSync(join(tmpdir(), "mneme-cache-"))
  mkdirSync(join(root, "team"))
  writeFileSync(join(root, "team", "MEMORY.md"), content)
  return root
}

describe.each(platforms)("the parsed files kept while unchanged, on %s", (_, platform) => {
  it.live("a hand edit of the same size with the same change time, just after a read, is seen", () =>
    Effect.gen(function* () {
      const root = rootWith("- Alpha one.\n")
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(root, { recursive: true, force: true })))
      const memory = join(root, "team", "MEMORY.md")
      const reads: Array<string> = []
      // One change time for both versions, a few milliseconds before the first read (with a fraction of one).
      const time = (Date.now() - 5) / 1000 + 0.0000007
      const texts = yield* Effect.gen(function* () {
        utimesSync(memory, time, time)
        const before = yield* teamTexts
        writeFileSync(memory, "- Bravo two.\n")
        utimesSync(memory, time, time)
        const after = yield* teamTexts
        return { before, after }
      }).pipe(Effect.provide(storeOver(root, platform, reads)))
      assert.deepStrictEqual(texts.before, ["Alpha one."])
      assert.deepStrictEqual(texts.after, ["Bravo two."])
      assert.deepStrictEqual(
        reads.filter((path) => path === memory),
        [memory, memory]
      )
    })
  )

  it.live("a file unchanged since long before it was read is not read again; a change of size is read", () =>
    Effect.gen(function* () {
      const root = rootWith("- Alpha one.\n")
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(root, { recursive: true, force: true })))
      const memory = join(root, "team", "MEMORY.md")
      const longAgo = Date.now() / 1000 - 60
      utimesSync(memory, longAgo, longAgo)
      const reads: Array<string> = []
      const texts = yield* Effect.gen(function* () {
        const first = yield* teamTexts
        const second = yield* teamTexts
        const readTwice = reads.length
        writeFileSync(memory, "- Alpha one, and more.\n")
        utimesSync(memory, longAgo, longAgo)
        const third = yield* teamTexts
        return { first, second, readTwice, third }
      }).pipe(Effect.provide(storeOver(root, platform, reads)))
      assert.deepStrictEqual(texts.first, ["Alpha one."])
      assert.deepStrictEqual(texts.second, ["Alpha one."])
      assert.strictEqual(texts.readTwice, 1)
      assert.deepStrictEqual(texts.third, ["Alpha one, and more."])
      assert.strictEqual(reads.length, 2)
    })
  )
})
