/**
 * Forgetting that erases over the files backend: every file under the root is read back after a purge; and what a
 * purge erases of a source, of the journal's text (damaged lines too).
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { FileRoot, Platform, Purge } from "@mneme/review"
import { Effect, FileSystem, Layer, Path } from "effect"
import * as Journal from "../src/internal/journal.ts"
import { purgeSuite } from "./purgeSuite.ts"

/** The text of every file under `root`, one after the other. */
const everything = (root: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const names = yield* fs.readDirectory(root, { recursive: true })
    const texts: Array<string> = []
    for (const name of names) {
      const absolute = path.join(root, name)
      if ((yield* fs.stat(absolute)).type === "File") texts.push(yield* fs.readFileString(absolute))
    }
    return texts.join("\n")
  }).pipe(Effect.provide(NodeServices.layer))

purgeSuite({
  name: "files",
  fresh: Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped({ prefix: "mneme-purge-" })).pipe(
    Effect.map((root) => ({
      layer: FileRoot.layer({ root }).pipe(Layer.provide(Platform.layerTest()), Layer.provide(NodeServices.layer)),
      everything: everything(root)
    })),
    Effect.provide(NodeServices.layer)
  )
})

describe("what a purge erases", () => {
  it("a source's conversations: every part must name a line", () => {
    assert.deepStrictEqual(Purge.conversationsOf("chat-1 #3"), ["chat-1"])
    assert.deepStrictEqual(Purge.conversationsOf("team chat #3, chat-2 #10"), ["team chat", "chat-2"])
    assert.isUndefined(Purge.conversationsOf("chat-1 #3, a note"))
    assert.isUndefined(Purge.conversationsOf("#3"))
    assert.isUndefined(Purge.conversationsOf(undefined))
  })

  it.effect(
    "the journal's rewrite erases the lines that hold the text, drops a damaged one that does, keeps the rest",
    () =>
      Effect.gen(function* () {
        const line = (id: string, fields: object) =>
          JSON.stringify({ version: 2, id, time: 1, scope: "team", file: "team/MEMORY.md", actor: "t", ...fields })
        const text = [
          line("a", { op: "add", after: "- Marco drinks jasmine tea" }),
          line("b", { op: "add", after: "- Ada writes Rust" }),
          '{"damaged": "Marco drinks jasmine tea"',
          '{"damaged": "Ada writes Rust"',
          line("c", { op: "replace", before: "- Marco drinks jasmine tea", after: "- Marco drinks oolong" }),
          line("d", { op: "remove", before: "- Marco drinks oolong" }),
          ""
        ].join("\n")
        const erased = yield* Journal.erase(text, ["Marco drinks jasmine tea"])
        assert.strictEqual(erased.count, 4)
        assert.notInclude(erased.text, "jasmine")
        assert.notInclude(erased.text, "oolong")
        const decoded = Journal.decode(erased.text)
        assert.deepStrictEqual(
          decoded.lines.map((line) => [line.id, line.purged === true, line.after]),
          [
            ["a", true, undefined],
            ["b", false, "- Ada writes Rust"],
            ["c", true, undefined],
            ["d", true, undefined]
          ]
        )
        assert.deepStrictEqual(decoded.damaged, [3])
        assert.strictEqual((yield* Journal.erase(erased.text, ["Marco drinks jasmine tea"])).count, 0)
      })
  )
})
