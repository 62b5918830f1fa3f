/**
 * `NodePlatform.layer`: both services a host needs of the machine (`Platform` and `RootFiles`); `RootFiles` on Node
 * (stats, a file read whole and never through a link, a folder's names); and the SHA-256 mneme names folders and
 * records with (`RootLayout.hash`, plain TypeScript), the same digest as `node:crypto`'s.
 */
import { assert, describe, it } from "@effect/vitest"
import { Platform, RootFiles, RootLayout } from "@mneme/review"
import { Effect, Result } from "effect"
import { createHash } from "node:crypto"
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodePlatform } from "../src/index.ts"

it.effect("hashes a text's UTF-8 bytes with SHA-256, as hexadecimal", () =>
  Effect.sync(() => {
    assert.strictEqual(RootLayout.hash("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    for (const text of ["", "Ada Lovelace", "ünï 😀 中"]) {
      assert.strictEqual(RootLayout.hash(text), createHash("sha256").update(text, "utf8").digest("hex"))
    }
  })
)

it.effect("provides the machine (this process, this host) and the files backend's reads, and refuses a link", () =>
  Effect.gen(function* () {
    const root = mkdtempSync(join(tmpdir(), "mneme-layer-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(root, { recursive: true, force: true })))
    writeFileSync(join(root, "file.md"), "- one\n")
    symlinkSync("file.md", join(root, "link.md"))
    const platform = yield* Platform.Platform
    const reads = yield* RootFiles.RootFiles
    assert.strictEqual(platform.processId, process.pid)
    assert.isTrue(yield* platform.isAlive(process.pid))
    assert.strictEqual(new TextDecoder().decode(yield* reads.readFile(join(root, "file.md"))), "- one\n")
    const link = yield* Effect.flip(reads.readFile(join(root, "link.md")))
    assert.strictEqual(Platform.describeFailure(link), "too many links on the way")
  }).pipe(Effect.provide(NodePlatform.layer))
)

describe("NodePlatform's RootFiles.lstatAll", () => {
  it.effect("gives each path's kind, size, fine change time and inode; nothing for a missing path; a failure", () =>
    Effect.gen(function* () {
      const root = mkdtempSync(join(tmpdir(), "mneme-stat-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(root, { recursive: true, force: true })))
      writeFileSync(join(root, "file.md"), "12345")
      utimesSync(join(root, "file.md"), 1_700_000_000.25, 1_700_000_000.25)
      mkdirSync(join(root, "folder"))
      symlinkSync("file.md", join(root, "link.md"))
      const reads = yield* Effect.provide(RootFiles.RootFiles, NodePlatform.layer)
      const paths = ["file.md", "folder", "link.md", "missing.md", "file.md/inside"].map((name) => join(root, name))
      const stats = yield* reads.lstatAll(paths)
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

describe("NodePlatform's RootFiles.readFile and readDirectory", () => {
  it.effect("read a file's bytes and a folder's names; nothing for a missing file; never through a link", () =>
    Effect.gen(function* () {
      const root = mkdtempSync(join(tmpdir(), "mneme-read-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(root, { recursive: true, force: true })))
      writeFileSync(join(root, "file.md"), "- été\n")
      mkdirSync(join(root, "folder"))
      symlinkSync("file.md", join(root, "link.md"))
      const reads = yield* Effect.provide(RootFiles.RootFiles, NodePlatform.layer)
      const bytes = yield* reads.readFile(join(root, "file.md"))
      assert.strictEqual(new TextDecoder().decode(bytes), "- été\n")
      assert.strictEqual(yield* reads.readFile(join(root, "missing.md")), undefined)
      const folder = yield* Effect.flip(reads.readFile(join(root, "folder")))
      assert.strictEqual(Platform.describeFailure(folder), "it is a folder, not a file")
      const link = yield* Effect.flip(reads.readFile(join(root, "link.md")))
      assert.strictEqual(Platform.describeFailure(link), "too many links on the way")
      assert.deepStrictEqual([...(yield* reads.readDirectory(root))].sort(), ["file.md", "folder", "link.md"])
      const missing = yield* Effect.flip(reads.readDirectory(join(root, "missing")))
      assert.strictEqual(missing.reason._tag, "NotFound")
      assert.strictEqual(Platform.describeFailure(missing), "no such file or folder")
    })
  )
})
