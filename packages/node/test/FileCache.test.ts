/**
 * The parsed files the files backend keeps while they are unchanged, on both platforms (Node's own, whose stats keep
 * a file's change time to the fraction of a millisecond, and the double, whose stats go through Effect's file system
 * in whole milliseconds): a file a person edits by hand is always seen, even with the same size and the same change
 * time, and a file unchanged since long ago is not read again. These run on the real clock: the cache compares a
 * file's change time with when it was read. Also `NodePlatform`'s stats themselves.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { MemoryConfig, MemoryScope } from "@mneme/core"
import { FileRoot, MemoryStore, Platform } from "@mneme/review"
import { Effect, FileSystem, Layer, Result } from "effect"
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodePlatform } from "../src/index.ts"

/** The platform of `platform`, counting the files it reads into `reads`. */
const countingReads = (platform: Layer.Layer<Platform.Platform, never, FileSystem.FileSystem>, reads: Array<string>) =>
  Layer.effect(
    Platform.Platform,
    Effect.map(Platform.Platform, (service) => ({
      ...service,
      readFile: (path: string) =>
        Effect.andThen(
          Effect.sync(() => reads.push(path)),
          service.readFile(path)
        )
    }))
  ).pipe(Layer.provide(platform))

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

describe("NodePlatform.lstatAll", () => {
  it.effect("gives each path's kind, size, fine change time and inode; nothing for a missing path; a failure", () =>
    Effect.gen(function* () {
      const root = mkdtempSync(join(tmpdir(), "mneme-stat-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(root, { recursive: true, force: true })))
      writeFileSync(join(root, "file.md"), "12345")
      utimesSync(join(root, "file.md"), 1_700_000_000.25, 1_700_000_000.25)
      mkdirSync(join(root, "folder"))
      symlinkSync("file.md", join(root, "link.md"))
      const platform = yield* Effect.provide(Platform.Platform, NodePlatform.layer)
      const paths = ["file.md", "folder", "link.md", "missing.md", "file.md/inside"].map((name) => join(root, name))
      const stats = yield* platform.lstatAll(paths)
      assert.strictEqual(stats.length, paths.length)
      const [file, folder, link, missing, inside] = stats.map((stat) => stat)
      if (file === undefined || folder === undefined || link === undefined || missing === undefined) return
      if (inside === undefined) return
      const stat = Result.getOrThrow(file)!
      assert.strictEqual(stat.type, "File")
      assert.strictEqual(stat.size, 5)
      assert.strictEqual(stat.mtime, 1_700_000_000_250)
      assert.strictEqual(typeof stat.ino, "bigint")
      assert.strictEqual(Result.getOrThrow(folder)?.type, "Directory")
      assert.strictEqual(Result.getOrThrow(link)?.type, "SymbolicLink")
      assert.strictEqual(Result.getOrThrow(missing), undefined)
      assert.isTrue(Result.isFailure(inside))
      const failure = Result.isFailure(inside) ? inside.failure : undefined
      assert.strictEqual(failure?._tag, "PlatformError")
      assert.strictEqual(failure?.reason._tag, "BadResource")
      assert.strictEqual(Platform.describeFailure(failure!), "a part of the path is a file, not a folder")
    })
  )
})

describe("NodePlatform.readFile and readDirectory", () => {
  it.effect("read a file's bytes and a folder's names; nothing for a missing file; never through a link", () =>
    Effect.gen(function* () {
      const root = mkdtempSync(join(tmpdir(), "mneme-read-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(root, { recursive: true, force: true })))
      writeFileSync(join(root, "file.md"), "- été\n")
      mkdirSync(join(root, "folder"))
      symlinkSync("file.md", join(root, "link.md"))
      const platform = yield* Effect.provide(Platform.Platform, NodePlatform.layer)
      const bytes = yield* platform.readFile(join(root, "file.md"))
      assert.strictEqual(new TextDecoder().decode(bytes), "- été\n")
      assert.strictEqual(yield* platform.readFile(join(root, "missing.md")), undefined)
      const folder = yield* Effect.flip(platform.readFile(join(root, "folder")))
      assert.strictEqual(Platform.describeFailure(folder), "it is a folder, not a file")
      const link = yield* Effect.flip(platform.readFile(join(root, "link.md")))
      assert.strictEqual(Platform.describeFailure(link), "too many links on the way")
      assert.deepStrictEqual([...(yield* platform.readDirectory(root))].sort(), ["file.md", "folder", "link.md"])
      const missing = yield* Effect.flip(platform.readDirectory(join(root, "missing")))
      assert.strictEqual(missing.reason._tag, "NotFound")
      assert.strictEqual(Platform.describeFailure(missing), "no such file or folder")
    })
  )
})
